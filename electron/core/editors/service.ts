import { EventEmitter } from 'node:events';
import { readFileSync, realpathSync } from 'node:fs';
import { EDITOR_IDS, type EditorId } from '../../../shared/editors.ts';
import type { EditorRestartResult, EditorSyncState, EditorView } from '../../../shared/ui-api.ts';
import type { TokenStore } from '../tokens/token-store.ts';
import { watchFile } from '../config/watch.ts';
import type { CoreEvents } from '../core-events.ts';
import { appControlFor, canRestartApps, type AppControl } from '../desktop-apps/index.ts';
import { describeError, UserError } from '../errors.ts';
import type { HomePaths } from '../home.ts';
import type { Keychain } from '../secrets/keychain.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import type { CommandLookup } from '../trust/resolve-command.ts';
import { sha256 } from './backups.ts';
import { changeExclusions, syncServers, syncSignature, type SyncServersCore } from './desired.ts';
import { EditorSync, type EditorSyncOptions } from './engine.ts';
import { applyImport, importListing, scanImports, StaleImportListing, type ImportResult } from './import.ts';
import { allEditors, EDITORS } from './registry.ts';
import { describeReports, type EditorReport } from './report.ts';
import type { RestoreResult } from './restore-backup.ts';
import { restartEditor } from './restart.ts';
import { RestartWatch } from './restart-watch.ts';
import type { RelayCommand } from './types.ts';

/**
 * What editor sync uses of the core: the servers editors get, the editor settings and approvals, the
 * changes that call for a sync, and (for an import) finding commands and reading servers.json again.
 */
export interface EditorSyncCore extends SyncServersCore {
  readonly state: Pick<
    AppStateStore,
    | 'read'
    | 'approve'
    | 'noteSource'
    | 'autoSync'
    | 'editors'
    | 'editorSettings'
    | 'updateEditorSettings'
    | 'updateEditors'
  >;
  readonly events: Pick<EventEmitter<CoreEvents>, 'on' | 'off'>;
  readonly servers: SyncServersCore['servers'] & { commandLookup(): CommandLookup };
  readonly lifecycle: { reload(): void };
}

export interface EditorSyncServiceOptions {
  core: EditorSyncCore;
  tokens: Pick<TokenStore, 'dir' | 'get' | 'ensure' | 'onRotated'>;
  home: HomePaths;
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** the port the bridge listens on */
  port: number;
  relay?: RelayCommand;
  /** where reports go as lines a person reads (serve prints them) */
  log?: (line: string) => void;
  /** wait this long after a change before syncing (changes come in bursts) */
  debounceMs?: number;
  /** re-applying drift more often than this per minute and editor stops (someone keeps undoing it) */
  maxReappliesPerMinute?: number;
  engine?: Partial<EditorSyncOptions>;
  /** lists and restarts desktop apps (Claude Desktop); default: this OS's; null: none */
  apps?: AppControl | null;
  /** how often a pending "restart Claude Desktop" is checked again */
  restartCheckMs?: number;
}

export interface EditorSyncEvents {
  /** a sync wrote, failed or skipped something */
  report: [EditorReport[]];
  /** a managed entry was changed or removed outside Switchboard (and is re-applied) */
  drift: [editor: EditorId, servers: string[]];
  /** an editor's "restart it" hint came or went (it was restarted, quit, or its file written) */
  restart: [editors: EditorId[]];
}

/**
 * Editor sync while `switchboard serve` runs: syncs every active editor at start and whenever the set
 * of approved, enabled servers changes; watches each active editor's file, and when a managed entry
 * there is changed or removed by someone else, reports the drift and writes it back (the person can
 * exclude that server from that editor instead: `switchboard sync --editor E --exclude NAME`).
 */
