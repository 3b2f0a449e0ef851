// The stdio relay's body, loaded by ./main.ts (the entry point editors run) once the compile cache is on.
// See main.ts for the command line and the start-up budget; import only node: modules and
// dependency-free files here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EDITOR_TOKENS_DIR } from '../../shared/bridge.ts';
import { findLocalEndpoint, type LocalEndpoint } from '../core/bridge/local-endpoint.ts';
import { resolveHome } from '../core/home.ts';
import { Http1Client, type Http1Response } from '../core/bridge/http1-client.ts';
import { modernHeaders } from './modern-headers.ts';

type Id = string | number | null;
interface Message {
  jsonrpc?: unknown;
  id?: Id;
  method?: unknown;
  result?: unknown;
  error?: unknown;
}

const EDITOR_NAMES: Record<string, string> = { 'claude-desktop': 'Claude Desktop' };
/** JSON-RPC error code for "the relay could not get an answer from Switchboard". */
const RELAY_ERROR = -32000;

/** `server` null: the aggregate /mcp (`--all`, an editor in discovery mode). */
let args: { server: string | null; editor: string };
try {
  const { values } = parseArgs({
    options: {
      server: { type: 'string' },
      all: { type: 'boolean' },
      editor: { type: 'string', default: 'claude-desktop' },
    },
    strict: true,
  });
  if (values.all === (values.server !== undefined)) throw new Error('give --server NAME or --all');
  args = { server: values.server ?? null, editor: values.editor };
} catch (err) {
  process.stderr.write(
    `switchboard-relay: ${(err as Error).message}\nusage: switchboard-relay --server NAME | --all [--editor claude-desktop]\n`,
  );
  process.exit(2);
}

const home = resolveHome();
const editorName = EDITOR_NAMES[args.editor] ?? 'your editor';
const tokenFile = join(home.tokens, EDITOR_TOKENS_DIR, args.editor);
const path = args.server === null ? '/mcp' : `/mcp/${encodeURIComponent(args.server)}`;

function readTokenFile(): string | undefined {
  try {
    return readFileSync(tokenFile, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Switchboard's local socket (named pipe on Windows), checked to be this user's before every request
 * (local-endpoint.ts). The relay never uses the bridge's TCP port: while Switchboard is not running,
 * anyone may listen there, and the token would go to them.
 */
function endpoint(): LocalEndpoint {
  const found = findLocalEndpoint(home.run);
  if (found.ok) http.path = found.path;
  return found;
}

let token = readTokenFile();
const initial = findLocalEndpoint(home.run);
const http = new Http1Client(initial.ok ? initial.path : join(home.run, 'bridge.sock'));
let sessionId: string | undefined;
let protocolVersion: string | undefined;
let initialize: { text: string; id: Id } | undefined;
/** Messages wait for this before they are sent: an initialize, or a notification, in flight. */
let gate: Promise<void> = Promise.resolve();
let reinitializing: Promise<void> | undefined;
let closing = false;
const inflight = new Set<Promise<void>>();
const reported = new Set<string>();

// ---- output ----

function writeOut(text: string): void {
  let line = text;
  if (text.includes('\n')) {
    // One message per line: re-serialise anything a server pretty-printed.
    try {
      line = JSON.stringify(JSON.parse(text));
    } catch {
      return report('Switchboard sent a message that is not JSON; dropped it');
    }
  }
  process.stdout.write(line + '\n');
}

function report(problem: string): void {
  if (reported.has(problem)) return;
  reported.add(problem);
  process.stderr.write(`switchboard-relay (${args.server ?? 'all servers'}): ${problem}\n`);
}

function fail(ids: Id[], message: string): void {
  report(message);
  for (const id of ids)
    writeOut(JSON.stringify({ jsonrpc: '2.0', id, error: { code: RELAY_ERROR, message } }));
}

/** The ids of the requests in a message (or batch) that expect an answer. */
function requestIds(message: unknown): Id[] {
  const items = Array.isArray(message) ? (message as unknown[]) : [message];
  const ids: Id[] = [];
  for (const item of items) {
    const m = item as Message | null;
    if (m && typeof m === 'object' && typeof m.method === 'string' && m.id !== undefined && m.id !== null)
      ids.push(m.id);
  }
  return ids;
}

// ---- HTTP ----

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return {
    authorization: `Bearer ${token ?? ''}`,
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}),
    ...extra,
  };
}

/** `modern`: a 2026-07-28 request's own headers (its revision, method and name), over the session's. */
function post(text: string, modern: Record<string, string> | undefined): Promise<Http1Response> {
  return http.request(
    'POST',
    path,
    headers({ accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...modern }),
    Buffer.from(text, 'utf8'),
  );
}

/** The whole body, or undefined if the connection broke before it was complete. */
async function readAll(res: Http1Response, limit = 64 * 1024 * 1024): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  const complete = await res.read((chunk) => {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  });
  return complete ? Buffer.concat(chunks).toString('utf8') : undefined;
}

