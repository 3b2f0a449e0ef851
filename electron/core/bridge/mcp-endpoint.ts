import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ErrorCode,
  McpError,
  ResultSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  LATEST_PROTOCOL_VERSION,
} from '@modelcontextprotocol/sdk/types.js';
import type { ClientRequest } from '@modelcontextprotocol/sdk/types.js';
import { SERVER_NAME_PATTERN } from '../../../shared/schema/servers.ts';
import type { Core } from '../core.ts';
import { describeError } from '../errors.ts';
import { formatDuration } from '../supervisor/server-runner.ts';
import { AggregateRouter } from './aggregate-router.ts';
import { HttpError, MAX_BODY_BYTES, readBody, sendJson } from './http-util.ts';
import {
  classify,
  errorResponse,
  ErrorCodes,
  resultResponse,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from './json-rpc.ts';
import { sendNotification, SessionStore, type McpSession } from './mcp-sessions.ts';
import { PostReply } from './post-reply.ts';
import { Upstreams, type Upstream } from './upstreams.ts';

/** How long one request may wait for its server by default; each progress notification resets it. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;

export interface McpEndpointOptions {
  /** how long one request may wait for its server (default 5 min); reset by progress notifications */
  requestTimeoutMs?: number | undefined;
  version?: string;
}

const SESSION_HEADER = 'mcp-session-id';

/**
 * MCP Streamable HTTP for editors: `/mcp/<server>` relays to one server, `/mcp` serves every running
 * server's tools, prompts and resources (aggregate-router.ts). Switchboard holds the one client
 * connection to each server; every editor session is multiplexed over it (the SDK client gives each
 * relayed request its own id, so editors' ids never cross). Works with and without Mcp-Session-Id.
 */
export class McpEndpoint {
  readonly #upstreams: Upstreams;
  readonly #aggregate: AggregateRouter;
  readonly #sessions = new SessionStore();
  readonly #timeoutMs: number;
  readonly #version: string;

