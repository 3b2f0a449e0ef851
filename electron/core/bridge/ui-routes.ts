import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_BRIDGE_PORT } from '../../../shared/bridge.ts';
import { DEFAULT_IDLE_TIMEOUT_S } from '../../../shared/schema/servers.ts';
import { displayText } from '../../../shared/display-text.ts';
import { EditorIdSchema, type EditorId } from '../../../shared/editors.ts';
import { validateServerConfig } from '../../../shared/server-validation.ts';
import { clientMetadataUrlProblem } from '../../../shared/sign-in.ts';
import {
  AddServerRequestSchema,
  type AddServersResult,
  EditorExcludeRequestSchema,
  EditorRestoreRequestSchema,
  EditorsSyncRequestSchema,
  EditorUnsyncRequestSchema,
  EnabledRequestSchema,
  HIDDEN_SECRET,
  SaveServerRequestSchema,
  SecretMoveRequestSchema,
  SecretValueRequestSchema,
  SettingsPatchSchema,
  UiRoutes,
  type ApprovalView,
  type EditorRestartResult,
  type EditorsResponse,
  type EditorsSyncResult,
  type EditorUnsyncResult,
  type ServerConfigView,
  type Settings,
  type ToolInfo,
  type ToolsResponse,
} from '../../../shared/ui-api.ts';
import {
  BackupRestoreRequestSchema,
  EditorCliRoutes,
  EditorsUnsyncRequestSchema,
  ImportRequestSchema,
  type BackupRestoreResult,
  type EditorsUnsyncResult,
  type ImportDone,
} from '../../../shared/editor-report.ts';
import { StaleImportListing } from '../editors/import.ts';
import { fileReport } from '../editors/report.ts';
import { compileToolFilter } from '../../../shared/tool-filter.ts';
import { toolTokens } from '../tools/token-cost.ts';
import { EDITORS } from '../editors/registry.ts';
import { syncResult, unsyncResult, type EditorSyncService } from '../editors/service.ts';
import { addServers, NewServersError } from '../config/add-servers.ts';
import { readServerValue, removeServer, setServer, setServerValue } from '../config/edit.ts';
import type { Core } from '../core.ts';
import { describeError, UserError } from '../errors.ts';
import { findLiteralSecrets, type SecretFinding as LiteralSecret } from '../secrets/detect.ts';
import type { Keychain } from '../secrets/keychain.ts';
import { moveSecret } from '../config/move-secret.ts';
import { describeLaunch } from '../trust/command-line.ts';
import { decodePathSegment, HttpError, readJsonAs, sendJson } from './http-util.ts';
import type { UiSessions } from './ui-auth.ts';

export interface UiRoutesOptions {
  core: Core;
  keychain: Keychain;
  sessions: UiSessions;
  /** the port the bridge is bound to */
  port: () => number;
  /** editor sync, once `serve` has started it (undefined: not part of this process) */
  editors: () => EditorSyncService | undefined;
}

/** How the request was authenticated (http-server.ts decides before any route runs). */
export type ApiCaller = 'control-token' | 'browser-session';

/**
 * The control API routes the UI needs beyond status/actions/logs (control-api.ts): one server's
 * config read and written as a comment-preserving edit of servers.json, add/remove, enable/disable,
 * tools, approvals with what they would allow, secrets (names only; values are write-only), secret
 * move, settings, and a fresh browser sign-in link. `handle` returns false for paths it does not own.
 */
