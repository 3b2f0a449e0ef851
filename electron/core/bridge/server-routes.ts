import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage } from 'node:http';
import { validateServerConfig } from '../../../shared/server-validation.ts';
import type { ServerSource, SwitchboardEdit } from '../../../shared/schema/state.ts';
import type { StatusReport } from '../../../shared/status.ts';
import { compileToolFilter } from '../../../shared/tool-filter.ts';
import {
  AddServerRequestSchema,
  type AddServersResult,
  EnabledRequestSchema,
  SandboxGrantRequestSchema,
  HIDDEN_SECRET,
  SaveServerRequestSchema,
  UiRoutes,
  type ServerConfigView,
  type ToolInfo,
  type ToolsResponse,
} from '../../../shared/ui-api.ts';
import type { CallActivity } from '../activity/call-activity.ts';
import { addServers, NewServersError } from '../config/add-servers.ts';
import { readServerValue, removeServer, setServer, setServerValue } from '../config/edit.ts';
import { grantSandboxPath } from '../config/sandbox-grant.ts';
import type { HomePaths } from '../home.ts';
import type { ServerLists } from '../lists/server-lists.ts';
import { findLiteralSecrets, type SecretFinding as LiteralSecret } from '../secrets/detect.ts';
import type { Keychain } from '../secrets/keychain.ts';
import type { ServerEntry } from '../server-entry.ts';
import type { Supervisor } from '../supervisor/supervisor.ts';
import { toolTokens } from '../tools/token-cost.ts';
import type { ToolGate } from '../trust/tool-pins.ts';
import type { ProjectOrigin } from '../projects/project-service.ts';
import { projectServerEditRefusal, type ServersFileEdit } from '../projects/project-server-edits.ts';
import { decodePathSegment, HttpError, readJsonAs, ValidationError } from './http-util.ts';
import { applyServersEdit, type ServersEditCore } from './servers-edit.ts';

/**
 * What the server routes use of the core: servers.json and its entries, applying an edit, where a
 * server came from, and what a server lists and did (status, its process's tools, its last run's
 * lists, its held-back tools, its calls).
 */
export interface ServerRoutesCore extends ServersEditCore {
  readonly home: Pick<HomePaths, 'serversFile'>;
  readonly activity: Pick<CallActivity, 'of'>;
  readonly servers: ServersEditCore['servers'] & {
    noteSource(name: string, source: ServerSource): void;
    /** Switchboard's own edit of an entry: its source stays, a grant is added (services/source-record.ts) */
    withEditRecorded<T>(
      name: string,
      edit: SwitchboardEdit | undefined,
      run: () => T | Promise<T>,
    ): Promise<T>;
    forgetSource(name: string): void;
    entries(): ReadonlyMap<string, ServerEntry>;
  };
  readonly status: { report(): Pick<StatusReport, 'servers'> };
  readonly lifecycle: ServersEditCore['lifecycle'] & {
    supervisor(): Pick<Supervisor, 'runner'> | undefined;
    lists(name: string): Pick<ServerLists, 'tools'> | undefined;
  };
  readonly tools: { toolGate(name: string): Pick<ToolGate, 'held'> | undefined };
}

/**
 * POST /api/servers (add) and /api/servers/<name>[/config|enabled|tools|activity]: one server's
 * config read and written as a comment-preserving edit of servers.json (literal secrets never leave
 * as values), remove, enable/disable, its tools and its calls. `handle` answers undefined for what
 * it does not own.
 */
