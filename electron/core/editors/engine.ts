import {
  existsSync,
  lstatSync,
  readFileSync,
  realpathSync,
  statSync,
  unlinkSync,
  accessSync,
  constants,
} from 'node:fs';
import { join } from 'node:path';
import { withoutSecrets } from '../secrets/diff-secrets.ts';
import { AGGREGATE_ENTRY, DEFAULT_BRIDGE_PORT } from '../../../shared/bridge.ts';
import type { EditorId } from '../../../shared/editors.ts';
import type { EditorSkipReason } from '../../../shared/editor-report.ts';
import {
  EditorSettingsSchema,
  type EditorFileLayout,
  type EditorSettings,
} from '../../../shared/schema/state.ts';
import { editorTokenFile, type TokenStore } from '../tokens/token-store.ts';
import { describeError, UserError } from '../errors.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { makeOwnerOnly, othersHaveAccess, ownerOnly } from '../fs/owner-only.ts';
import type { HomePaths } from '../home.ts';
import type { Keychain } from '../secrets/keychain.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import { Backups, sha256, type BackupMeta, type SecretSpan } from './backups.ts';
import { withLock } from './lock.ts';
import { aggregateUrl, bridgeUrl, ownsEntry } from './ownership.ts';
import { userDirs } from '../user-dirs.mjs';
import {
  fillPlaceholders,
  giveBackFor,
  heldBackPlaceholder,
  importRecord,
  type GiveBack,
  type UnsyncOptions,
} from './give-back.ts';

export type { UnsyncOptions } from './give-back.ts';
import { ensureHeadersHelper, headersHelperCommand } from './headers-helper.ts';
import { isEditorRunning } from './processes.ts';
import { allEditors, EDITORS } from './registry.ts';
import { defaultRelayCommand, homeIsDefault } from './relay-command.ts';
import type { EditorAdapter, OwnershipContext, RelayCommand, UserDirs } from './types.ts';

/** What restoring a backup did: which file, whether its bytes are the backup's, what was saved first. */
export interface RestoreResult {
  meta: BackupMeta;
  file: string;
  /** false: a secret in it changed in the keychain since, so the bytes differ from the backup */
  exact: boolean;
  /** the backup of what was there before, if it differed */
  saved: string | undefined;
}

/**
 * An editor's server selection changed (`sync --editor E --exclude S` / `--include S`): those in
 * `exclude` are left out of its file from now on, those in `include` come back.
 */
export function changeExclusions(
  settings: EditorSettings,
  change: { exclude?: readonly string[] | undefined; include?: readonly string[] | undefined },
): void {
  const include = change.include ?? [];
  settings.exclude = [
    ...new Set([...settings.exclude.filter((n) => !include.includes(n)), ...(change.exclude ?? [])]),
  ].sort();
}

/** A server every (allowed) editor should have: approved, enabled, and its own `editors` list. */
export interface SyncServer {
  name: string;
  /** from servers.json; undefined = every editor */
  editors?: readonly EditorId[] | undefined;
}

export type EditorStatus = 'written' | 'unchanged' | 'dry-run' | 'skipped' | 'failed';

export interface EditorReport {
  editor: EditorId;
  label: string;
  file: string;
  status: EditorStatus;
  /** the servers this editor gets */
  servers: string[];
  added: string[];
  updated: string[];
  removed: string[];
  /** a user entry already has this name: reported, not overwritten */
  clashes: string[];
  /** user entries replaced by managed ones (import) */
  adopted: string[];
  /** why it was skipped or failed, in words (with line and column for a file that does not parse) */
  problem?: string | undefined;
  /** why it was not synced, when that is not Switchboard failing: off, not installed, a file that does not parse */
  reason?: EditorSkipReason | undefined;
  /** where a file that does not parse stops parsing */
  location?: { line: number; column: number } | undefined;
  /** said once after this editor's file was written (Gemini CLI's folder trust) */
  afterWrite?: string | undefined;
  /** --dry-run: the unified diff the sync would make */
  diff?: string | undefined;
  /** e.g. Claude Desktop must restart */
  notice?: string | undefined;
  /** whether the editor is running (when a notice is given); undefined = could not tell */
  running?: boolean | undefined;
  /** backups taken now */
  backups: string[];
  /** unsync: the user's own entries given back (those import had replaced) */
  restored: string[];
  /** unsync: entries import replaced that could not be given back, and why */
  notRestored: { entry: string; why: string }[];
  /** unsync: secrets written back into the file, as plain text, at the person's request */
  secretsPutBack: string[];
  /** unsync: secrets left in the keychain; where each stood, the file says how to put it back */
  secretsHeldBack: string[];
  /** the file holds this editor's bridge token and others could read it: it is owner-only (0600) now */
  madePrivate: boolean;
}

