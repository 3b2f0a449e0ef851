import type { IncomingHttpHeaders } from 'node:http';
import {
  SUPPORTED_PROTOCOL_VERSIONS,
  type ClientCapabilities,
  type Implementation,
} from '@modelcontextprotocol/sdk/types.js';
import {
  errorResponse,
  ErrorCodes,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from './json-rpc.ts';
import {
  CLIENT_CAPABILITIES_KEY,
  CLIENT_INFO_KEY,
  decodeHeaderValue,
  MCP_NAME_FIELD,
  MODERN_VERSION,
  PROTOCOL_VERSION_KEY,
  SUBSCRIPTION_ID_KEY,
} from '../../../shared/mcp-2026.ts';

export {
  CLIENT_CAPABILITIES_KEY,
  CLIENT_INFO_KEY,
  MODERN_VERSION,
  PROTOCOL_VERSION_KEY,
  SERVER_INFO_KEY,
  SUBSCRIPTION_ID_KEY,
} from '../../../shared/mcp-2026.ts';

/**
 * MCP 2026-07-28 on the editors' side, the parts that are only shapes: telling a request of that era
 * from a 2025 one, the checks of its envelope and headers, and the fields its results carry. What a
 * request does is decided by the same code as for 2025 clients (mcp-endpoint.ts).
 */

const MODERN_VERSIONS: readonly string[] = [MODERN_VERSION];

const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY]);

/** The spec's codes for the 2026 edge checks (HTTP 400 both). */
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/**
 * How long a 2026 client may keep a list answered from Switchboard's list cache. Short: a client
 * that does not listen (subscriptions/listen) is not told when a list changes (an approval, a new
 * pin, a changed filter), so this bounds how long it can miss one.
 */
export const LIST_TTL_MS = 30_000;

/** The results 2026-07-28 lets a client cache (CacheableResult). */
const CACHEABLE = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/**
 * The revision a message claims in its `_meta`, if any: a 2026 request carries one, a 2025 one does
 * not. One property read on the 2025 path, nothing allocated.
 */