export function createUiRoutes(options: UiRoutesOptions) {
  const { core, keychain, sessions } = options;
  const file = core.home.serversFile;

  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    caller: ApiCaller,
  ): Promise<boolean> {
    const path = url.pathname;
    const method = req.method ?? 'GET';
    try {
      if (path === UiRoutes.servers && method === 'POST') return done(res, await addServer(req));
      if (path === UiRoutes.approvals && method === 'GET') return done(res, { approvals: approvals() });
      if (path === UiRoutes.toolChanges && method === 'GET')
        return done(res, { changes: core.toolChanges() });
      if (path === UiRoutes.secrets && method === 'GET') return done(res, await core.secrets());
      if (path === UiRoutes.secretMove && method === 'POST') return done(res, await move(req));
      if (path === UiRoutes.settings && method === 'GET') return done(res, settings());
      if (path === UiRoutes.settings && method === 'PUT') return done(res, await saveSettings(req));
      if (path === UiRoutes.editors && method === 'GET') return done(res, await editors());
      if (path === UiRoutes.editorsSync && method === 'POST') return done(res, await syncEditors(req));
      if (
        method === 'POST' &&
        (path === EditorCliRoutes.unsync ||
          path === EditorCliRoutes.import ||
          path === EditorCliRoutes.restore)
      ) {
        // The CLI's editor commands while this Switchboard runs (they import and approve, or undo
        // what was written): the control token's, not a browser session's.
        if (caller !== 'control-token')
          throw new HttpError(403, `${path} is for the switchboard command line (the control token)`);
        if (path === EditorCliRoutes.unsync) return done(res, await unsyncForCli(req));
        if (path === EditorCliRoutes.import) return done(res, await importForCli(req));
        return done(res, await restoreForCli(req));
      }
      const restore = /^\/api\/editors\/([^/]+)\/restore$/.exec(path);
      if (restore && method === 'POST')
        return done(res, await restoreBackup(req, decodePathSegment(restore[1] ?? '')));
      const unsync = /^\/api\/editors\/([^/]+)\/unsync$/.exec(path);
      if (unsync && method === 'POST')
        return done(res, await unsyncEditor(req, decodePathSegment(unsync[1] ?? '')));
      const exclude = /^\/api\/editors\/([^/]+)\/exclude$/.exec(path);
      if (exclude && method === 'POST')
        return done(res, await excludeServer(req, decodePathSegment(exclude[1] ?? '')));
      const restart = /^\/api\/editors\/([^/]+)\/restart$/.exec(path);
      if (restart && method === 'POST')
        return done(res, await restartEditor(decodePathSegment(restart[1] ?? '')));
      if (path === UiRoutes.loginLink && method === 'POST') {
        // A browser session must not mint sign-in links for other browsers.
        if (caller !== 'control-token')
          throw new HttpError(403, 'only the control token can create sign-in links');
        return done(res, sessions.issueLoginLink());
      }
      if (path === UiRoutes.session && method === 'DELETE')
        return done(res, { ok: true, signedOut: sessions.revoke(req.headers.authorization) });
      if (path === UiRoutes.sessions && method === 'GET')
        return done(res, sessions.list(req.headers.authorization));
      if (path === UiRoutes.sessions && method === 'DELETE')
        return done(res, { ok: true, signedOut: sessions.revokeAll() });

      const secret = /^\/api\/secrets\/([^/]+)$/.exec(path);
      if (secret && secret[1] !== 'move') {
        const name = decodePathSegment(secret[1] ?? '');
        if (method === 'PUT') return done(res, await setSecret(req, name));
        if (method === 'DELETE') {
          if (!(await keychain.delete(name)))
            throw new HttpError(404, `no secret named "${name}" in the keychain`);
          return done(res, { ok: true });
        }
        return false;
      }

      const server = /^\/api\/servers\/([^/]+)(?:\/(config|enabled|tools|activity))?$/.exec(path);
      if (!server) return false;
      const name = decodePathSegment(server[1] ?? '');
      switch (`${method} ${server[2] ?? ''}`) {
        case 'DELETE ':
          return done(res, remove(name));
        case 'GET config':
          return done(res, configView(name));
        case 'PUT config':
          return done(res, await save(req, name));
        case 'POST enabled':
          return done(res, await setEnabled(req, name));
        case 'GET tools':
          return done(res, tools(name));
        case 'GET activity':
          if (!core.entries().has(name)) throw new HttpError(404, `no server named "${name}" in ${file}`);
          return done(res, { activity: core.activity.of(name) });
        default:
          return false;
      }
    } catch (err) {
      if (err instanceof ValidationError) {
        sendJson(res, 400, { error: err.message, issues: err.issues });
        return true;
      }
      if (err instanceof UserError) {
        sendJson(res, 400, { error: describeError(err) });
        return true;
      }
      throw err;
    }
  }

  function done(res: ServerResponse, body: unknown): true {
    sendJson(res, 200, body);
    return true;
  }

  function requireExisting(name: string): unknown {
    const config = readServerValue(file, name);
    if (config === undefined) throw new HttpError(404, `no server named "${name}" in ${file}`);
    return config;
  }

  /** Validates with the core's own schema; a 400 carries every issue at its field. */
  function checkConfig(name: string, config: unknown): void {
    const result = validateServerConfig(config);
    if (result.ok) return;
    const first = result.issues[0];
    const where = first && first.path.length ? `, field "${first.path.join('.')}"` : '';
    throw new ValidationError(
      `server "${name}"${where}: ${first?.message ?? 'invalid config'}`,
      result.issues,
    );
  }

  function applied(): void {
    // The file watcher would pick the edit up too; reloading now makes the answer reflect it.
    if (core.running) core.reload();
    else core.load();
  }

  function configView(name: string): ServerConfigView {
    const config = requireExisting(name);
    const literalSecrets = literalSecretsOf(config);
    return {
      name,
      config: withSecretsHidden(config, literalSecrets),
      // where and why, as the shared schema says; offsets into a secret stay on this side
      literalSecrets: literalSecrets.map(({ field, key, reason }) => ({ field, key, reason })),
      file,
    };
  }

  async function save(req: IncomingMessage, name: string): Promise<{ ok: true }> {
    const { config: sent } = await readJsonAs(req, SaveServerRequestSchema);
    const current = requireExisting(name);
    const config = withSecretsRestored(sent, current);
    checkConfig(name, config);
    setServer(file, name, config);
    core.noteSource(name, 'ui');
    applied();
    return { ok: true };
  }

  /**
   * Adds one server (the form) or several (pasted JSON) as `switchboard add` does (addServers): all
   * or none, each literal secret moved to the keychain first, the answer saying which moved where.
   */
  async function addServer(req: IncomingMessage): Promise<AddServersResult> {
    const request = await readJsonAs(req, AddServerRequestSchema);
    const batch = 'servers' in request;
    const servers = batch ? request.servers : [request];
    let added;
    try {
      added = await addServers({ serversFile: file, keychain, servers });
    } catch (err) {
      if (!(err instanceof NewServersError)) throw err;
      // The form puts a name issue at its Name field; a batch's issues start with the server's name.
      const issues = err.issues.map(({ server, about, path, message }) => ({
        path: batch ? [server, ...path] : about === 'name' ? ['name'] : path,
        message,
      }));
      throw new ValidationError(err.display, issues);
    }
    for (const server of added) core.noteSource(server.name, 'ui');
    applied();
    return {
      ok: true,
      added: added.map(({ name, secrets }) => ({
        name,
        secrets: secrets.map((secret) => ({ key: secret.key, name: secret.name })),
      })),
    };
  }

  function remove(name: string): { ok: true } {
    requireExisting(name);
    // Like `switchboard remove`: its approval goes too (docs/decisions.md), so re-adding it asks again.
    removeServer(file, name);
    core.forgetSource(name);
    applied();
    return { ok: true };
  }

  async function setEnabled(req: IncomingMessage, name: string): Promise<{ ok: true }> {
    const { enabled } = await readJsonAs(req, EnabledRequestSchema);
    requireExisting(name);
    // `enabled` defaults to true: enabling removes the field rather than writing the default.
    setServerValue(file, name, ['enabled'], enabled ? undefined : false);
    applied();
    return { ok: true };
  }

  /** The server's tools: live while it runs, else as its last run listed them (idle, starting). */
  function tools(name: string): ToolsResponse {
    if (!core.entries().has(name)) throw new HttpError(404, `no server named "${name}" in ${file}`);
    const status = core.status().servers.find((s) => s.name === name);
    const running = status?.state === 'running';
    const runner = running ? core.supervisor()?.runner(name) : undefined;
    const live = runner?.toolsKnown ? runner.tools : undefined;
    const remembered =
      live === undefined && (status?.state === 'idle' || status?.state === 'starting' || running)
        ? core.lists(name)?.tools
        : undefined;
    const list = live ?? remembered ?? [];
    const held = core.toolGate(name)?.held;
    const filter = core.entries().get(name)?.config.tools;
    const offered = compileToolFilter(filter);
    return {
      running,
      remembered: remembered !== undefined,
      tools: list.map((tool) => ({
        ...toolInfo(tool, held?.get(tool.name)),
        ...(offered(tool.name) ? {} : { off: true }),
        tokens: toolTokens(tool),
      })),
      filter: filter ?? null,
    };
  }

  /**
   * Every server waiting for a trust decision, at once: a package run whose package is not resolved
   * yet is listed as resolving (nothing it shows can be approved) while its registry is asked in the
   * background, and an `approval` event tells the UI to ask again once it is in.
   */
  function approvals(): ApprovalView[] {
    const waiting = core
      .status()
      .servers.filter((s) => s.state === 'pending-approval' || s.state === 'denied');
    return waiting
      .map((status) => approvalView(status.name, status.state === 'denied' ? 'denied' : 'pending-approval'))
      .filter((v) => v !== undefined);
  }

  function approvalView(name: string, state: ApprovalView['state']): ApprovalView | undefined {
    if (!core.entries().get(name)) return undefined;
    // What approving allows now (the command looked up again), and the fingerprint to approve it by.
    const now = core.reviewNow(name);
    const shown = 'preview' in now ? now.preview : undefined;
    const packageError = 'error' in now ? displayText(now.error) : null;
    const entry = core.entries().get(name);
    if (!entry) return undefined;
    const launch = { ...entry.launch, package: undefined };
    const previous = core.state.approval(name);
    const record = launch.transport === 'http' ? launch.headers : launch.env;
    return {
      name,
      state,
      source: shown?.source ?? core.sourceOf(name),
      fingerprint: shown?.fingerprint ?? entry.fingerprint,
      lines: shown?.lines ?? describeLaunch(launch, core.ownFolder(name)),
      references: shown?.references ?? [],
      access: shown?.access ?? core.access(name),
      launch,
      envKeys: Object.keys(record ?? {}).map(displayText),
      package: shown?.package ?? null,
      packageNote: shown?.packageNote ?? null,
      packageError,
      resolving: 'resolving' in now,
      approved: previous
        ? {
            lines: describeLaunch({ ...previous.config, package: undefined }, core.ownFolder(name)),
            approvedAt: previous.approvedAt,
            source: previous.source,
          }
        : null,
    };
  }

  /** Stores a secret, then restarts the servers that use it and want to run, so they pick it up. */
  async function setSecret(req: IncomingMessage, name: string): Promise<{ ok: true; restarted: string[] }> {
    const { value } = await readJsonAs(req, SecretValueRequestSchema);
    await keychain.set(name, value);
    return { ok: true, restarted: await core.restartSecretUsers(name) };
  }

  async function move(req: IncomingMessage): Promise<{ ok: true; name: string }> {
    const { server, key, secretName } = await readJsonAs(req, SecretMoveRequestSchema);
    const name = await moveSecret({
      serversFile: file,
      keychain,
      server,
      key,
      ...(secretName ? { secretName } : {}),
    });
    core.noteSource(server, 'ui');
    applied();
    return { ok: true, name };
  }

  function settings(): Settings {
    return {
      port: options.port(),
      configuredPort: core.state.bridgePort() ?? null,
      defaultPort: DEFAULT_BRIDGE_PORT,
      home: core.home.root,
      serversFile: file,
      platform: process.platform,
      startAtLogin: null,
      idleTimeout: core.idleTimeoutDefault(),
      autoSync: core.state.autoSync(),
      editorSyncNotice: core.state.autoSync() && !core.state.editorSyncNoticeRead(),
      configuredIdleTimeout: core.state.settings().idleTimeout ?? null,
      defaultIdleTimeout: DEFAULT_IDLE_TIMEOUT_S,
      clientMetadataUrl: core.state.clientMetadataUrl() ?? null,
      updateChecks: core.state.updateChecks(),
    };
  }

  async function saveSettings(req: IncomingMessage): Promise<Settings> {
    const patch = await readJsonAs(req, SettingsPatchSchema);
    if (patch.clientMetadataUrl) {
      const problem = clientMetadataUrlProblem(patch.clientMetadataUrl);
      if (problem)
        throw new ValidationError(`Client ID Metadata Document URL: ${problem}`, [
          { path: ['clientMetadataUrl'], message: problem },
        ]);
    }
    if (patch.port !== undefined) core.state.setBridgePort(patch.port ?? DEFAULT_BRIDGE_PORT);
    if (patch.idleTimeout !== undefined) core.setIdleTimeoutDefault(patch.idleTimeout ?? undefined);
    if (patch.autoSync !== undefined) {
      const was = core.state.autoSync();
      core.state.setAutoSync(patch.autoSync);
      // Turned back on: the editors catch up now, not at the next change of a server.
      if (patch.autoSync && !was) await options.editors()?.syncNow();
    }
    if (patch.clientMetadataUrl !== undefined)
      core.state.setClientMetadataUrl(patch.clientMetadataUrl || undefined);
    if (patch.editorSyncNoticeRead) core.state.markEditorSyncNoticeRead(Date.now());
    if (patch.updateChecks !== undefined) {
      core.state.setUpdateChecks(patch.updateChecks);
      core.updates.settingsChanged();
    }
    return settings();
  }

  function editorSync(): EditorSyncService {
    const service = options.editors();
    if (!service) throw new HttpError(404, 'editor sync is not running in this Switchboard');
    return service;
  }

  /** Every editor: installed or not, the state of its file, and the diff a sync would make now (dry run). */
  async function editors(): Promise<EditorsResponse> {
    const service = options.editors();
    return service ? { available: true, editors: await service.views() } : { available: false, editors: [] };
  }

  async function syncEditors(req: IncomingMessage): Promise<EditorsSyncResult> {
    const { editor, exclude, include } = await readJsonAs(req, EditorsSyncRequestSchema);
    if ((exclude || include) && !editor)
      throw new HttpError(400, 'exclude and include need the editor they are for');
    const selection = exclude || include ? { exclude: exclude ?? [], include: include ?? [] } : undefined;
    return syncResult(await editorSync().syncNow(editor, selection));
  }

  async function restoreBackup(req: IncomingMessage, editor: string): Promise<{ ok: true }> {
    const id = EditorIdSchema.safeParse(editor);
    if (!id.success) throw new HttpError(404, `no editor named "${editor}"`);
    const { backup } = await readJsonAs(req, EditorRestoreRequestSchema);
    const service = editorSync();
    const meta = service.engine.backups.list().find((b) => b.id === backup);
    if (!meta || meta.editor !== (id.data satisfies EditorId))
      throw new HttpError(404, `no backup "${backup}" of ${EDITORS[id.data].label}`);
    // In the service's queue, as every write of an editor's file here: no drift repair in between.
    await service.restore(id.data, backup, () => keychain);
    return { ok: true };
  }

  /** `switchboard unsync` while this Switchboard runs: one run over the editors asked for (or all). */
  async function unsyncForCli(req: IncomingMessage): Promise<EditorsUnsyncResult> {
    const { editors, restoreSecrets } = await readJsonAs(req, EditorsUnsyncRequestSchema);
    const reports = await editorSync().unsyncEditors(editors, restoreSecrets, () => keychain);
    return { editors: reports.map(fileReport) };
  }

  /** `switchboard import --yes` while this Switchboard runs: exactly what the CLI listed, or nothing. */
  async function importForCli(req: IncomingMessage): Promise<ImportDone> {
    const { from, listing } = await readJsonAs(req, ImportRequestSchema);
    let result;
    try {
      result = await editorSync().importFrom(from, listing, keychain);
    } catch (err) {
      if (err instanceof StaleImportListing) throw new HttpError(409, describeError(err));
      throw err;
    }
    return {
      servers: result.imported,
      secrets: result.secrets,
      editors: result.reports.map(fileReport),
      skipped: result.skipped.map((c) => ({ editor: c.editor, entry: c.entry, problem: c.problem ?? '' })),
    };
  }

  /** `switchboard backups restore ID` while this Switchboard runs. */
  async function restoreForCli(req: IncomingMessage): Promise<BackupRestoreResult> {
    const { backup } = await readJsonAs(req, BackupRestoreRequestSchema);
    const service = editorSync();
    const meta = service.engine.backups.list().find((b) => b.id === backup);
    if (!meta) throw new HttpError(404, `no backup "${backup}" (switchboard backups lists them)`);
    const result = await service.restore(meta.editor, backup, () => keychain);
    return {
      editor: meta.editor,
      file: result.file,
      existed: meta.existed,
      exact: result.exact,
      saved: result.saved ?? null,
    };
  }

  /** Takes Switchboard's entries out of one editor's file and gives back the user's (see EditorSync.unsync). */
  async function unsyncEditor(req: IncomingMessage, editor: string): Promise<EditorUnsyncResult> {
    const id = EditorIdSchema.safeParse(editor);
    if (!id.success) throw new HttpError(404, `no editor named "${editor}"`);
    const { restoreSecrets } = await readJsonAs(req, EditorUnsyncRequestSchema);
    return unsyncResult(await editorSync().unsync(id.data, restoreSecrets, () => keychain));
  }

  /** Keeps a server out of one editor, or gives it back (`sync --editor E --exclude/--include`). */
  async function excludeServer(req: IncomingMessage, editor: string): Promise<EditorsSyncResult> {
    const id = EditorIdSchema.safeParse(editor);
    if (!id.success) throw new HttpError(404, `no editor named "${editor}"`);
    const { server, excluded } = await readJsonAs(req, EditorExcludeRequestSchema);
    // An exclusion left behind by a server since removed may still be taken off.
    const stale = !excluded && core.state.editorSettings(id.data).exclude.includes(server);
    if (!core.entries().has(server) && !stale)
      throw new HttpError(404, `no server named "${server}" in ${file}`);
    return syncResult(await editorSync().setExcluded(id.data, server, excluded));
  }

  /** Quits and reopens Claude Desktop (an editor that reads its file only at start), if it runs. */
  async function restartEditor(editor: string): Promise<EditorRestartResult> {
    const id = EditorIdSchema.safeParse(editor);
    if (!id.success) throw new HttpError(404, `no editor named "${editor}"`);
    if (!EDITORS[id.data].restartNotice)
      throw new HttpError(
        400,
        `${EDITORS[id.data].label} needs no restart: it reads its settings when they change`,
      );
    return editorSync().restart(id.data);
  }

  return { handle };
}