export interface SyncRequest {
  /** only these editors (they are written even if not detected, and turned back on) */
  editors?: readonly EditorId[] | undefined;
  dryRun?: boolean;
  /** import: user entries to replace by managed ones, per editor (entry name → server name) */
  adopt?: ReadonlyMap<EditorId, ReadonlyMap<string, string>>;
  /** import: literal secrets (already in the keychain) to keep out of the backup, per editor */
  secretsInFile?: ReadonlyMap<EditorId, (text: string) => SecretSpan[]>;
  /** set by unsync, for its one editor */
  giveBack?: GiveBack;
}

export interface EditorSyncOptions {
  home: HomePaths;
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  state: AppStateStore;
  tokens: TokenStore;
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

class Conflict extends Error {}

/** The servers an editor gets: its own `editors` lists allow it and its settings do not exclude it. */
export function serversForEditor(
  editor: EditorId,
  servers: readonly SyncServer[],
  settings: EditorSettings,
): string[] {
  const exclude = new Set(settings.exclude);
  return servers
    .filter((s) => (s.editors === undefined || s.editors.includes(editor)) && !exclude.has(s.name))
    .map((s) => s.name)
    .sort();
}

/** One sync over several editors: state changes to save once, backups already taken. */
interface Run {
  changes: [EditorId, (settings: EditorSettings) => void][];
  /** true if the original of this file is backed up already; false once (the caller then takes it) */
  hasOriginal(editor: EditorId, target: string): boolean;
}

/** Stands for a token a dry run would issue. */
const NEW_TOKEN = '<new token>';

type ReadResult =
  | { kind: 'ok'; text: string | undefined; bytes: Buffer | undefined; target: string }
  | { kind: 'problem'; problem: string };

/**
 * Writes managed entries into editors' settings files. Per file: under a lock, read, plan (pure, see
 * file-format.ts), back up the original once, write atomically through symlinks with the mode kept, and
 * re-check right before the rename that nobody changed the file since it was read (if someone did,
 * nothing is written and the whole step is retried, a few times, then reported).
 */
export class EditorSync {
  readonly home: HomePaths;
  readonly backups: Backups;
  readonly #options: EditorSyncOptions;
  readonly #dirs: UserDirs;
  readonly #relay: RelayCommand;
  readonly #platform: NodeJS.Platform;
  #port: number;
  /** what this process last wrote per file (sha256), so a watcher can tell its own writes */
  readonly written = new Map<string, string>();