export function claimedVersion(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const params = (message as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const version = (meta as Record<string, unknown>)[PROTOCOL_VERSION_KEY];
  return typeof version === 'string' ? version : undefined;
}

/** What a 2026 request says about its client, per request (there is no initialize to say it once). */
export interface Envelope {
  capabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
}

/** An edge refusal: the HTTP status and the JSON-RPC error it carries. */
export interface EdgeRefusal {
  status: number;
  response: JsonRpcResponse;
}

/**
 * The revision a request claims by its `MCP-Protocol-Version` header alone, when that header names
 * 2026-07-28 and the body has no envelope: still a 2026 request (a 2025 client never sends that
 * header), refused for its missing envelope rather than taken as 2025 traffic. Requests only (a
 * notification needs no envelope), and never initialize: a client falling back to 2025 is never
 * refused over a header.
 */
export function headerClaim(headers: IncomingHttpHeaders, message: unknown): string | undefined {
  if (single(headers, 'mcp-protocol-version') !== MODERN_VERSION) return undefined;
  if (typeof message !== 'object' || message === null) return undefined;
  const { id, method } = message as { id?: unknown; method?: unknown };
  if (id === undefined || typeof method !== 'string' || method === 'initialize') return undefined;
  return MODERN_VERSION;
}

/**
 * Methods 2026-07-28 removed (sessions, ping, the level set once per session, free-floating
 * subscriptions): a 2026 request for one is answered like an unknown method, 404 with -32601, and
 * never reaches the 2025 code that still serves them to 2025 clients.
 */
const REMOVED_METHODS = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/** The answer to a 2026 request for a method that era removed; undefined for any other method. */
export function removedMethod(request: JsonRpcRequest): EdgeRefusal | undefined {
  if (!REMOVED_METHODS.has(request.method)) return undefined;
  const why =
    request.method === 'initialize'
      ? `send server/discover; or initialize without the ${MODERN_VERSION} _meta for 2025-11-25`
      : `it exists only in 2025 revisions`;
  return {
    status: 404,
    response: errorResponse(
      request.id,
      ErrorCodes.MethodNotFound,
      `Method not found: ${MODERN_VERSION} has no ${request.method} (${why})`,
    ),
  };
}

/** The spec's code for a request that needs a client capability the client did not declare. */
export const MISSING_CLIENT_CAPABILITY = -32021;

/**
 * The HTTP status a 2026 answer goes with (Streamable HTTP, 2026-07-28): a method the server does not
 * implement is 404 with -32601, and a missing client capability 400 with -32021, whoever answered
 * (Switchboard or the server behind it); everything else 200.
 */
export function modernStatus(response: JsonRpcResponse): number {
  const code = response.error?.code;
  if (code === ErrorCodes.MethodNotFound) return 404;
  if (code === MISSING_CLIENT_CAPABILITY) return 400;
  return 200;
}

/**
 * Checks a 2026 request before anything acts on it, in the order the spec's errors are told apart:
 * a revision header, the envelope the revision requires (-32602), a header that agrees with the
 * body's revision (-32020), a revision Switchboard speaks (-32022), then the method and name headers.
 * The body is what Switchboard acts on; a header that says otherwise is refused rather than believed
 * either way (a proxy in front may have routed or allowed the request by its headers).
 */
export function checkModern(headers: IncomingHttpHeaders, request: JsonRpcRequest): EdgeRefusal | Envelope {
  const id = request.id;
  const refuse = (code: number, message: string, data?: unknown): EdgeRefusal => ({
    status: 400,
    response: errorResponse(id, code, message, data),
  });
  const mismatch = (what: string, header: string | undefined) =>
    refuse(HEADER_MISMATCH, `Bad Request: the request headers and body disagree: ${what}`, {
      mismatch: { header: header ?? '(missing)', body: what },
    });
  const meta = request.params?._meta;
  const envelope =
    typeof meta === 'object' && meta !== null && !Array.isArray(meta)
      ? (meta as Record<string, unknown>)
      : {};
  const claimed = envelope[PROTOCOL_VERSION_KEY];
  const version = typeof claimed === 'string' ? claimed : undefined;
  const versionHeader = single(headers, 'mcp-protocol-version');
  if (versionHeader === undefined)
    return mismatch(
      `the body names protocol version ${version} but the MCP-Protocol-Version header is absent`,
      undefined,
    );
  if (version === undefined)
    return refuse(
      ErrorCodes.InvalidParams,
      `Invalid params: a ${versionHeader} request carries params._meta["${PROTOCOL_VERSION_KEY}"] and params._meta["${CLIENT_CAPABILITIES_KEY}"]`,
    );
  const capabilities = envelope[CLIENT_CAPABILITIES_KEY];
  if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities))
    return refuse(
      ErrorCodes.InvalidParams,
      `Invalid _meta envelope for protocol revision ${version}: ${CLIENT_CAPABILITIES_KEY} must be an object`,
    );
  if (versionHeader !== version)
    return mismatch(
      `the body names protocol version ${version} but the MCP-Protocol-Version header names ${versionHeader}`,
      versionHeader,
    );
  if (!MODERN_VERSIONS.includes(version))
    return refuse(UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version: ${version}`, {
      supported: supportedVersions(),
      requested: version,
    });
  const methodHeader = single(headers, 'mcp-method');
  if (methodHeader !== request.method)
    return mismatch(
      `the body names method ${request.method} but the Mcp-Method header ${methodHeader === undefined ? 'is absent' : `names ${methodHeader}`}`,
      methodHeader,
    );
  const field = MCP_NAME_FIELD.get(request.method);
  const named = field === undefined ? undefined : request.params?.[field];
  if (typeof named === 'string') {
    const raw = single(headers, 'mcp-name');
    const nameHeader = raw === undefined ? undefined : decodeHeaderValue(raw);
    if (nameHeader !== named)
      return mismatch(
        `the body carries params.${field}=${JSON.stringify(named)} but the Mcp-Name header ${raw === undefined ? 'is absent' : `names ${JSON.stringify(nameHeader ?? raw)}`}`,
        raw,
      );
  }
  const info = envelope[CLIENT_INFO_KEY];
  const clientInfo =
    typeof info === 'object' && info !== null && typeof (info as Implementation).name === 'string'
      ? (info as Implementation)
      : undefined;
  return { capabilities: capabilities as ClientCapabilities, clientInfo };
}

/** Every revision the bridge answers: 2026-07-28 per request, the 2025 ones after initialize. */
export function supportedVersions(): string[] {
  return [...MODERN_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];
}

/**
 * Where the relayed params keep the editor's per-request capabilities (servers-side era, see
 * editorCapabilitiesOf): a symbol key, so it is copied with the params (spread) but never sent
 * (JSON has no symbols) and no editor can put it there.
 */
const EDITOR_CAPABILITIES: unique symbol = Symbol('switchboard.editorCapabilities');

/** What a relayed 2026 request's envelope said its editor can do; undefined for 2025 traffic. */
export function editorCapabilitiesOf(
  params: Record<string, unknown> | undefined,
): ClientCapabilities | undefined {
  return (params as { [EDITOR_CAPABILITIES]?: ClientCapabilities } | undefined)?.[EDITOR_CAPABILITIES];
}

/**
 * The params a 2026 request is relayed with to a server that speaks 2025: without the envelope's
 * own keys, which belong to the editor's request to Switchboard (the server had its initialize).
 * The envelope's capabilities stay along, out of band (a 2026 server is told them per request).
 */
export function withoutEnvelope(
  params: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const meta = params?._meta as Record<string, unknown> | undefined;
  if (meta === undefined) return params;
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(meta)) if (!ENVELOPE_KEYS.has(key)) rest[key] = meta[key];
  const others: Record<string, unknown> = {};
  for (const key of Object.keys(params as Record<string, unknown>))
    if (key !== '_meta') others[key] = (params as Record<string, unknown>)[key];
  if (Object.keys(rest).length > 0) others._meta = rest;
  const capabilities = meta[CLIENT_CAPABILITIES_KEY];
  if (typeof capabilities === 'object' && capabilities !== null)
    (others as { [EDITOR_CAPABILITIES]?: unknown })[EDITOR_CAPABILITIES] = capabilities;
  return others;
}

/**
 * A response in 2026 form: every result says what it is (`resultType`: complete, unless it is an
 * input_required round, mrtr-exchanges.ts), and a complete cacheable one carries its cache hints. `ttlMs` is what
 * the caller knows of where the answer came from (LIST_TTL_MS from Switchboard's list cache, 0 from
 * a server's own answer); `private` always, since what a token gets is its own (selection, pins).
 */
export function modernResponse(response: JsonRpcResponse, method: string, ttlMs: number): JsonRpcResponse {
  const result = response.result;
  if (typeof result !== 'object' || result === null) return response;
  const own = result as Record<string, unknown>;
  const stamped: Record<string, unknown> = { ...own, resultType: own.resultType ?? 'complete' };
  // An input_required answer is one round of a call, never something to keep.
  if (CACHEABLE.has(method) && stamped.resultType === 'complete') {
    stamped.ttlMs = ttlMs;
    stamped.cacheScope = 'private';
  }
  return { ...response, result: stamped };
}

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** One subscriptions/listen stream: its request id (the subscription's id) and what it agreed to carry. */
export interface Listen {
  id: JsonRpcId;
  tools: boolean;
  prompts: boolean;
  resources: boolean;
}

/** What a listen request opts in to (`params.notifications`); the resource URIs apart. */
export function listenFilter(
  request: JsonRpcRequest,
): { listen: Listen; uris: string[] } | { error: string } {
  const asked = request.params?.notifications;
  if (typeof asked !== 'object' || asked === null || Array.isArray(asked))
    return { error: 'subscriptions/listen needs params.notifications (the notifications to receive)' };
  const filter = asked as Record<string, unknown>;
  const uris = filter.resourceSubscriptions;
  if (uris !== undefined && (!Array.isArray(uris) || uris.some((u) => typeof u !== 'string')))
    return { error: 'params.notifications.resourceSubscriptions must be a list of resource URIs' };
  return {
    listen: {
      id: request.id,
      tools: filter.toolsListChanged === true,
      prompts: filter.promptsListChanged === true,
      resources: filter.resourcesListChanged === true,
    },
    uris: (uris as string[] | undefined) ?? [],
  };
}

/** The acknowledgement a listen stream opens with: what it will carry (URIs: those subscribed). */
export function listenAcknowledged(listen: Listen, uris: string[]): JsonRpcMessage {
  return {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: {
      notifications: {
        ...(listen.tools ? { toolsListChanged: true } : {}),
        ...(listen.prompts ? { promptsListChanged: true } : {}),
        ...(listen.resources ? { resourcesListChanged: true } : {}),
        ...(uris.length > 0 ? { resourceSubscriptions: uris } : {}),
      },
      _meta: { [SUBSCRIPTION_ID_KEY]: listen.id },
    },
  };
}

/**
 * A message as a listen stream carries it, or undefined when it did not opt in to it: the list
 * changes it asked for and updates of the resources it subscribed (a session's subscriptions decide
 * which reach it, as for 2025 sessions); nothing else (logs, server requests) goes on this stream.
 */
export function listenMessage(listen: Listen, message: JsonRpcMessage): JsonRpcMessage | undefined {
  if (!('method' in message) || 'id' in message) return undefined;
  const wanted =
    message.method === 'notifications/resources/updated' ||
    (message.method === 'notifications/tools/list_changed' && listen.tools) ||
    (message.method === 'notifications/prompts/list_changed' && listen.prompts) ||
    (message.method === 'notifications/resources/list_changed' && listen.resources);
  if (!wanted) return undefined;
  const meta = message.params?._meta as Record<string, unknown> | undefined;
  return {
    jsonrpc: '2.0',
    method: message.method,
    params: { ...message.params, _meta: { ...meta, [SUBSCRIPTION_ID_KEY]: listen.id } },
  };
}

/** The response that ends a listen stream (Switchboard closing it: shutdown, token revoked). */
export function listenEnd(listen: Listen): JsonRpcResponse {
  return {
    jsonrpc: '2.0',
    id: listen.id,
    result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID_KEY]: listen.id } },
  };
}