/** Calls onEvent with each SSE event's data (and id) as it arrives; resolves when the stream ends. */
function readEvents(
  res: Http1Response,
  onEvent: (data: string, id: string | undefined) => void,
): Promise<boolean> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let id: string | undefined;
  return res.read((chunk) => {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, end).replace(/\r$/, '');
      buffer = buffer.slice(end + 1);
      if (line === '') {
        if (data.length) onEvent(data.join('\n'), id);
        data = [];
        id = undefined;
      } else if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
      else if (line.startsWith('id:')) id = line.slice(3).trim();
    }
  });
}

// ---- relaying ----

/** Why the relay cannot send: Switchboard is not running, or what is there is not this user's. */
function unreachable(found: LocalEndpoint & { ok: false }): string {
  if (found.reason === 'absent') return notRunning(found.problem);
  return `the relay will not send its token to Switchboard's socket: ${found.problem} — quit Switchboard, remove that file, start Switchboard again, then restart ${editorName}`;
}

function notRunning(detail = `nothing answers at ${http.path}`): string {
  return `Switchboard is not running (${detail}) — start it (switchboard serve, or open the app), then restart ${editorName}`;
}

function noToken(): string {
  return `no Switchboard token for "${args.editor}" at ${tokenFile} — run \`switchboard sync\` (or \`switchboard token create ${args.editor}\`), then restart ${editorName}`;
}

function forStatus(status: number): string {
  if (status === 401)
    return `Switchboard refused the token in ${tokenFile} (revoked or replaced) — run \`switchboard sync\` (or \`switchboard token create ${args.editor}\`), then restart ${editorName}`;
  if (status === 404)
    return args.server === null
      ? 'Switchboard answered 404 for /mcp'
      : `Switchboard has no server named "${args.server}" — check the name with \`switchboard status\``;
  if (status === 403) return `Switchboard refused the request (HTTP 403 forbidden)`;
  if (status === 413) return `the message is larger than Switchboard accepts (HTTP 413)`;
  return `Switchboard answered HTTP ${status}`;
}

/** Forwards a server message to stdout; notes the negotiated protocol version from initialize. */
function deliver(text: string, sink: (text: string) => void): void {
  if (initialize && protocolVersion === undefined) {
    try {
      const m = JSON.parse(text) as Message;
      const result = m.result as { protocolVersion?: unknown } | undefined;
      if (m.id === initialize.id && typeof result?.protocolVersion === 'string')
        protocolVersion = result.protocolVersion;
    } catch {
      // not JSON: passed on as is; the editor will report it
    }
  }
  sink(text);
}

/**
 * Sends one stdin line to the bridge and writes the answer (JSON or an SSE stream) to the sink.
 * Retries once where a retry can help: the port changed (Switchboard restarted), the token was replaced
 * since start, or the session expired (then the editor's initialize is replayed first).
 */
async function send(
  text: string,
  ids: Id[],
  isInitialize: boolean,
  sink = writeOut,
  retried = false,
  modern?: Record<string, string>,
): Promise<void> {
  if (token === undefined && (token = readTokenFile()) === undefined) return fail(ids, noToken());
  const found = endpoint();
  if (!found.ok) return fail(ids, unreachable(found));
  const used = http.path;
  let res: Http1Response;
  try {
    res = await post(text, modern);
  } catch {
    // A Windows pipe is named anew at each start: a restarted Switchboard is found again.
    if (!retried && endpoint().ok && http.path !== used)
      return send(text, ids, isInitialize, sink, true, modern);
    return fail(ids, notRunning());
  }
  const status = res.status;
  if (status >= 200 && status < 300) {
    if (isInitialize) sessionId = res.headers['mcp-session-id'];
    const type = res.headers['content-type'] ?? '';
    if (status === 202 || !type) {
      await res.read(() => undefined);
      return;
    }
    if (type.startsWith('text/event-stream')) {
      // The answers come as events among notifications; any request left unanswered when the stream
      // ends (the connection broke) gets an error rather than waiting forever.
      const unanswered = new Set(ids);
      await readEvents(res, (data) => {
        if (unanswered.size) {
          const id = answerId(data);
          if (id !== undefined) unanswered.delete(id);
        }
        deliver(data, sink);
      });
      if (unanswered.size)
        fail([...unanswered], 'the connection to Switchboard broke before the answer came');
      return;
    }
    const body = await readAll(res);
    if (body === undefined) return fail(ids, 'the connection to Switchboard broke before the answer came');
    if (body.trim()) deliver(body, sink);
    return;
  }
  const body = (await readAll(res, 1024 * 1024)) ?? '';
  if (!retried && status === 401) {
    const fresh = readTokenFile();
    if (fresh && fresh !== token) {
      token = fresh;
      return send(text, ids, isInitialize, sink, true, modern);
    }
  }
  // A 404 to a 2026 request is its method not found (its answer below), not a session the bridge forgot.
  if (!retried && status === 404 && sessionId !== undefined && !isInitialize && !modern) {
    await reinitialize();
    return send(text, ids, isInitialize, sink, true, modern);
  }
  // The bridge's own JSON-RPC error names the server's state and the fix: pass it on.
  const reply = parseReply(body);
  if (reply && ids.length <= 1) {
    const error = reply.error as { message?: unknown };
    report(typeof error.message === 'string' ? error.message : forStatus(status));
    sink(JSON.stringify({ ...reply, id: reply.id ?? ids[0] ?? null }));
    return;
  }
  fail(ids, forStatus(status));
}