  constructor(options: EditorSyncOptions) {
    this.#options = options;
    this.home = options.home;
    this.#platform = options.platform ?? process.platform;
    this.#dirs = userDirs(options.env, this.#platform);
    this.#relay = options.relay ?? defaultRelayCommand(options.home, options.env, this.#platform);
    this.#port = options.port;
    this.backups = new Backups(options.home.backups);
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
    const run = this.#newRun();
    const reports: EditorReport[] = [];
    try {
      for (const editor of targets) {
        const adapter = EDITORS[editor];
        const file = adapter.file(this.#dirs);
        const own = settings(editor);
        // Not installed first: unsync turns sync off for every editor, installed or not.
        if (!explicit && !this.detected(editor)) {
          reports.push({
            ...this.#report(
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
            ...this.#report(
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
        const report = await this.#syncFile(adapter, file, entries, request, own, run);
        // Counted and shown as the servers the editor gets: through the one entry, every one of them
        // (none when a user's own entry of that name keeps it out).
        if (entries !== names) report.servers = report.servers.includes(AGGREGATE_ENTRY) ? names : [];
        reports.push(report);
      }
    } finally {
      this.#saveRun(run);
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
    const run = this.#newRun();
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
          reports.push(this.#report(adapter, file, 'failed', [], describeError(err)));
          continue;
        }
        if (!options.dryRun) run.changes.push([editor, (s) => void (s.enabled = false)]);
        const request: SyncRequest = { dryRun: options.dryRun ?? false, giveBack };
        reports.push(await this.#syncFile(adapter, file, [], request, own, run));
      }
    } finally {
      this.#saveRun(run);
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
  async restore(id: string, keychain: () => Keychain): Promise<RestoreResult> {
    const meta = this.backups.get(id);
    const { text, exact } = await this.backups.content(meta, keychain);
    const adapter = EDITORS[meta.editor];
    const saved = await withLock(this.#lockFile(adapter.id, meta.file), () => {
      const read = readEditorFile(meta.file);
      if (read.kind === 'problem') throw new UserError(read.problem);
      const same = read.text === text;
      const before = same
        ? undefined
        : this.backups.create({
            editor: meta.editor,
            file: meta.file,
            target: read.target,
            text: read.text,
            reason: 'before-restore',
          }).id;
      if (!same) {
        if (text === undefined) {
          if (read.bytes !== undefined) unlinkSync(read.target);
          this.written.set(meta.file, sha256(''));
        } else {
          writeFileAtomic(meta.file, text, {
            ...(read.bytes === undefined ? { mode: 0o600 } : {}),
            beforeRename: (target) => {
              const now = readBytes(target);
              const unchanged =
                now === undefined
                  ? read.bytes === undefined
                  : read.bytes !== undefined && now.equals(read.bytes);
              if (!unchanged)
                throw new UserError(
                  `${meta.file} changed while Switchboard was restoring it; nothing was written`,
                  { hint: 'try again' },
                );
            },
          });
          this.written.set(meta.file, sha256(text));
        }
      }
      return before;
    });
    // The file is what the backup holds now: what import replaced there is in it or not, as it was.
    this.#options.state.updateEditorSettings(meta.editor, (s) => {
      s.enabled = false;
      delete s.layout;
      const others = (s.imported ?? []).filter((r) => r.file !== meta.file);
      if (others.length) s.imported = others;
      else delete s.imported;
      if (s.heldBack?.file === meta.file) delete s.heldBack;
    });
    return { meta, file: meta.file, exact, saved };
  }

  /** The text of an editor's file as read now (undefined: no file), or a problem reading it. */
  read(editor: EditorId): ReadResult {
    return readEditorFile(this.fileOf(editor));
  }

  async #syncFile(
    adapter: EditorAdapter,
    file: string,
    names: string[],
    request: SyncRequest,
    settings: EditorSettings,
    run: Run,
  ): Promise<EditorReport> {
    const attempts = this.#options.attempts ?? 5;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      let result: EditorReport | 'conflict';
      const once = () => this.#attempt(adapter, file, names, request, attempt, settings, run);
      try {
        // A dry run only reads (the Editors view, `sync --dry-run`): no lock to wait for or leave behind.
        result = request.dryRun
          ? await once()
          : await withLock(this.#lockFile(adapter.id, file), once, {
              timeoutMs: this.#options.lockTimeoutMs ?? 10_000,
            });
      } catch (err) {
        return this.#report(adapter, file, 'failed', names, describeError(err));
      }
      if (result !== 'conflict') return result;
      await new Promise((r) => setTimeout(r, 10 + Math.random() * 40 * attempt));
    }
    return this.#report(
      adapter,
      file,
      'failed',
      names,
      `the file kept changing while Switchboard was writing it (${attempts} tries); nothing was overwritten — try again`,
    );
  }