export class EditorSyncService extends EventEmitter<EditorSyncEvents> {
  readonly engine: EditorSync;
  readonly #core: EditorSyncCore;
  readonly #log: (line: string) => void;
  readonly #debounceMs: number;
  readonly #maxReapplies: number;
  #signature: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #watchers = new Map<EditorId, { close(): Promise<void> }>();
  #reapplies = new Map<EditorId, number[]>();
  #closed = false;
  #onCoreChange = () => this.#schedule();
  readonly #tokens: EditorSyncServiceOptions['tokens'];
  readonly #env: NodeJS.ProcessEnv;
  #stopTokenWatch: (() => void) | undefined;
  /** Claude Desktop (any editor with a restart notice): does it still run with an old file? */
  readonly restartWatch: RestartWatch;
  readonly #apps: AppControl | undefined;
  readonly #platform: NodeJS.Platform;
  /** editors whose file a sync made owner-only since this service started (the view says so) */
  readonly madePrivate = new Set<EditorId>();
  /** resolves when the first sync and the watchers are in place */
  ready: Promise<void> = Promise.resolve();

  constructor(options: EditorSyncServiceOptions) {
    super();
    this.#core = options.core;
    this.#tokens = options.tokens;
    this.#env = options.env;
    this.#log = options.log ?? ((line) => process.stderr.write(line + '\n'));
    this.#debounceMs = options.debounceMs ?? 100;
    this.#maxReapplies = options.maxReappliesPerMinute ?? 5;
    this.engine = new EditorSync({
      home: options.home,
      env: options.env,
      state: options.core.state,
      tokens: options.tokens,
      port: options.port,
      ...(options.platform ? { platform: options.platform } : {}),
      ...(options.relay ? { relay: options.relay } : {}),
      ...options.engine,
    });
    this.#platform = options.platform ?? process.platform;
    this.#apps =
      options.apps === null ? undefined : (options.apps ?? appControlFor(this.#platform, options.env));
    const state = options.core.state;
    this.restartWatch = new RestartWatch({
      control: this.#apps,
      writtenAt: (editor) => state.editorSettings(editor).writtenAt,
      ...(options.restartCheckMs ? { intervalMs: options.restartCheckMs } : {}),
    });
    this.restartWatch.on('change', (editors) => this.emit('restart', editors));
  }

  /**
   * The service, or undefined (said in the log) when editors cannot be located at all (no HOME):
   * serving MCP must not depend on editor sync.
   */
  static create(options: EditorSyncServiceOptions): EditorSyncService | undefined {
    try {
      return new EditorSyncService(options);
    } catch (err) {
      (options.log ?? ((line: string) => process.stderr.write(line + '\n')))(
        `editor sync is off: ${describeError(err)}`,
      );
      return undefined;
    }
  }

  /** First sync, then watch. Never throws: problems are reported. */
  start(): Promise<void> {
    this.#core.events.on('config', this.#onCoreChange);
    this.#core.events.on('status', this.#onCoreChange);
    // A rotated editor token: that editor's file still holds the old one, which no longer works.
    this.#stopTokenWatch = this.#tokens.onRotated((names) => {
      for (const name of names) {
        if (!(EDITOR_IDS as readonly string[]).includes(name)) continue;
        const editor = name as EditorId;
        if (this.engine.detected(editor) && this.#core.state.editorSettings(editor).enabled)
          void this.syncNow(editor).catch((err: unknown) =>
            this.#log(`sync after token rotation: ${describeError(err)}`),
          );
      }
    });
    this.ready = this.#enqueue(async () => {
      // Automatic sync off (Settings): editors' files change only when the person syncs.
      if (this.#core.state.autoSync()) await this.#syncIfChanged(true);
      await this.#refreshWatchers();
      // A write by an earlier run (or the CLI) that Claude Desktop has not read yet.
      await this.restartWatch.check();
    });
    return this.ready;
  }

