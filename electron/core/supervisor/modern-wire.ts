import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type {
  ClientCapabilities,
  Implementation,
  JSONRPCMessage,
  RequestId,
  ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import {
  CLIENT_CAPABILITIES_KEY,
  CLIENT_INFO_KEY,
  encodeHeaderValue,
  MCP_NAME_FIELD,
  MODERN_VERSION,
  PROTOCOL_VERSION_KEY,
  SERVER_INFO_KEY,
} from '../../../shared/mcp-2026.ts';

/**
 * The MCP 2026-07-28 wire to a remote server, one request at a time: the probe (`server/discover`),
 * the per-request envelope, and one POST with its headers whose answer comes as a JSON body or an
 * event stream. What a call does with the answer (input_required, the relay) is modern-upstream.ts.
 */

/** How long the probe waits for server/discover before taking the server for a 2025 one. */
const PROBE_TIMEOUT_MS = 5_000;
/** What a 2026 server says of itself in server/discover: what initialize said in 2025. */
export interface Discovered {
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions: string | undefined;
}

export interface Connection {
  url: URL;
  headers: Record<string, string>;
  fetch: FetchLike;
  /** the OAuth bearer to send, if the server is signed in with one */
  bearer?: () => Promise<string | undefined>;
  /**
   * After a 401: gets a new bearer the way the 2025 transport does (the SDK's auth: a refresh, or
   * the sign-in Switchboard asks the person for); whether to send the request again.
   */
  authorize?: (response: Response) => Promise<boolean>;
}

export type Reply =
  { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } };

/**
 * Asks `server/discover` at 2026-07-28; what the server said when it speaks that revision, else
 * undefined (a 2025 server: refused, unknown method, no answer in time, anything else).
 */
export async function discoverModern(
  connection: Connection,
  clientInfo: Implementation,
): Promise<Discovered | undefined> {
  const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  let reply: Reply | undefined;
  try {
    reply = await post(
      connection,
      'discover',
      'server/discover',
      envelope(undefined, {}, clientInfo),
      signal,
    );
  } catch {
    return undefined;
  }
  if (!('result' in reply)) return undefined;
  const result = reply.result;
  const versions = result.supportedVersions;
  if (!Array.isArray(versions) || !versions.includes(MODERN_VERSION)) return undefined;
  const meta = result._meta as Record<string, unknown> | undefined;
  const info = meta?.[SERVER_INFO_KEY] as Implementation | undefined;
  const capabilities = result.capabilities;
  return {
    capabilities: isObject(capabilities) ? (capabilities as ServerCapabilities) : {},
    serverInfo:
      isObject(info) && typeof info.name === 'string' && typeof info.version === 'string'
        ? { name: info.name, version: info.version }
        : { name: connection.url.host, version: 'unknown' },
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  };
}

export function envelope(
  params: Record<string, unknown> | undefined,
  capabilities: ClientCapabilities,
  clientInfo: Implementation | undefined,
): Record<string, unknown> {
  const meta = params?._meta;
  return {
    ...params,
    _meta: {
      ...(isObject(meta) ? meta : {}),
      [PROTOCOL_VERSION_KEY]: MODERN_VERSION,
      [CLIENT_CAPABILITIES_KEY]: capabilities,
      ...(clientInfo ? { [CLIENT_INFO_KEY]: clientInfo } : {}),
    },
  };
}

/**
 * One 2026 request: a POST with its headers; the answer from a JSON body or an event stream (whose
 * other messages, progress and logs, go to `onNote`).
 */