  async #attempt(
    adapter: EditorAdapter,
    file: string,
    names: string[],
    request: SyncRequest,
    attempt: number,
    settings: EditorSettings,
    run: Run,
  ): Promise<EditorReport | 'conflict'> {
    const read = readEditorFile(file);
    if (read.kind === 'problem') return this.#report(adapter, file, 'failed', names, read.problem);
    // Whose each entry is, as recorded now (under the file's lock: another sync may just have written).
    const ownership = this.ownership(adapter.id, request.dryRun ? settings : this.#settings()(adapter.id));
    let token: string | undefined;
    const tokenOf = () =>
      (token ??= request.dryRun ? this.#existingToken(adapter.id) : this.#options.tokens.ensure(adapter.id));
    let helperUsed = false;
    const headersHelper = () => {
      helperUsed = true;
      return headersHelperCommand(this.home, adapter.id, this.#platform);
    };
    const desired = new Map<string, Record<string, unknown>>();
    for (const server of names) {
      const aggregate = settings.discovery === true && server === AGGREGATE_ENTRY;
      desired.set(
        server,
        adapter.managedEntry({
          editor: adapter.id,
          server,
          aggregate,
          url: aggregate ? aggregateUrl(this.#port) : bridgeUrl(this.#port, server),
          token: tokenOf,
          tokenFile: editorTokenFile(this.#options.tokens.dir, adapter.id),
          headersHelper,
          relay: this.#relay,
        }),
      );
    }
    const adopt = request.adopt?.get(adapter.id);
    const give = request.giveBack;
    const plan = adapter.format.plan({
      text: read.text,
      serversKey: adapter.serversKey,
      desired,
      isManaged: (name, entry) => ownsEntry(adapter, ownership, name, entry),
      layout: settings.layout,
      file,
      ...(adopt ? { adopt } : {}),
      ...(give ? { restore: give.batches } : {}),
    });
    if (!plan.ok) {
      const report = this.#report(
        adapter,
        file,
        'failed',
        names,
        `${file}: ${plan.problem} — left unchanged`,
      );
      // The user's file does not parse (or its servers key is not an object): not Switchboard failing.
      if (plan.problem.startsWith('internal error')) return report;
      return {
        ...report,
        reason: 'unparseable',
        ...(plan.line !== undefined && plan.column !== undefined
          ? { location: { line: plan.line, column: plan.column } }
          : {}),
      };
    }
    // Entries naming the header helper need it in place, also when the file is already up to date.
    if (helperUsed && !request.dryRun) ensureHeadersHelper(this.home, this.#platform);
    // Unsync --restore-secrets after an unsync that held them back: each placeholder gets its value.
    const filled = [...(give?.fill.keys() ?? [])].filter((name) =>
      (plan.text ?? '').includes(heldBackPlaceholder(name, adapter.id)),
    );
    const next =
      give && filled.length && plan.text !== undefined
        ? fillPlaceholders(plan.text, adapter.id, give.fill)
        : plan.text;
    const changed = next !== read.text;
    const secretsOf = (entries: readonly string[]) =>
      [
        ...new Set(
          (give?.records ?? [])
            .flatMap((r) => r.entries)
            .filter((e) => entries.includes(e.entry))
            .flatMap((e) => e.secrets.map((x) => x.name)),
        ),
      ].sort();
    const given = secretsOf(plan.restored);
    // What the file has of Switchboard's once this sync is done: every desired entry but those whose
    // name a user's entry has. Recorded also when the file was already right (a record-less home).
    const own = [...desired.keys()].filter((name) => !plan.clashes.includes(name)).sort();
    const summary = {
      // the servers this editor gets: not those a user's own entry of the same name keeps out
      servers: own,
      added: plan.added,
      updated: plan.updated,
      removed: plan.removed,
      clashes: plan.clashes,
      adopted: plan.adopted,
      restored: [...plan.restored].sort(),
      notRestored: plan.notRestored,
      secretsPutBack: [...new Set([...given.filter((n) => give?.putBack.has(n)), ...filled])].sort(),
      secretsHeldBack: given.filter((n) => !give?.putBack.has(n)),
    };
    const clashNote = plan.clashes.length
      ? `your own entr${plan.clashes.length === 1 ? 'y' : 'ies'} named ${plan.clashes.map((c) => `"${c}"`).join(', ')} kept; Switchboard's server${plan.clashes.length === 1 ? '' : 's'} of that name ${plan.clashes.length === 1 ? 'is' : 'are'} not added (rename one, or import it)`
      : undefined;
    const notRestoredNote = plan.notRestored.length
      ? plan.notRestored
          .map(
            (n) =>
              `your entry "${n.entry}" was not given back: ${n.why} (the backups have it: switchboard backups)`,
          )
          .join('; ')
      : undefined;
    const missing = give?.missing.length
      ? `not in the keychain any more, so their places in the file still say so: ${give.missing.join(', ')} ` +
        `(store each again with: switchboard secret set NAME, then: switchboard unsync --editor ${adapter.id} --restore-secrets)`
      : undefined;
    const note = [clashNote, notRestoredNote, missing].filter(Boolean).join('; ') || undefined;
    // What unsync learnt goes into state.json with the rest of the run: the records it used up, and
    // which secrets now stand as placeholders in the file.
    const afterUnsync = (text: string | undefined) => {
      if (!give || request.dryRun) return;
      const held = give.heldNames.filter((n) => (text ?? '').includes(heldBackPlaceholder(n, adapter.id)));
      run.changes.push([
        adapter.id,
        (s) => {
          if (give.otherRecords.length) s.imported = give.otherRecords;
          else delete s.imported;
          if (held.length) s.heldBack = { file, names: held };
          else delete s.heldBack;
        },
      ]);
    };
    // Saved at once, under the file's lock, so that the next sync of this file knows its entries.
    const recordOwn = () => {
      if (!request.dryRun)
        this.#options.state.updateEditorSettings(adapter.id, (s) => void (s.entries = { file, names: own }));
    };
    if (!changed) {
      afterUnsync(read.text);
      recordOwn();
      const unchanged = { ...this.#report(adapter, file, 'unchanged', names, note), ...summary };
      // A file that already holds the token (synced by an older Switchboard, or loosened by hand).
      const issued = token;
      if (!request.dryRun && adapter.tokenInFile && issued !== undefined && read.bytes !== undefined)
        unchanged.madePrivate = makeOwnerOnly(read.target, () => (read.text ?? '').includes(issued));
      return unchanged;
    }
    if (request.dryRun) {
      // Loaded by the first dry run (a preview, the Editors view): a serve that only syncs never needs it.
      const { createTwoFilesPatch } = await import('diff');
      const diff = createTwoFilesPatch(
        file,
        file,
        read.text ?? '',
        next ?? '',
        read.text === undefined ? '(no file)' : 'current',
        next === undefined ? '(file removed)' : give ? 'after unsync' : 'after sync',
      );
      // The diff is for people (`sync --dry-run`, the Editors view): the editor's bridge token is
      // shown by name, and any other token or literal secret in the file's text is hidden.
      const token = this.#existingToken(adapter.id);
      const shown = withoutSecrets(diff.split(token).join(`<${adapter.id} token>`));
      return { ...this.#report(adapter, file, 'dry-run', names, note), ...summary, diff: shown };
    }
    // The relay, the header helper and file references read the editor's token when the editor
    // connects: it must exist before the entry does (and so must the helper).
    if (names.length) tokenOf();
    const readOnly = readOnlyProblem(read.target, read.bytes !== undefined);
    if (readOnly) return { ...this.#report(adapter, file, 'failed', names, readOnly), ...summary };

    const backups: string[] = [];
    if (!run.hasOriginal(adapter.id, read.target)) {
      const spans =
        read.text === undefined ? [] : (request.secretsInFile?.get(adapter.id)?.(read.text) ?? []);
      backups.push(
        this.backups.create({
          editor: adapter.id,
          file,
          target: read.target,
          text: read.text,
          reason: 'original',
          secrets: spans,
        }).id,
      );
    }
    if (plan.adopted.length && read.text !== undefined && backups.length === 0) {
      const spans = request.secretsInFile?.get(adapter.id)?.(read.text) ?? [];
      backups.push(
        this.backups.create({
          editor: adapter.id,
          file,
          target: read.target,
          text: read.text,
          reason: 'import',
          secrets: spans,
        }).id,
      );
    }

    // A file that holds this editor's bridge token is readable by its owner only. One whose entries
    // get the token another way (a relay, a header helper, a reference to the token file) keeps its
    // mode: it is no credential. A new file is owner-only anyway.
    let madePrivate = false;
    let mode: number | undefined = read.bytes === undefined ? 0o600 : undefined;
    if (
      mode === undefined &&
      adapter.tokenInFile &&
      token !== undefined &&
      othersHaveAccess(read.target) &&
      (next ?? '').includes(token)
    ) {
      mode = ownerOnly(statSync(read.target).mode & 0o7777);
      madePrivate = true;
    }
    const unchangedSince = (target: string) => {
      this.#options.beforeRename?.(adapter.id, target, attempt);
      const now = readBytes(target);
      const same =
        now === undefined ? read.bytes === undefined : read.bytes !== undefined && now.equals(read.bytes);
      if (!same) throw new Conflict();
    };
    try {
      if (next === undefined) {
        unchangedSince(read.target);
        unlinkSync(read.target);
        this.written.set(file, sha256(''));
      } else {
        writeFileAtomic(file, next, {
          beforeRename: unchangedSince,
          ...(mode === undefined ? {} : { mode }),
        });
        this.written.set(file, sha256(next));
      }
    } catch (err) {
      if (err instanceof Conflict) return 'conflict';
      return {
        ...this.#report(adapter, file, 'failed', names, `could not write ${file}: ${describeError(err)}`),
        ...summary,
        backups,
      };
    }
    // An editor that reads its file only at start: one started before now has not read this.
    if (adapter.restartNotice) {
      const writtenAt = Date.now();
      run.changes.push([adapter.id, (s) => void (s.writtenAt = writtenAt)]);
    }
    run.changes.push([adapter.id, (s) => this.#applyLayout(s, adapter.id, plan.layout, names.length > 0)]);
    recordOwn();
    if (plan.imported.length) {
      const record = importRecord(
        file,
        plan.imported,
        request.secretsInFile?.get(adapter.id),
        adapter.format,
        adapter.serversKey,
      );
      run.changes.push([adapter.id, (s) => void (s.imported = [...(s.imported ?? []), record])]);
    }
    afterUnsync(next);
    const report: EditorReport = {
      ...this.#report(adapter, file, 'written', names, note),
      ...summary,
      backups,
      madePrivate,
    };
    // Once: when the file gets its first entries (not on every later change).
    if (adapter.afterWriteNotice && plan.added.length && plan.added.length === names.length)
      report.afterWrite = adapter.afterWriteNotice;
    if (adapter.restartNotice) {
      report.notice = adapter.restartNotice;
      report.running = await (this.#options.isRunning ?? ((a) => isEditorRunning(a, this.#platform)))(
        adapter,
      );
    }
    return report;
  }

  /** Where the lock of one editor's file lives (per file: an editor's path can change with the env). */
  #lockFile(editor: EditorId, file: string): string {
    return join(this.home.run, 'locks', `editor-${editor}-${sha256(file).slice(0, 12)}.lock`);
  }

  /** The editor's bridge token if it has one; a dry run never issues one. */
  #existingToken(editor: EditorId): string {
    return this.#options.tokens.get(editor) ?? NEW_TOKEN;
  }

  #applyLayout(
    s: EditorSettings,
    editor: EditorId,
    layout: EditorFileLayout | undefined,
    hasEntries: boolean,
  ): void {
    const ports = new Set(s.layout?.ports ?? []);
    if (hasEntries) ports.add(this.#port);
    const keep = [...ports].slice(-5);
    if (layout) {
      const next: EditorFileLayout = { ...layout };
      if (keep.length) next.ports = keep;
      else delete next.ports;
      s.layout = stripUndefined(next);
    } else if (keep.length) {
      s.layout = { file: this.fileOf(editor), ports: keep };
    } else {
      delete s.layout;
    }
  }

  /** Every editor's settings from one read of state.json. */
  #settings(): (editor: EditorId) => EditorSettings {
    const editors = this.#options.state.editors();
    return (editor) => editors[editor] ?? EditorSettingsSchema.parse({});
  }

  #newRun(): Run {
    let originals: Set<string> | undefined;
    return {
      changes: [],
      hasOriginal: (editor, target) => {
        originals ??= new Set(
          this.backups
            .list()
            .filter((b) => b.reason === 'original')
            .map((b) => `${b.editor}\0${b.target}`),
        );
        const key = `${editor}\0${target}`;
        if (originals.has(key)) return true;
        originals.add(key); // the caller takes it now
        return false;
      },
    };
  }

  /** What a sync learnt about the files (layouts, on/off) goes into state.json in one write. */
  #saveRun(run: Run): void {
    if (!run.changes.length) return;
    this.#options.state.updateEditors((editor) => {
      for (const [id, change] of run.changes) change(editor(id));
    });
  }

  #report(
    adapter: EditorAdapter,
    file: string,
    status: EditorStatus,
    servers: string[],
    problem?: string,
  ): EditorReport {
    return {
      editor: adapter.id,
      label: adapter.label,
      file,
      status,
      servers,
      added: [],
      updated: [],
      removed: [],
      clashes: [],
      adopted: [],
      problem,
      backups: [],
      restored: [],
      notRestored: [],
      secretsPutBack: [],
      secretsHeldBack: [],
      madePrivate: false,
    };
  }
}

/**
 * The names of the entries Switchboard wrote into `file` (ownership.ts). A file with no record but a
 * layout with ports was written by a Switchboard from before the record (undefined: the old rule,
 * until this sync records them); a file with neither has no entry of Switchboard's.
 */
function writtenEntries(settings: EditorSettings, file: string): ReadonlySet<string> | undefined {
  if (settings.entries?.file === file) return new Set(settings.entries.names);
  if (settings.layout?.file === file && settings.layout.ports?.length) return undefined;
  return new Set();
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function readBytes(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Reads an editor file through symlinks. Refuses what cannot be edited without losing bytes: bytes
 * that are not UTF-8 (decoding would replace them), a symlink to nowhere (writing would replace the
 * link by a file), something that is not a file.
 */
export function readEditorFile(file: string): ReadResult {
  let target = file;
  try {
    const link = lstatSync(file);
    if (link.isSymbolicLink()) {
      try {
        target = realpathSync(file);
      } catch {
        return {
          kind: 'problem',
          problem: `${file} is a symbolic link to a file that does not exist; left unchanged`,
        };
      }
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return { kind: 'ok', text: undefined, bytes: undefined, target: file };
    return { kind: 'problem', problem: `cannot read ${file}: ${describeError(err)}` };
  }
  let bytes: Buffer;
  try {
    if (!statSync(target).isFile())
      return { kind: 'problem', problem: `${file} is not a regular file; left unchanged` };
    bytes = readFileSync(target);
  } catch (err) {
    return { kind: 'problem', problem: `cannot read ${file}: ${describeError(err)}` };
  }
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) {
    return { kind: 'problem', problem: `${file} is not UTF-8 text; left unchanged` };
  }
  return { kind: 'ok', text, bytes, target };
}

/** A file without write permission is the user's way of saying "do not change this": never forced. */
function readOnlyProblem(target: string, exists: boolean): string | undefined {
  if (!exists) return undefined;
  try {
    const mode = statSync(target).mode;
    // Checked on the mode bits too: root may write anything, and must still respect a read-only file.
    if ((mode & 0o222) === 0)
      return `${target} is read-only; left unchanged (make it writable to let Switchboard sync it)`;
    accessSync(target, constants.W_OK);
  } catch {
    return `${target} is not writable; left unchanged`;
  }
  return undefined;
}