export function createServerRoutes(
  core: ServerRoutesCore,
  keychain: Keychain,
  /** where a project server comes from (not servers.json: editing it there is refused with that) */
  originOf: (name: string) => Pick<ProjectOrigin, 'project' | 'file'> | undefined = () => undefined,
) {
  const file = core.home.serversFile;

  async function handle(req: IncomingMessage, path: string): Promise<object | undefined> {
    const method = req.method ?? 'GET';
    if (path === UiRoutes.servers && method === 'POST') return await addServer(req);
    const server = /^\/api\/servers\/([^/]+)(?:\/(config|enabled|tools|activity|grant))?$/.exec(path);
    if (!server) return undefined;
    const name = decodePathSegment(server[1] ?? '');
    switch (`${method} ${server[2] ?? ''}`) {
      case 'DELETE ':
        return remove(name);
      case 'GET config':
        return configView(name);
      case 'PUT config':
        return await save(req, name);
      case 'POST enabled':
        return await setEnabled(req, name);
      case 'POST grant':
        return await grant(req, name);
      case 'GET tools':
        return tools(name);
      case 'GET activity':
        return activity(name);
      default:
        return undefined;
    }
  }

  function requireExisting(name: string, edit: ServersFileEdit): unknown {
    const config = readServerValue(file, name);
    if (config !== undefined) return config;
    const origin = originOf(name);
    if (origin) throw new HttpError(409, projectServerEditRefusal(name, origin, edit));
    throw new HttpError(404, `no server named "${name}" in ${file}`);
  }

  function requireEntry(name: string): void {
    if (!core.servers.entries().has(name)) throw new HttpError(404, `no server named "${name}" in ${file}`);
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

  function configView(name: string): ServerConfigView {
    const config = requireExisting(name, 'edit');
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
    const current = requireExisting(name, 'edit');
    const config = withSecretsRestored(sent, current);
    checkConfig(name, config);
    setServer(file, name, config);
    core.servers.noteSource(name, 'ui');
    applyServersEdit(core);
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
    for (const server of added) core.servers.noteSource(server.name, 'ui');
    applyServersEdit(core);
    return {
      ok: true,
      added: added.map(({ name, secrets }) => ({
        name,
        secrets: secrets.map((secret) => ({ key: secret.key, name: secret.name })),
      })),
    };
  }

  function remove(name: string): { ok: true } {
    requireExisting(name, 'remove');
    // Like `switchboard remove`: its approval goes too
    // (docs/decisions/trust-and-approval.md), so re-adding it asks again.
    removeServer(file, name);
    core.servers.forgetSource(name);
    applyServersEdit(core);
    return { ok: true };
  }

  async function setEnabled(req: IncomingMessage, name: string): Promise<{ ok: true }> {
    const { enabled } = await readJsonAs(req, EnabledRequestSchema);
    requireExisting(name, 'disable');
    // `enabled` defaults to true: enabling removes the field rather than writing the default.
    // Switchboard's edit: the entry keeps its source (nothing for an approval to name).
    await core.servers.withEditRecorded(name, undefined, () =>
      setServerValue(file, name, ['enabled'], enabled ? undefined : false),
    );
    applyServersEdit(core);
    return { ok: true };
  }

  /**
   * The one-step grant status offers for what the sandbox refused (`switchboard grant`): a policy
   * change, so the server waits for approval of it. The path is written as sent (absolute).
   */
  async function grant(req: IncomingMessage, name: string): Promise<{ ok: true }> {
    const request = await readJsonAs(req, SandboxGrantRequestSchema);
    requireExisting(name, 'grant');
    await core.servers.withEditRecorded(name, 'sandbox-grant', () =>
      grantSandboxPath(file, name, request, undefined),
    );
    applyServersEdit(core);
    return { ok: true };
  }

  /** The server's tools: live while it runs, else as its last run listed them (idle, starting). */
  function tools(name: string): ToolsResponse {
    requireEntry(name);
    const status = core.status.report().servers.find((s) => s.name === name);
    const running = status?.state === 'running';
    const runner = running ? core.lifecycle.supervisor()?.runner(name) : undefined;
    const live = runner?.toolsKnown ? runner.tools : undefined;
    const remembered =
      live === undefined && (status?.state === 'idle' || status?.state === 'starting' || running)
        ? core.lifecycle.lists(name)?.tools
        : undefined;
    const list = live ?? remembered ?? [];
    const held = core.tools.toolGate(name)?.held;
    const filter = core.servers.entries().get(name)?.config.tools;
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

  function activity(name: string) {
    requireEntry(name);
    return { activity: core.activity.of(name) };
  }

  return { handle };
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