  constructor(core: Core, options: McpEndpointOptions = {}) {
    this.#upstreams = new Upstreams(core);
    this.#aggregate = new AggregateRouter(this.#upstreams);
    this.#timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#version = options.version ?? '0.1.0';
    core.events.on('notification', (name, notification) => {
      const message = {
        jsonrpc: '2.0' as const,
        method: notification.method,
        ...(notification.params ? { params: notification.params } : {}),
      };
      for (const session of this.#sessions.on(name)) sendNotification(session, message);
      if (notification.method === 'notifications/prompts/list_changed') {
        this.#aggregate.lists.prompts.invalidate(name);
        this.#toAggregate(notification.method);
      } else if (notification.method === 'notifications/resources/list_changed') {
        this.#aggregate.lists.resources.invalidate(name);
        this.#aggregate.lists.templates.invalidate(name);
        this.#toAggregate(notification.method);
      }
    });
    core.events.on('tools', () => {
      this.#aggregate.toolsChanged();
      this.#toAggregate('notifications/tools/list_changed');
    });
    let wasRunning = new Set<string>();
    core.events.on('status', (status) => {
      const now = status.state === 'running';
      if (now !== wasRunning.has(status.name)) {
        wasRunning = new Set(wasRunning);
        if (now) wasRunning.add(status.name);
        else wasRunning.delete(status.name);
        // A server joining or leaving changes every list of the aggregate.
        this.#aggregate.toolsChanged();
        for (const list of ['tools', 'prompts', 'resources'])
          this.#toAggregate(`notifications/${list}/list_changed`);
      }
    });
  }

  #toAggregate(method: string): void {
    for (const session of this.#sessions.on(null)) sendNotification(session, { jsonrpc: '2.0', method });
  }

  close(): void {
    this.#sessions.closeAll();
  }

  /** The editor's token no longer works (revoked, deleted, replaced): end what it opened. */
  closeEditor(editor: string): void {
    this.#sessions.closeEditor(editor);
  }

  /** Handles /mcp and /mcp/<server> for an authenticated editor. */
  async handle(req: IncomingMessage, res: ServerResponse, path: string, editor: string): Promise<void> {
    const target = path === '/mcp' || path === '/mcp/' ? null : decodeSegment(path.slice('/mcp/'.length));
    if (target !== null && !SERVER_NAME_PATTERN.test(target)) throw new HttpError(404, 'not found');
    switch (req.method) {
      case 'POST':
        return this.#post(req, res, editor, target);
      case 'GET':
        return this.#get(req, res, editor, target);
      case 'DELETE': {
        const id = header(req, SESSION_HEADER);
        if (!id || !this.#sessions.get(id, editor, target)) throw new HttpError(404, 'no such session');
        this.#sessions.delete(id);
        res.writeHead(204).end();
        return;
      }
      default:
        res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
    }
  }

  async #post(
    req: IncomingMessage,
    res: ServerResponse,
    editor: string,
    target: string | null,
  ): Promise<void> {
    let raw: Buffer;
    try {
      raw = await readBody(req);
    } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 413) throw err;
      return sendJson(
        res,
        413,
        errorResponse(
          null,
          ErrorCodes.InvalidRequest,
          `Request too large: Switchboard accepts MCP messages of at most ${MAX_BODY_BYTES / 1024 / 1024} MiB`,
        ),
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return sendJson(
        res,
        400,
        errorResponse(null, ErrorCodes.ParseError, 'Parse error: the body is not valid JSON'),
      );
    }
    const messages: unknown[] = Array.isArray(body) ? (body as unknown[]) : [body];
    const batch = Array.isArray(body);
    if (messages.length === 0)
      return sendJson(res, 400, errorResponse(null, ErrorCodes.InvalidRequest, 'empty batch'));

    const sessionId = header(req, SESSION_HEADER);
    let session: McpSession | undefined;
    if (sessionId) {
      session = this.#sessions.get(sessionId, editor, target);
      if (!session) {
        return sendJson(
          res,
          404,
          errorResponse(null, ErrorCodes.InvalidRequest, 'Session not found: initialize again'),
        );
      }
    }

    // initialize's answer may have to carry a new Mcp-Session-Id header, so it is never streamed.
    const reply = new PostReply(res, acceptsEventStream(req) && !messages.some(isInitialize));
    const responses: Promise<JsonRpcResponse>[] = [];
    const aborts: AbortController[] = [];
    let newSession: McpSession | undefined;
    for (const value of messages) {
      const msg = classify(value);
      switch (msg.kind) {
        case 'invalid':
          responses.push(
            Promise.resolve(
              errorResponse(msg.id, ErrorCodes.InvalidRequest, `Invalid request: ${msg.reason}`),
            ),
          );
          break;
        case 'response':
          // Switchboard's client declares no client capabilities, so servers send no requests to answer.
          break;
        case 'notification':
          if (msg.message.method === 'notifications/cancelled') {
            const requestId = msg.message.params?.requestId;
            if (typeof requestId === 'string' || typeof requestId === 'number') {
              const owner = session ?? this.#sessions.implicit(editor, target);
              owner.inflight.cancel(requestId, 'cancelled by the client');
            }
          }
          break;
        case 'request': {
          const request = msg.message;
          if (request.method === 'initialize') {
            responses.push(
              this.#initialize(request, target).then((response) => {
                if (!response.error && !session) {
                  const version = (response.result as { protocolVersion: string }).protocolVersion;
                  newSession = this.#sessions.create(editor, target, version);
                }
                return response;
              }),
            );
            break;
          }
          const owner = session ?? this.#sessions.implicit(editor, target);
          const controller = new AbortController();
          aborts.push(controller);
          owner.inflight.add(request.id, controller);
          responses.push(
            this.#dispatch(request, target, controller.signal, reply).finally(() =>
              owner.inflight.delete(request.id, controller),
            ),
          );
        }
      }
    }
    if (responses.length === 0) {
      res.writeHead(202).end();
      return;
    }
    // A client that goes away stops waiting: its requests are cancelled at the server too.
    const onClose = () => {
      if (!res.writableFinished) for (const c of aborts) c.abort('client disconnected');
    };
    res.once('close', onClose);
    const results = await Promise.all(responses);
    res.off('close', onClose);
    const created = newSession as McpSession | undefined;
    reply.finish(results, batch, created ? { [SESSION_HEADER]: created.id } : {});
  }

  #get(req: IncomingMessage, res: ServerResponse, editor: string, target: string | null): void {
    if (!acceptsEventStream(req)) {
      throw new HttpError(406, 'GET opens an event stream: send Accept: text/event-stream');
    }
    const sessionId = header(req, SESSION_HEADER);
    const session = sessionId
      ? this.#sessions.get(sessionId, editor, target)
      : this.#sessions.implicit(editor, target);
    if (!session) throw new HttpError(404, 'no such session');
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    res.flushHeaders();
    session.streams.add(res);
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 25_000);
    keepAlive.unref();
    res.once('close', () => {
      clearInterval(keepAlive);
      session.streams.delete(res);
    });
  }

  async #initialize(request: JsonRpcRequest, target: string | null): Promise<JsonRpcResponse> {
    const asked = request.params?.protocolVersion;
    const protocolVersion =
      typeof asked === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(asked)
        ? asked
        : LATEST_PROTOCOL_VERSION;
    if (target === null) {
      return resultResponse(request.id, {
        protocolVersion,
        // Servers come and go, so every list may change: all three are offered even while empty.
        capabilities: {
          tools: { listChanged: true },
          prompts: { listChanged: true },
          resources: { listChanged: true },
        },
        serverInfo: { name: 'switchboard', title: 'Switchboard (all servers)', version: this.#version },
        instructions:
          'Tools and prompts of every MCP server Switchboard runs, named <server>__<name>, and their resources.',
      });
    }
    const found = await this.#upstreams.acquire(target);
    if (!found.ok) return errorResponse(request.id, found.code, found.message, { state: found.state });
    const { client } = found.upstream;
    const instructions = client.getInstructions();
    return resultResponse(request.id, {
      protocolVersion,
      capabilities: client.getServerCapabilities() ?? {},
      serverInfo: client.getServerVersion() ?? { name: target, version: 'unknown' },
      ...(instructions ? { instructions } : {}),
    });
  }

  async #dispatch(
    request: JsonRpcRequest,
    target: string | null,
    signal: AbortSignal,
    reply: PostReply,
  ): Promise<JsonRpcResponse> {
    if (request.method === 'ping') return resultResponse(request.id, {});
    const relay = (upstream: Upstream, params: Record<string, unknown> | undefined) =>
      this.#relay(upstream, request, params, signal, reply);
    if (target === null) return this.#aggregate.dispatch(request, relay);
    const found = await this.#upstreams.acquire(target);
    if (!found.ok) return errorResponse(request.id, found.code, found.message, { state: found.state });
    return relay(found.upstream, request.params);
  }

  async #relay(
    upstream: Upstream,
    request: JsonRpcRequest,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
    reply: PostReply,
  ): Promise<JsonRpcResponse> {
    const progressToken = progressTokenOf(request.params);
    try {
      // The editor's request goes to the server as sent; the server validates it.
      const relayed = { method: request.method, ...(params ? { params } : {}) } as ClientRequest;
      const result = await upstream.client.request(relayed, ResultSchema, {
        signal,
        timeout: this.#timeoutMs,
        resetTimeoutOnProgress: true,
        // Given onprogress, the SDK sends the server a token of its own (editors' tokens could clash on
        // the one shared connection) and hands its progress here: it goes back with the editor's token.
        ...(progressToken === undefined
          ? {}
          : {
              onprogress: (progress) =>
                reply.notify({
                  jsonrpc: '2.0',
                  method: 'notifications/progress',
                  params: { ...progress, progressToken },
                }),
            }),
      });
      return resultResponse(request.id, result);
    } catch (err) {
      if (isOwnTimeout(err, this.#timeoutMs) && !signal.aborted) {
        return errorResponse(
          request.id,
          ErrorCodes.RequestTimeout,
          `Request timed out: MCP server "${upstream.name}" did not answer ${request.method} within ${formatDuration(this.#timeoutMs)} (Switchboard's per-request timeout, reset by progress notifications), so Switchboard cancelled it; try again, and if it keeps happening see the server's log: switchboard logs ${upstream.name}`,
          { timeoutMs: this.#timeoutMs },
        );
      }
      return relayError(request.id, upstream.name, err);
    }
  }
}

function relayError(id: JsonRpcId, server: string, err: unknown): JsonRpcResponse {
  if (err instanceof McpError) {
    // The SDK reports a dropped connection (server crashed or restarted) as ConnectionClosed.
    const message =
      err.code === -32000
        ? `MCP server "${server}" went away during the request (${err.message}); try again once it restarts`
        : err.message.replace(/^MCP error -?\d+: /, '');
    return errorResponse(id, err.code, message, err.data);
  }
  return errorResponse(id, ErrorCodes.InternalError, `MCP server "${server}": ${describeError(err)}`);
}

/** The SDK's own per-request timeout (not an error the server sent, nor a cancellation). */
function isOwnTimeout(err: unknown, timeoutMs: number): boolean {
  if (!(err instanceof McpError) || err.code !== ErrorCode.RequestTimeout) return false;
  const data: unknown = err.data;
  return typeof data === 'object' && data !== null && 'timeout' in data && data.timeout === timeoutMs;
}

function progressTokenOf(params: Record<string, unknown> | undefined): string | number | undefined {
  const meta = params?._meta;
  if (typeof meta !== 'object' || meta === null || !('progressToken' in meta)) return undefined;
  const token = meta.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

function acceptsEventStream(req: IncomingMessage): boolean {
  return (req.headers.accept ?? '').includes('text/event-stream');
}

function isInitialize(message: unknown): boolean {
  return (
    typeof message === 'object' && message !== null && 'method' in message && message.method === 'initialize'
  );
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}
