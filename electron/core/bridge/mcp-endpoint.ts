import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  McpError,
  ResultSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  LATEST_PROTOCOL_VERSION,
} from '@modelcontextprotocol/sdk/types.js';
import type { ClientRequest } from '@modelcontextprotocol/sdk/types.js';
import { SERVER_NAME_PATTERN } from '../../../shared/schema/servers.ts';
import type { Core } from '../core.ts';
import { describeError } from '../errors.ts';
import { AggregateCatalog } from './aggregate.ts';
import { HttpError, readBody, sendJson } from './http-util.ts';
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
import { Upstreams, type Upstream } from './upstreams.ts';

export interface McpEndpointOptions {
  /** how long one request may wait for its server; reset by progress notifications */
  requestTimeoutMs?: number;
  version?: string;
}

const SESSION_HEADER = 'mcp-session-id';

/**
 * MCP Streamable HTTP for editors: `/mcp/<server>` relays to one server, `/mcp` serves every running
 * server's tools as `<server>__<tool>`. Switchboard holds the one client connection to each server;
 * every editor session is multiplexed over it (the SDK client gives each relayed request its own id,
 * so editors' ids never cross). Works with and without Mcp-Session-Id.
 */
export class McpEndpoint {
  readonly #upstreams: Upstreams;
  readonly #catalog: AggregateCatalog;
  readonly #sessions = new SessionStore();
  readonly #timeoutMs: number;
  readonly #version: string;

  constructor(core: Core, options: McpEndpointOptions = {}) {
    this.#upstreams = new Upstreams(core);
    this.#catalog = new AggregateCatalog(this.#upstreams);
    this.#timeoutMs = options.requestTimeoutMs ?? 300_000;
    this.#version = options.version ?? '0.1.0';
    core.events.on('notification', (name, notification) => {
      const message = {
        jsonrpc: '2.0' as const,
        method: notification.method,
        ...(notification.params ? { params: notification.params } : {}),
      };
      for (const session of this.#sessions.on(name)) sendNotification(session, message);
    });
    const aggregateChanged = () => {
      this.#catalog.invalidate();
      for (const session of this.#sessions.on(null)) {
        sendNotification(session, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      }
    };
    core.events.on('tools', aggregateChanged);
    let wasRunning = new Set<string>();
    core.events.on('status', (status) => {
      const now = status.state === 'running';
      if (now !== wasRunning.has(status.name)) {
        wasRunning = new Set(wasRunning);
        if (now) wasRunning.add(status.name);
        else wasRunning.delete(status.name);
        aggregateChanged();
      }
    });
  }

  close(): void {
    this.#sessions.closeAll();
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
    const raw = await readBody(req);
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
              (session ?? this.#sessions.implicit(editor, target)).inflight
                .get(requestId)
                ?.abort('cancelled by the client');
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
          owner.inflight.set(request.id, controller);
          responses.push(
            this.#dispatch(request, target, controller.signal).finally(() => {
              if (owner.inflight.get(request.id) === controller) owner.inflight.delete(request.id);
            }),
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
    if (res.destroyed) return;
    const headers: Record<string, string> = {};
    const created = newSession as McpSession | undefined;
    if (created) headers[SESSION_HEADER] = created.id;
    const payload = JSON.stringify(batch ? results : results[0]);
    res.writeHead(200, {
      ...headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(payload)),
      'cache-control': 'no-store',
    });
    res.end(payload);
  }

  #get(req: IncomingMessage, res: ServerResponse, editor: string, target: string | null): void {
    if (!(req.headers.accept ?? '').includes('text/event-stream')) {
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
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'switchboard', title: 'Switchboard (all servers)', version: this.#version },
        instructions: 'Tools of every MCP server Switchboard runs, named <server>__<tool>.',
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
  ): Promise<JsonRpcResponse> {
    if (request.method === 'ping') return resultResponse(request.id, {});
    if (target === null) return this.#dispatchAggregate(request, signal);
    const found = await this.#upstreams.acquire(target);
    if (!found.ok) return errorResponse(request.id, found.code, found.message, { state: found.state });
    return this.#relay(found.upstream, request, request.params, signal);
  }

  async #dispatchAggregate(request: JsonRpcRequest, signal: AbortSignal): Promise<JsonRpcResponse> {
    switch (request.method) {
      case 'tools/list':
        return resultResponse(request.id, this.#catalog.listTools());
      case 'tools/call': {
        const name = request.params?.name;
        const route = typeof name === 'string' ? this.#catalog.routeTool(name) : undefined;
        if (!route) {
          return errorResponse(
            request.id,
            ErrorCodes.InvalidParams,
            `Unknown tool "${String(name)}": call tools/list for the current names`,
          );
        }
        return this.#relay(route.upstream, request, { ...request.params, name: route.original }, signal);
      }
      default:
        return errorResponse(
          request.id,
          ErrorCodes.MethodNotFound,
          `Method not found: ${request.method} (the aggregate /mcp endpoint serves tools; use /mcp/<server> for everything else)`,
        );
    }
  }

  async #relay(
    upstream: Upstream,
    request: JsonRpcRequest,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
  ): Promise<JsonRpcResponse> {
    try {
      // The editor's request goes to the server as sent; the server validates it.
      const relayed = { method: request.method, ...(params ? { params } : {}) } as ClientRequest;
      const result = await upstream.client.request(relayed, ResultSchema, {
        signal,
        timeout: this.#timeoutMs,
        resetTimeoutOnProgress: true,
      });
      return resultResponse(request.id, result);
    } catch (err) {
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