  /**
   * Sync now (all active editors, or one), whatever changed. With `selection`, that editor first
   * stops getting the servers in `exclude` and gets those in `include` again (`sync --exclude`).
   */
  syncNow(
    editor?: EditorId,
    selection?: { exclude?: readonly string[]; include?: readonly string[] },
  ): Promise<EditorReport[]> {
    return this.#enqueue(async () => {
      if (editor && selection)
        this.#core.state.updateEditorSettings(editor, (s) => changeExclusions(s, selection));
      const servers = syncServers(this.#core);
      this.#signature = syncSignature(servers);
      const reports = await this.engine.sync(servers, editor ? { editors: [editor] } : {});
      this.#publish(reports);
      await this.#refreshWatchers();
      return reports;
    });
  }

  /**
   * Keeps `server` out of `editor` (or gives it back), as `sync --editor E --exclude/--include` does:
   * the editor's token stops reaching it at once (the bridge reads the settings), and its file follows
   * now when Switchboard keeps that editor in sync automatically (else at the person's next sync).
   */
  setExcluded(editor: EditorId, server: string, excluded: boolean): Promise<EditorReport[]> {
    return this.#enqueue(async () => {
      const settings = this.#core.state.updateEditorSettings(editor, (s) => {
        const others = s.exclude.filter((n) => n !== server);
        s.exclude = excluded ? [...others, server].sort() : others;
      });
      if (!this.#core.state.autoSync() || !settings.enabled || !this.engine.detected(editor)) return [];
      const reports = await this.engine.sync(syncServers(this.#core), { editors: [editor] });
      this.#publish(reports);
      await this.#refreshWatchers();
      return reports;
    });
  }

  /**
   * Every editor as the UI's Editors view shows it (shared/ui-api.ts EditorView): installed or not,
   * the state of its file, and the diff a sync would make now (a dry run: writes nothing).
   */
  views(): Promise<EditorView[]> {
    return this.#enqueue(async () => {
      await this.restartWatch.check();
      const servers = syncServers(this.#core);
      const backups = this.engine.backups.list();
      const views: EditorView[] = [];
      for (const adapter of allEditors()) {
        const id = adapter.id;
        const base = {
          id,
          label: adapter.label,
          file: this.engine.fileOf(id),
          backups: backups
            .filter((b) => b.editor === id)
            .sort((a, b) => b.createdAt - a.createdAt)
            .map((b) => ({ id: b.id, createdAt: b.createdAt, file: b.file })),
          restartRequired: this.restartWatch.state(id).pending,
          canRestart:
            this.restartWatch.state(id).pending && this.#apps !== undefined && canRestartApps(this.#platform),
          madePrivate: this.madePrivate.has(id),
          tokenInFile: adapter.tokenInFile,
          notice: adapter.afterWriteNotice ?? null,
        };
        if (!this.engine.detected(id)) {
          views.push({
            ...base,
            state: 'not-installed',
            problem: null,
            servers: [],
            excluded: [],
            diff: '',
            unsync: null,
          });
          continue;
        }
        const settings = this.#core.state.editorSettings(id);
        const [preview] = await this.engine.sync(servers, { editors: [id], dryRun: true });
        if (!preview) continue;
        let state: EditorSyncState;
        if (preview.status === 'failed') state = 'error';
        else if (!settings.enabled) state = 'disabled';
        else if (preview.status === 'unchanged') state = 'in-sync';
        else if (preview.updated.length || preview.removed.length || settings.layout) state = 'drift';
        else state = 'not-synced';
        const n = preview.clashes.length;
        const clashes = n
          ? `your own entr${n === 1 ? 'y' : 'ies'} ${preview.clashes.join(', ')} already use${n === 1 ? 's' : ''} that name; Switchboard leaves ${n === 1 ? 'it' : 'them'} alone`
          : null;
        views.push({
          ...base,
          state,
          problem: preview.problem ?? clashes,
          servers: preview.servers,
          excluded: settings.exclude,
          diff: preview.diff ?? '',
          unsync: await this.#unsyncPreview(id),
        });
      }
      return views;
    });
  }

  /** Puts a backup back (see EditorSync.restore); the editor is then left alone until synced again. */
  restore(editor: EditorId, backup: string, keychain: () => Keychain): Promise<RestoreResult> {
    return this.#enqueue(async () => {
      const meta = this.engine.backups.get(backup);
      if (meta.editor !== editor) throw new UserError(`backup ${backup} is of ${meta.editor}, not ${editor}`);
      const result = await this.engine.restore(backup, keychain);
      await this.#refreshWatchers();
      return result;
    });
  }

  /**
   * Takes Switchboard's entries out of one editor's file, gives back the user's entries import
   * replaced (their secrets too when `restoreSecrets`), and turns sync off for that editor.
   */
  async unsync(editor: EditorId, restoreSecrets: boolean, keychain: () => Keychain): Promise<EditorReport> {
    const [report] = await this.unsyncEditors([editor], restoreSecrets, keychain);
    if (!report) throw new Error(`internal error: no unsync report for ${editor}`);
    return report;
  }

  /**
   * Unsync of several editors (undefined: every one, installed or not) in one run, as the CLI's
   * `unsync` asks for it: in this queue, so no drift repair of the same files runs in between.
   */
  unsyncEditors(
    editors: readonly EditorId[] | undefined,
    restoreSecrets: boolean,
    keychain: () => Keychain,
  ): Promise<EditorReport[]> {
    return this.#enqueue(async () => {
      const reports = await this.engine.unsync(editors, { restoreSecrets, keychain });
      for (const r of reports) if (r.status !== 'failed') this.madePrivate.delete(r.editor);
      this.#publish(reports);
      await this.#refreshWatchers();
      return reports;
    });
  }

  /**
   * The CLI's `import --yes` while this Switchboard runs: scans the editors again and, if they still
   * hold exactly what the person was shown (`listing`, see importListing), imports it here — the
   * secrets into this keychain, approvals into this state — and makes the entries managed.
   */
  importFrom(
    from: readonly EditorId[] | undefined,
    listing: string,
    keychain: Keychain,
  ): Promise<ImportResult> {
    return this.#enqueue(async () => {
      const editors =
        from ??
        allEditors()
          .map((a) => a.id)
          .filter((id) => this.engine.detected(id));
      const scan = scanImports(this.engine, this.engine.home.serversFile, editors);
      if (importListing(scan) !== listing) throw new StaleImportListing();
      const core = this.#core;
      const result = await applyImport(scan, {
        home: this.engine.home,
        env: this.#env,
        commandPath: core.servers.commandLookup().path,
        state: core.state,
        keychain,
        engine: this.engine,
        syncServers: () => {
          // The approvals and servers.json just written, applied now (the watcher would follow).
          core.lifecycle.reload();
          return syncServers(core);
        },
      });
      this.#signature = syncSignature(syncServers(core));
      this.#publish(result.reports);
      await this.#refreshWatchers();
      return result;
    });
  }

  /**
   * Quits and reopens an editor that reads its file only at start (Claude Desktop), if it runs; then
   * its hint is checked again (and clears: the new process started after the write).
   */
  async restart(editor: EditorId): Promise<EditorRestartResult> {
    try {
      return await restartEditor(EDITORS[editor], this.#apps);
    } finally {
      await this.restartWatch.check();
    }
  }

  /** What unsync would do to this editor's file now (a dry run), for the view to say before it does it. */
  async #unsyncPreview(editor: EditorId): Promise<EditorView['unsync']> {
    const [dry] = await this.engine.unsync([editor], { dryRun: true });
    if (!dry || dry.status === 'failed') return null;
    const imported = this.engine.importedSecrets(editor);
    const secretsOf = (entry: string) =>
      [...new Set(imported.entries.filter((e) => e.entry === entry).flatMap((e) => e.secrets))].sort();
    return {
      removes: [...dry.removed].sort(),
      restores: dry.restored.map((entry) => ({ entry, secrets: secretsOf(entry) })),
      heldBack: imported.heldBack,
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#stopTokenWatch?.();
    this.restartWatch.close();
    this.#core.events.off('config', this.#onCoreChange);
    this.#core.events.off('status', this.#onCoreChange);
    await this.#queue.catch(() => undefined);
    await Promise.all([...this.#watchers.values()].map((w) => w.close()));
    this.#watchers.clear();
  }

  #schedule(): void {
    if (this.#closed || !this.#core.state.autoSync()) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#enqueue(() => this.#syncIfChanged(false)), this.#debounceMs);
    this.#timer.unref();
  }

  async #syncIfChanged(always: boolean): Promise<void> {
    const servers = syncServers(this.#core);
    const signature = syncSignature(servers);
    if (!always && signature === this.#signature) return;
    this.#signature = signature;
    this.#publish(await this.engine.sync(servers));
    await this.#refreshWatchers();
  }

  /** Someone changed an editor file: if managed entries drifted, say so and write them back. */
  async #checkDrift(editor: EditorId, file: string): Promise<void> {
    if (
      this.#closed ||
      !this.#core.state.autoSync() ||
      !this.engine.detected(editor) ||
      !this.#core.state.editorSettings(editor).enabled
    )
      return;
    let text: string | undefined;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      text = undefined;
    }
    if (this.engine.written.get(file) === sha256(text ?? '')) return; // our own write
    const servers = syncServers(this.#core);
    const [preview] = await this.engine.sync(servers, { editors: [editor], dryRun: true });
    if (!preview || preview.status !== 'dry-run') {
      if (preview?.status === 'failed') this.#publish([preview]);
      return;
    }
    const drifted = [...preview.added, ...preview.updated, ...preview.removed].sort();
    if (drifted.length === 0) return;
    const now = Date.now();
    const recent = (this.#reapplies.get(editor) ?? []).filter((t) => now - t < 60_000);
    if (recent.length >= this.#maxReapplies) {
      this.#log(
        `${preview.label}: ${file} keeps changing Switchboard's entries (${drifted.join(', ')}); not re-applying again for now. ` +
          `To use an entry of your own instead: ${ownEntryHint(editor, 'NAME')}`,
      );
      return;
    }
    recent.push(now);
    this.#reapplies.set(editor, recent);
    this.emit('drift', editor, drifted);
    this.#log(
      `${preview.label}: ${drifted.join(', ')} changed outside Switchboard in ${file}; putting Switchboard's entr${drifted.length === 1 ? 'y' : 'ies'} back. ` +
        `To use an entry of your own instead: ${ownEntryHint(editor, drifted[0] ?? 'NAME')}`,
    );
    this.#publish(await this.engine.sync(servers, { editors: [editor] }));
  }

  async #refreshWatchers(): Promise<void> {
    if (this.#closed) return;
    const active = new Set(this.engine.activeEditors());
    for (const [editor, watcher] of this.#watchers) {
      if (!active.has(editor)) {
        this.#watchers.delete(editor);
        await watcher.close();
      }
    }
    for (const editor of EDITOR_IDS) {
      if (!active.has(editor) || this.#watchers.has(editor)) continue;
      const file = this.engine.fileOf(editor);
      const onChange = () => void this.#enqueue(() => this.#checkDrift(editor, file));
      try {
        const watchers = [await watchFile(file, onChange, { log: this.#log })];
        // A symlinked file (dotfile managers) is also changed through its target's folder.
        let real = file;
        try {
          real = realpathSync(file);
        } catch {
          // not there yet
        }
        if (real !== file) watchers.push(await watchFile(real, onChange, { log: this.#log }));
        this.#watchers.set(editor, {
          close: async () => void (await Promise.all(watchers.map((w) => w.close()))),
        });
      } catch (err) {
        this.#log(`cannot watch ${file}: ${describeError(err)}`);
        continue;
      }
      // A change made after the file was last read or written and before the watcher was ready
      // raised no event: read it once more now (our own write, or no drift, changes nothing).
      try {
        await this.#checkDrift(editor, file);
      } catch (err) {
        this.#log(`${file}: ${describeError(err)}`);
      }
    }
  }

  #publish(reports: EditorReport[]): void {
    const worth = reports.filter(
      (r) => r.status === 'written' || r.status === 'failed' || r.clashes.length > 0 || r.madePrivate,
    );
    for (const r of reports) if (r.madePrivate) this.madePrivate.add(r.editor);
    // Claude Desktop's file written: it has not read this yet if it runs.
    if (reports.some((r) => r.status === 'written' && r.notice)) void this.restartWatch.check();
    for (const line of describeReports(worth)) this.#log(line);
    if (worth.length) this.emit('report', worth);
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch((err: unknown) => this.#log(`editor sync: ${describeError(err)}`));
    return run;
  }
}

/**
 * How a person keeps an entry of their own for a server Switchboard syncs: Switchboard's entry goes
 * (the server is excluded for that editor), and one the person writes is never touched.
 */
function ownEntryHint(editor: EditorId, server: string): string {
  return `switchboard sync --editor ${editor} --exclude ${server}, then add yours (Switchboard leaves entries it did not write alone)`;
}
