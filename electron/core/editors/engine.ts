import { existsSync } from 'node:fs';
import { AGGREGATE_ENTRY, DEFAULT_BRIDGE_PORT } from '../../../shared/bridge.ts';
import type { EditorId } from '../../../shared/editors.ts';
import { EditorSettingsSchema, type EditorSettings } from '../../../shared/schema/state.ts';
import type { TokenStore } from '../tokens/token-store.ts';
import { describeError } from '../errors.ts';
import type { HomePaths } from '../home.ts';
import type { Keychain } from '../secrets/keychain.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import { userDirs } from '../user-dirs.mjs';
import { Backups } from './backups.ts';
import { adoptThroughAggregate } from './discovery-adopt.ts';
import { serversForEditor, type SyncServer } from './desired.ts';
import { readEditorFile, type ReadResult } from './editor-file.ts';
import { writtenEntries } from './file-record.ts';
import { syncFile, type FileSyncContext, type SyncRequest } from './file-sync.ts';
import { giveBackFor, type GiveBack, type UnsyncOptions } from './give-back.ts';
import { appControlFor } from '../desktop-apps/index.ts';
import { isEditorRunning } from './processes.ts';
import { allEditors, EDITORS } from './registry.ts';
import { defaultRelayCommand, homeIsDefault } from './relay-command.ts';
import { blankReport, type EditorReport } from './report.ts';
import { restoreBackup, type RestoreResult } from './restore-backup.ts';
import { newSyncRun, saveSyncRun } from './sync-run.ts';
import type { EditorAdapter, OwnershipContext, RelayCommand, UserDirs } from './types.ts';

export interface EditorSyncOptions {
  home: HomePaths;
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  state: Pick<AppStateStore, 'editors' | 'updateEditorSettings' | 'updateEditors'>;
  tokens: Pick<TokenStore, 'dir' | 'get' | 'ensure'>;
  /** the bridge port managed entries point at */
  port: number;
  relay?: RelayCommand;
  isRunning?: (adapter: EditorAdapter) => Promise<boolean | undefined>;
  /** how many times a write is retried when someone else changes the file meanwhile */
  attempts?: number;
  /** tests: runs right before each write's rename (after the re-check's read) */
  beforeRename?: (editor: EditorId, target: string, attempt: number) => void;
  /** how long to wait for another Switchboard's lock on the same file */
  lockTimeoutMs?: number;
}

/**
 * Writes managed entries into editors' settings files: which editors a sync reaches and which servers
 * each gets, one file at a time (file-sync.ts: under a lock, read, plan, back up the original once,
 * write atomically, retried when someone else changed the file meanwhile), and what the run learnt
 * saved to state.json in one write (sync-run.ts). Unsync gives back what import replaced
 * (give-back.ts); restore puts a backup back (restore-backup.ts).
 */
export class EditorSync {
  readonly home: HomePaths;
  readonly backups: Backups;
  readonly #options: EditorSyncOptions;
  readonly #dirs: UserDirs;
  readonly #platform: NodeJS.Platform;
  readonly #files: FileSyncContext;
  #port: number;
  /** what this process last wrote per file (sha256), so a watcher can tell its own writes */
  readonly written = new Map<string, string>();

