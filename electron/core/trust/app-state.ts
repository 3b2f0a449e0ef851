import Conf from 'conf';
import { z } from 'zod';
import { dirname, basename } from 'node:path';
import {
  AppSettingsSchema,
  AppStateSchema,
  EditorSettingsSchema,
  type AppSettings,
  type AppState,
  type Approval,
  type EditorSettings,
  type LaunchConfig,
  type ServerOrigin,
  type SourceRecord,
  type SwitchboardEdit,
} from '../../../shared/schema/state.ts';
import { UserError } from '../errors.ts';

export type TrustDecision = 'approved' | 'denied' | 'pending';

/** A copy of a name-keyed record without one name. */
/** Every server name the state holds something of: an approval, a denial, its source, stopped. */
export function serverNamesIn(state: AppState): Set<string> {
  return new Set([
    ...Object.keys(state.approvals),
    ...Object.keys(state.denials),
    ...Object.keys(state.sources),
    ...Object.keys(state.stopped ?? {}),
  ]);
}

function without<T>(record: Record<string, T>, name: string): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => key !== name));
}

const EditorsSchema = z.record(z.string(), EditorSettingsSchema);
const StoppedSchema = z.record(z.string(), z.number());

/**
 * state.json: approvals (name → fingerprint and the launch config approved), denials and app settings.
 * Owned by the app, never by servers.json, so editing servers.json cannot approve itself.
 */
export class AppStateStore {
  readonly #conf: Conf<AppState>;
  readonly #file: string;