export async function post(
  connection: Connection,
  id: RequestId,
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
  onNote?: (message: JSONRPCMessage) => void,
): Promise<Reply> {
  const response = await postSigned(
    connection,
    method,
    params,
    { jsonrpc: '2.0', id, method, params },
    signal,
  );
  /** One message of a stream: a note goes to onNote; the answer to this request is returned. */
  const answerIn = (data: string): Record<string, unknown> | undefined => {
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return undefined;
    }
    if (!isObject(message)) return undefined;
    if ('method' in message) onNote?.(message as JSONRPCMessage);
    else if (message.id === id) return message;
    return undefined;
  };
  const type = response.headers.get('content-type')?.toLowerCase() ?? '';
  if (type.startsWith('text/event-stream') && response.body) {
    for await (const data of events(response.body)) {
      const answer = answerIn(data);
      if (answer) return replyOf(answer);
    }
    throw new Error(`its event stream for ${method} ended without an answer`);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // Some servers put the call's notifications before its answer, a JSON document a line: read
    // them as an event stream's (only when the body is not one JSON document).
    for (const line of text.split('\n')) body = answerIn(line) ?? body;
  }
  if (isObject(body) && ('result' in body || 'error' in body)) return replyOf(body);
  if (response.status === 401 || response.status === 403)
    throw new Error(
      `it refused Switchboard's credentials (HTTP ${response.status}); check the entry's headers, or sign in to it again`,
    );
  throw new Error(`it answered HTTP ${response.status}${response.ok ? ' without a JSON-RPC answer' : ''}`);
}

/**
 * POSTs one 2026 request; a 401 to a signed-in connection gets a new bearer (Connection.authorize)
 * and the request is sent once more with it.
 */
export async function postSigned(
  connection: Connection,
  method: string,
  params: Record<string, unknown>,
  message: Record<string, unknown>,
  signal: AbortSignal,
): Promise<Response> {
  const body = JSON.stringify(message);
  const send = async () =>
    connection.fetch(connection.url, {
      method: 'POST',
      headers: await requestHeaders(connection, method, params),
      body,
      signal,
    });
  const response = await send();
  if (response.status !== 401 || !connection.authorize) return response;
  if (!(await connection.authorize(response))) return response;
  await response.body?.cancel().catch(() => {});
  return send();
}

/** The headers of a 2026 request: the entry's own, the revision, Mcp-Method/Mcp-Name, the bearer. */
export async function requestHeaders(
  connection: Connection,
  method: string,
  params: Record<string, unknown>,
): Promise<Record<string, string>> {
  const headers: Record<string, string> = {
    ...connection.headers,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN_VERSION,
    'mcp-method': method,
  };
  const field = MCP_NAME_FIELD.get(method);
  const name = field === undefined ? undefined : params[field];
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  const bearer = await connection.bearer?.();
  if (bearer !== undefined) headers.authorization = `Bearer ${bearer}`;
  return headers;
}

/**
 * The JSON-RPC messages of a long-lived answer as they come: an event stream's events, or JSON
 * documents a line (some servers stream a listen that way), or one JSON document.
 */
export async function* messagesOf(response: Response): AsyncGenerator<Record<string, unknown>> {
  if (!response.body) return;
  const type = response.headers.get('content-type')?.toLowerCase() ?? '';
  const parse = (text: string): Record<string, unknown> | undefined => {
    try {
      const message: unknown = JSON.parse(text);
      return isObject(message) ? message : undefined;
    } catch {
      return undefined;
    }
  };
  if (type.startsWith('text/event-stream')) {
    for await (const data of events(response.body)) {
      const message = parse(data);
      if (message) yield message;
    }
    return;
  }
  const decoder = new TextDecoder();
  let buffer = '';
  /** lines that were not a document alone: one document over several lines */
  let rest = '';
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      const message = line.trim() === '' ? undefined : parse(line);
      if (message) yield message;
      else rest += `${line}\n`;
    }
  }
  const last = parse(rest + buffer);
  if (last) yield last;
}

export function replyOf(message: Record<string, unknown>): Reply {
  if (isObject(message.error)) return { error: message.error as Extract<Reply, { error: unknown }>['error'] };
  return { result: isObject(message.result) ? message.result : {} };
}

/** The `data` of each event in a server-sent event stream. */
async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const stream = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const event of stream) yield event.data;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