/** A config that fails the schema: 400 with every issue, so the UI can put each at its field. */
class ValidationError extends HttpError {
  readonly issues: { path: (string | number)[]; message: string }[];
  constructor(message: string, issues: { path: (string | number)[]; message: string }[]) {
    super(400, message);
    this.issues = issues;
  }
}

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The entry with every literal secret replaced by HIDDEN_SECRET: the UI never gets the value. */
function withSecretsHidden(config: unknown, findings: LiteralSecret[]): unknown {
  if (!isObject(config) || findings.length === 0) return config;
  const out: JsonObject = { ...config };
  for (const { path } of findings) {
    const [field, key] = path;
    if (field === 'url') out.url = HIDDEN_SECRET;
    else if (field === 'args' && Array.isArray(out.args) && typeof key === 'number') {
      out.args = out.args.map((arg: unknown, i) => (i === key ? HIDDEN_SECRET : arg));
    } else if (typeof field === 'string' && typeof key === 'string') {
      const record = out[field];
      if (isObject(record)) out[field] = { ...record, [key]: HIDDEN_SECRET };
    }
  }
  return out;
}

/** An entry sent back with HIDDEN_SECRET where a literal stood keeps the file's value there. */
function withSecretsRestored(sent: unknown, current: unknown): unknown {
  if (!isObject(sent) || !isObject(current)) return sent;
  const out: JsonObject = { ...sent };
  for (const field of ['env', 'headers'] as const) {
    const record = out[field];
    const was = current[field];
    if (!isObject(record)) continue;
    const restored: JsonObject = { ...record };
    for (const [key, value] of Object.entries(record)) {
      if (value !== HIDDEN_SECRET) continue;
      if (isObject(was) && typeof was[key] === 'string') restored[key] = was[key];
      else
        throw new ValidationError(
          `${field} ${key}: type the value (the hidden one belongs to another entry)`,
          [{ path: [field, key], message: 'type the value again' }],
        );
    }
    out[field] = restored;
  }
  if (out.url === HIDDEN_SECRET) {
    if (typeof current.url !== 'string')
      throw new ValidationError('url: type the address again', [{ path: ['url'], message: 'type it again' }]);
    out.url = current.url;
  }
  if (Array.isArray(out.args)) {
    // Placeholders stand for the file's hidden args in order, even if args were added around them.
    const hidden = literalSecretsOf(current)
      .filter((f) => f.field === 'args')
      .map((f) => (Array.isArray(current.args) ? current.args[Number(f.path[1])] : undefined));
    let next = 0;
    out.args = out.args.map((arg: unknown, i) => {
      if (arg !== HIDDEN_SECRET) return arg;
      const original = hidden[next++];
      if (typeof original !== 'string')
        throw new ValidationError(`args[${i}]: type the value again`, [
          { path: ['args', i], message: 'type the value again' },
        ]);
      return original;
    });
  }
  return out;
}

function literalSecretsOf(config: unknown): LiteralSecret[] {
  if (typeof config !== 'object' || config === null) return [];
  const strings = (value: unknown): Record<string, string> | undefined => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    return Object.fromEntries(
      Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
  };
  const record = config as Record<string, unknown>;
  return findLiteralSecrets({
    env: strings(record.env),
    headers: strings(record.headers),
    // Positions must match the entry's: a non-string arg (a hand-typed number) keeps its place.
    args: Array.isArray(record.args)
      ? record.args.map((a: unknown) => (typeof a === 'string' ? a : ''))
      : undefined,
    url: typeof record.url === 'string' ? record.url : undefined,
  });
}

function toolInfo(tool: Tool, held: 'new' | 'changed' | undefined): ToolInfo {
  const schema = tool.inputSchema as { properties?: Record<string, { type?: unknown }>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const params = Object.entries(schema.properties ?? {}).map(([name, prop]) => ({
    name,
    required: required.has(name),
    ...(typeof prop?.type === 'string' ? { type: prop.type } : {}),
  }));
  params.sort((a, b) => Number(b.required) - Number(a.required));
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    ...(tool.description ? { description: tool.description } : {}),
    params,
    ...(held ? { held } : {}),
  };
}