  constructor(options: EditorSyncOptions) {
    this.#options = options;
    this.home = options.home;
    this.#platform = options.platform ?? process.platform;
    this.#dirs = userDirs(options.env, this.#platform);
    this.#port = options.port;
    this.backups = new Backups(options.home.backups);
    const relay = options.relay ?? defaultRelayCommand(options.home, options.env, this.#platform);
    const apps = appControlFor(this.#platform, options.env);
    const isRunning = options.isRunning ?? ((a) => isEditorRunning(a, this.#platform, apps));
    const port = () => this.#port;
    this.#files = {
      home: options.home,
      platform: this.#platform,
      // read when used: the port can change between syncs (and a run's layout records it at the end)
      get port() {
        return port();
      },
      relay,
      tokens: options.tokens,
      state: options.state,
      backups: this.backups,
      written: this.written,
      beforeRename: options.beforeRename,
      currentSettings: (editor) => this.#settings()(editor),
      ownership: (editor, settings) => this.ownership(editor, settings),
      isRunning,
      attempts: options.attempts ?? 5,
      lockTimeoutMs: options.lockTimeoutMs ?? 10_000,
    };
  }

  get port(): number {
    return this.#port;
  }

  set port(port: number) {
    this.#port = port;
  }

  fileOf(editor: EditorId): string {
    return EDITORS[editor].file(this.#dirs);
  }

  /** What must exist for the editor to count as installed. */
  detectPathOf(editor: EditorId): string {
    return EDITORS[editor].detectPath(this.#dirs);
  }

  /** Installed = its settings folder (or file) exists. */
  detected(editor: EditorId): boolean {
    return existsSync(EDITORS[editor].detectPath(this.#dirs));
  }

  /** The editors a plain `sync` writes: detected and not turned off. */
  activeEditors(): EditorId[] {
    const settings = this.#settings();
    return allEditors()
      .map((a) => a.id)
      .filter((id) => this.detected(id) && settings(id).enabled);
  }

  /** The servers an editor gets: its own `editors` lists allow it and it is not excluded there. */
  serversFor(
    editor: EditorId,
    servers: readonly SyncServer[],
    settings: EditorSettings = this.#settings()(editor),
  ): string[] {
    return serversForEditor(editor, servers, settings);
  }

  ownership(editor: EditorId, settings: EditorSettings = this.#settings()(editor)): OwnershipContext {
    const layout = settings.layout;
    const file = this.fileOf(editor);
    return {
      ports: new Set([this.#port, DEFAULT_BRIDGE_PORT, ...(layout?.ports ?? [])]),
      homeRoot: this.home.root,
      homeIsDefault: homeIsDefault(this.home, this.#options.env, this.#platform),
      written: writtenEntries(settings, file),
    };
  }

  /** Makes every targeted editor's managed entries exactly `servers` (minus per-editor limits). */
  async sync(servers: readonly SyncServer[], request: SyncRequest = {}): Promise<EditorReport[]> {
    const explicit = request.editors !== undefined;
    const targets = request.editors ?? allEditors().map((a) => a.id);
    const settings = this.#settings();
    const run = newSyncRun(this.backups);
    const reports: EditorReport[] = [];
    try {
      for (const editor of targets) {
        const adapter = EDITORS[editor];
        const file = adapter.file(this.#dirs);
        const own = settings(editor);
        // Not installed first: unsync turns sync off for every editor, installed or not.
        if (!explicit && !this.detected(editor)) {
          reports.push({
            ...blankReport(
              adapter,
              file,
              'skipped',
              [],
              `not installed (no ${adapter.detectPath(this.#dirs)})`,
            ),
            reason: 'not-installed',
          });
          continue;
        }
        if (!explicit && !own.enabled) {
          reports.push({
            ...blankReport(
              adapter,
              file,
              'skipped',
              [],
              `sync is turned off for ${adapter.label} (turn it back on with: switchboard sync --all, or for this one: switchboard sync --editor ${editor})`,
            ),
            reason: 'sync-off',
          });
          continue;
        }
        if (explicit && !request.dryRun && !own.enabled)
          run.changes.push([editor, (s) => void (s.enabled = true)]);
        const names = this.serversFor(editor, servers, own);
        // Discovery mode: one entry for the aggregate /mcp instead of one per server.
        const entries = own.discovery && names.length ? [AGGREGATE_ENTRY] : names;
        const report = await syncFile(this.#files, {
          adapter,
          file,
          names: entries,
          request: entries === names ? request : adoptThroughAggregate(request, editor, names),
          settings: own,
          run,
        });
        // Counted and shown as the servers the editor gets: through the one entry, every one of them
        // (none when a user's own entry of that name keeps it out).
        if (entries !== names) report.servers = report.servers.includes(AGGREGATE_ENTRY) ? names : [];
        reports.push(report);
      }
    } finally {
      saveSyncRun(this.#options.state, run);
    }
    return reports;
  }

  /**
   * Removes every managed entry (the file's bytes are then the user's own again) and turns sync off
   * for those editors, so a running Switchboard does not put them back.
   */
  async unsync(editors?: readonly EditorId[], options: UnsyncOptions = {}): Promise<EditorReport[]> {
    const targets = editors ?? allEditors().map((a) => a.id);
    const settings = this.#settings();
    const run = newSyncRun(this.backups);
    const reports: EditorReport[] = [];
    try {
      for (const editor of targets) {
        const adapter = EDITORS[editor];
        const file = adapter.file(this.#dirs);
        const own = settings(editor);
        let giveBack: GiveBack;
        try {
          giveBack = await giveBackFor(editor, file, own, options);
        } catch (err) {
          reports.push(blankReport(adapter, file, 'failed', [], describeError(err)));
          continue;
        }
        if (!options.dryRun) run.changes.push([editor, (s) => void (s.enabled = false)]);
        const request: SyncRequest = { dryRun: options.dryRun ?? false, giveBack };
        reports.push(await syncFile(this.#files, { adapter, file, names: [], request, settings: own, run }));
      }
    } finally {
      saveSyncRun(this.#options.state, run);
    }
    return reports;
  }

  /** The secrets import moved out of the entries of one editor's file (none: nothing to ask about). */
  importedSecrets(editor: EditorId): { entries: { entry: string; secrets: string[] }[]; heldBack: string[] } {
    const file = this.fileOf(editor);
    const settings = this.#settings()(editor);
    const entries = (settings.imported ?? [])
      .filter((r) => r.file === file)
      .flatMap((r) => r.entries)
      .map((e) => ({ entry: e.entry, secrets: [...new Set(e.secrets.map((s) => s.name))].sort() }));
    return { entries, heldBack: settings.heldBack?.file === file ? settings.heldBack.names : [] };
  }

  /**
   * Puts a backup's bytes back (through symlinks, mode kept), after backing up what is there now, and
   * turns sync off for that editor so a running Switchboard does not rewrite it.
   */
  restore(id: string, keychain: () => Keychain): Promise<RestoreResult> {
    return restoreBackup(
      { home: this.home, backups: this.backups, state: this.#options.state, written: this.written },
      id,
      keychain,
    );
  }

  /** The text of an editor's file as read now (undefined: no file), or a problem reading it. */
  read(editor: EditorId): ReadResult {
    return readEditorFile(this.fileOf(editor));
  }

  /** Every editor's settings from one read of state.json. */
  #settings(): (editor: EditorId) => EditorSettings {
    const editors = this.#options.state.editors();
    return (editor) => editors[editor] ?? EditorSettingsSchema.parse({});
  }
}