/** The id of a JSON-RPC response (not a request or notification) in an SSE event's data. */
function answerId(data: string): Id | undefined {
  try {
    const m = JSON.parse(data) as Message;
    return m && typeof m === 'object' && m.method === undefined && m.id !== undefined ? m.id : undefined;
  } catch {
    return undefined;
  }
}

function parseReply(body: string): Message | undefined {
  try {
    const m = JSON.parse(body) as Message;
    return m && typeof m === 'object' && m.error && typeof m.error === 'object' ? m : undefined;
  } catch {
    return undefined;
  }
}

/** The bridge forgot our session (it restarted): replay the editor's initialize, quietly. */
function reinitialize(): Promise<void> {
  reinitializing ??= (async () => {
    sessionId = undefined;
    if (!initialize) return;
    const quiet = () => undefined;
    await send(initialize.text, [], true, quiet, true);
    await send('{"jsonrpc":"2.0","method":"notifications/initialized"}', [], false, quiet, true);
    openStream();
  })().finally(() => (reinitializing = undefined));
  return reinitializing;
}

// ---- server → client stream (GET) ----

let stream: Http1Response | 'opening' | undefined;
let streamOffered = true;
let lastEventId: string | undefined;

function openStream(): void {
  if (closing || !streamOffered || stream) return;
  if (!endpoint().ok) return; // the next POST says why
  stream = 'opening';
  const retry = (ms: number) => {
    stream = undefined;
    if (!closing) setTimeout(openStream, ms).unref();
  };
  const extra: Record<string, string> = {
    accept: 'text/event-stream',
    ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
  };
  http.request('GET', path, headers(extra), undefined, { keepAlive: false }).then(
    (res) => {
      if (closing) return res.abort();
      const ok = res.status === 200 && (res.headers['content-type'] ?? '').startsWith('text/event-stream');
      if (!ok) {
        res.abort();
        stream = undefined;
        // 405: the server offers no stream. Anything else (404: session gone): the next POST recovers.
        if (res.status === 405) streamOffered = false;
        return;
      }
      stream = res;
      void readEvents(res, (data, id) => {
        if (id) lastEventId = id;
        writeOut(data);
      }).then(() => retry(1000));
    },
    () => retry(2000),
  );
}

// ---- stdin ----

function onLine(line: string): void {
  if (!line.trim()) return;
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    writeOut(
      JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: not JSON' } }),
    );
    return;
  }
  const ids = requestIds(message);
  const m = message as Message;
  const isInitialize = !Array.isArray(message) && m?.method === 'initialize';
  const isNotification = !Array.isArray(message) && typeof m?.method === 'string' && m.id === undefined;
  const before = gate;
  let task: Promise<void>;
  if (isInitialize) {
    initialize = { text: line, id: m.id ?? null };
    protocolVersion = undefined;
    sessionId = undefined;
    task = before.then(() => send(line, ids, true));
    gate = task.catch(() => undefined);
  } else if (isNotification) {
    task = before.then(() => send(line, ids, false));
    gate = task.catch(() => undefined);
    if (m.method === 'notifications/initialized') void task.then(openStream);
  } else {
    // A 2026-07-28 request says its revision in its body; the bridge wants it in headers too.
    const modern = modernHeaders(message);
    task = before.then(() => send(line, ids, false, writeOut, false, modern));
  }
  const tracked = task.catch((err: unknown) => fail(ids, `relay error: ${(err as Error).message}`));
  inflight.add(tracked);
  void tracked.finally(() => inflight.delete(tracked));
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  pending += chunk;
  let end: number;
  while ((end = pending.indexOf('\n')) >= 0) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    onLine(line);
  }
});
process.stdin.on('end', () => void shutdown());
process.stdout.on('error', () => process.exit(0)); // the editor went away

async function shutdown(): Promise<void> {
  if (pending.trim()) onLine(pending);
  pending = '';
  // Answer what was asked before stdin closed (`printf … | relay` works), then end the session.
  while (inflight.size) await Promise.all([...inflight]);
  closing = true;
  if (stream && stream !== 'opening') stream.abort();
  if (sessionId && token) {
    const end = http.request('DELETE', path, headers()).then(
      (res) => res.read(() => undefined),
      () => undefined,
    );
    await Promise.race([end, new Promise((resolve) => setTimeout(resolve, 500).unref())]);
  }
  http.close();
}

if (token === undefined) report(noToken());