  constructor(stateFile: string) {
    this.#file = stateFile;
    this.#conf = new Conf<AppState>({
      cwd: dirname(stateFile),
      configName: basename(stateFile, '.json'),
      // Approvals are security decisions: written atomically, readable only by this user.
      configFileMode: 0o600,
      clearInvalidConfig: false,
    });
  }

  read(): AppState {
    const parsed = AppStateSchema.safeParse(this.#conf.store);
    if (!parsed.success) {
      throw new UserError(
        `${this.#file} is not valid Switchboard state: ${parsed.error.issues[0]?.message}`,
        {
          hint: 'move it aside to start with no approvals (every server will ask again)',
        },
      );
    }
    return parsed.data;
  }

  decision(name: string, fingerprint: string): TrustDecision {
    const state = this.read();
    if (state.approvals[name]?.fingerprint === fingerprint) return 'approved';
    if (state.denials[name]?.fingerprint === fingerprint) return 'denied';
    return 'pending';
  }

  approval(name: string): Approval | undefined {
    return this.read().approvals[name];
  }

  approve(
    name: string,
    fingerprint: string,
    config: LaunchConfig,
    source: Approval['source'],
    now: number,
  ): void {
    const state = this.read();
    state.approvals[name] = { fingerprint, config, source, approvedAt: now };
    state.denials = without(state.denials, name);
    // The source record stays, bound to this config: a later grant or secret move keeps it.
    this.#write(state);
  }

  deny(name: string, fingerprint: string, now: number): void {
    const state = this.read();
    state.denials[name] = { fingerprint, deniedAt: now };
    state.approvals = without(state.approvals, name);
    this.#write(state);
  }

  /** Records where the config `configHash` of `name` came from (see SourceRecordSchema). */
  noteSource(
    name: string,
    source: SourceRecord['source'],
    configHash: string,
    now: number,
    edits: SwitchboardEdit[] = [],
  ): void {
    const state = this.read();
    state.sources[name] = { source, config: configHash, at: now, ...(edits.length ? { edits } : {}) };
    this.#write(state);
  }

  /** Where `name`'s config came from and Switchboard's edits since, if it is still the config recorded. */
  originOf(name: string, configHash: string): ServerOrigin | undefined {
    const record = this.read().sources[name];
    return record?.config === configHash ? { source: record.source, edits: record.edits ?? [] } : undefined;
  }

  /**
   * Forgets the trust decisions of servers no longer configured, so re-adding one asks again (even
   * with the same config). Returns the names forgotten; writes only when there are any.
   */
  forgetAllExcept(configured: ReadonlySet<string>): string[] {
    const state = this.read();
    const gone = [...serverNamesIn(state)].filter((name) => !configured.has(name));
    if (gone.length === 0) return [];
    for (const name of gone) {
      state.approvals = without(state.approvals, name);
      state.denials = without(state.denials, name);
      state.sources = without(state.sources, name);
      if (state.stopped) state.stopped = without(state.stopped, name);
    }
    if (state.stopped && Object.keys(state.stopped).length === 0) delete state.stopped;
    this.#write(state);
    return gone;
  }

  /** The servers the person stopped, which stay stopped until they start them. */
  stopped(): ReadonlySet<string> {
    const parsed = StoppedSchema.safeParse((this.#conf.store as { stopped?: unknown }).stopped ?? {});
    return new Set(Object.keys(parsed.success ? parsed.data : (this.read().stopped ?? {})));
  }

  /** Records that the person stopped the server (`at`), or started it again (undefined). */
  setStopped(name: string, at: number | undefined): void {
    const state = this.read();
    const stopped = without(state.stopped ?? {}, name);
    if (at !== undefined) stopped[name] = at;
    if (at === undefined && !state.stopped?.[name]) return;
    if (Object.keys(stopped).length) state.stopped = stopped;
    else delete state.stopped;
    this.#write(state);
  }

  /** Records the hash of what was pinned for the server's approval (trust/tool-pins.ts). */
  setPinsHash(name: string, pinsHash: string): void {
    const state = this.read();
    const approval = state.approvals[name];
    if (!approval || approval.pinsHash === pinsHash) return;
    approval.pinsHash = pinsHash;
    this.#write(state);
  }

  /** The settings a person changed in Settings (each absent one has its built-in default). */
  settings(): AppSettings {
    const parsed = AppSettingsSchema.safeParse((this.#conf.store as { settings?: unknown }).settings ?? {});
    return parsed.success ? parsed.data : this.read().settings;
  }

  /** Sets the idle timeout of servers that set none (seconds; undefined: the built-in default). */
  setIdleTimeout(seconds: number | undefined): void {
    const state = this.read();
    const settings: AppSettings = { ...state.settings };
    delete settings.idleTimeout;
    if (seconds !== undefined) settings.idleTimeout = seconds;
    state.settings = settings;
    this.#write(state);
  }

  /** Whether editors are synced automatically (on by default; the person can turn it off globally). */
  autoSync(): boolean {
    return this.settings().autoSync !== false;
  }

  setAutoSync(on: boolean): void {
    const state = this.read();
    const settings: AppSettings = { ...state.settings };
    delete settings.autoSync;
    if (!on) settings.autoSync = false;
    state.settings = settings;
    this.#write(state);
  }

  /** Whether approved packages are checked for newer releases once a day (on by default). */
  updateChecks(): boolean {
    return this.settings().updateChecks !== false;
  }

  setUpdateChecks(on: boolean): void {
    const state = this.read();
    const settings: AppSettings = { ...state.settings };
    delete settings.updateChecks;
    if (!on) settings.updateChecks = false;
    state.settings = settings;
    this.#write(state);
  }

  /**
   * Whether the person has read the first-run notice of automatic editor sync (which editors it
   * writes, and where to turn it off); until then the UI shows it.
   */
  editorSyncNoticeRead(): boolean {
    return this.read().notices?.editorSync !== undefined;
  }

  markEditorSyncNoticeRead(at: number): void {
    const state = this.read();
    if (state.notices?.editorSync !== undefined) return;
    state.notices = { ...state.notices, editorSync: at };
    this.#write(state);
  }

  bridgePort(): number | undefined {
    return this.read().bridge?.port;
  }

  setBridgePort(port: number): void {
    const state = this.read();
    state.bridge = { port };
    this.#write(state);
  }

  /** Switchboard's Client ID Metadata Document URL for OAuth sign-ins (undefined: none; register instead). */
  clientMetadataUrl(): string | undefined {
    return this.read().signIn?.clientMetadataUrl;
  }

  setClientMetadataUrl(url: string | undefined): void {
    const state = this.read();
    state.signIn = url ? { ...state.signIn, clientMetadataUrl: url } : undefined;
    this.#write(state);
  }

  /** The MCP Registry address chosen in Settings; undefined: the official registry. */
  registryUrl(): string | undefined {
    return this.read().catalog?.registryUrl;
  }

  setRegistryUrl(url: string | undefined): void {
    const state = this.read();
    state.catalog = url === undefined ? undefined : { registryUrl: url };
    this.#write(state);
  }

  /**
   * Every editor's sync settings, validated on their own (quicker than the whole state: editor sync
   * reads them on every sync).
   */
  editors(): Record<string, EditorSettings> {
    const parsed = EditorsSchema.safeParse((this.#conf.store as { editors?: unknown }).editors ?? {});
    return parsed.success ? parsed.data : this.read().editors;
  }

  /** An editor's sync settings (defaults when it has none). */
  editorSettings(editor: string): EditorSettings {
    return this.read().editors[editor] ?? EditorSettingsSchema.parse({});
  }

  /** Changes an editor's sync settings; writes only if something changed. */
  updateEditorSettings(editor: string, update: (settings: EditorSettings) => void): EditorSettings {
    const state = this.read();
    const before = state.editors[editor] ?? EditorSettingsSchema.parse({});
    const after: EditorSettings = structuredClone(before);
    update(after);
    if (JSON.stringify(after) !== JSON.stringify(before)) {
      state.editors[editor] = after;
      this.#write(state);
    }
    return after;
  }

  /** Changes several editors' sync settings with one read and (if anything changed) one write. */
  updateEditors(update: (editor: (id: string) => EditorSettings) => void): void {
    const state = this.read();
    const before = JSON.stringify(state.editors);
    update((id) => (state.editors[id] ??= EditorSettingsSchema.parse({})));
    if (JSON.stringify(state.editors) !== before) this.#write(state);
  }

  #write(state: AppState): void {
    this.#conf.store = state;
  }
}
