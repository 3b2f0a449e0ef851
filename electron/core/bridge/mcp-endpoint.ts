import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  SUPPORTED_PROTOCOL_VERSIONS,
  LATEST_PROTOCOL_VERSION,
  type ClientCapabilities,
  type Implementation,
  type LoggingLevel,
  type Prompt,
  type ResourceTemplate,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { SERVER_NAME_PATTERN } from '../../../shared/schema/servers.ts';
import { scopedRoute } from './project-scope.ts';
import type { CallActivity } from '../activity/call-activity.ts';
import type { UpstreamPeer } from '../supervisor/upstream-link.ts';
import { AggregateRouter } from './aggregate-router.ts';
import { ClientAccess, type ClientAccessCore } from './client-access.ts';
import { HttpError, MAX_BODY_BYTES, readBody, sendJson } from './http-util.ts';
import {
  classify,
  errorResponse,
  ErrorCodes,
  resultResponse,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from './json-rpc.ts';
import { addStream, deliver, SessionStore, type McpSession } from './mcp-sessions.ts';
import {
  checkModern,
  claimedVersion,
  headerClaim,
  LIST_TTL_MS,
  listenAcknowledged,
  listenFilter,
  MODERN_VERSION,
  modernResponse,
  modernStatus,
  removedMethod,
  SERVER_INFO_KEY,
  supportedVersions,
  withoutEnvelope,
} from './modern-era.ts';
import { INPUT_REQUIRED_METHODS, MrtrExchanges } from './mrtr-exchanges.ts';
import { AnswerBudget, PostReply, sseEvent } from './post-reply.ts';
import { RelayHub } from './relay-hub.ts';
import { RootsScope, type RootsScopeOptions } from './roots-scope.ts';
import { RequestCancel } from './request-cancel.ts';
import type { Reply } from './server-relay.ts';
import { refusal, ToolAccess } from './tool-access.ts';
import { checkToolAnswer } from './tool-answer-refusals.ts';
import { toolFilterKey } from '../../../shared/tool-filter.ts';
import { listingOf } from '../tools/editor-tools.ts';
import { Upstreams, type Upstream, type UpstreamsCore } from './upstreams.ts';
import type { ListKind } from '../lists/server-lists.ts';
import { promptAllowed, templateAllowed } from '../trust/tool-pins.ts';

/** How long one request may wait for its server by default; each progress notification resets it. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;
/** JSON-RPC batches (protocol 2025-03-26) larger than this are refused: one POST, bounded work. */
export const MAX_BATCH = 100;

export interface McpEndpointOptions {
  /** how long one request may wait for its server (default 5 min); reset by progress notifications */
  requestTimeoutMs?: number | undefined;
  /** how long a 2026 call that asked for input waits for the client's retry (default: requestTimeoutMs) */
  inputTimeoutMs?: number | undefined;
  version?: string;
  /** which project a server is of (undefined: the person's own): project routes, project-scope.ts */
  projectOf?: (server: string) => string | undefined;
  /** told of each request on a project's route: which editors work in it now */
  projectSeen?: (project: string, editor: string) => void;
  /** the projects' folders and the roots editors declare (roots routing on /mcp, roots-scope.ts) */
  roots?: Pick<RootsScopeOptions, 'folders' | 'roots'>;
}

/**
 * What the MCP endpoint uses of the core: what client access and the view of the servers use, the
 * servers' changes (to tell sessions to list again), a place to hang the relays' hub (the servers'
 * requests of their client reach editors through it), and the call activity it records.
 */
export interface McpEndpointCore
  extends Omit<ClientAccessCore, 'state'>, Omit<UpstreamsCore, 'state' | 'lifecycle'> {
  readonly state: ClientAccessCore['state'] & UpstreamsCore['state'];
  readonly lifecycle: UpstreamsCore['lifecycle'] & { upstreamPeer: UpstreamPeer | undefined };
  readonly activity: Pick<CallActivity, 'record'>;
}

const SESSION_HEADER = 'mcp-session-id';
const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/**
 * MCP Streamable HTTP for editors: `/mcp/<server>` relays to one server, `/mcp` serves every running
 * server's tools, prompts and resources (aggregate-router.ts). Switchboard holds the one client
 * connection to each server; every editor session is multiplexed over it by that connection's relay
 * (server-relay.ts), which also brings the server's own requests and notifications to the session
 * they belong to. Works with and without Mcp-Session-Id.
 */
export class McpEndpoint {
  readonly #core: McpEndpointCore;
  readonly #upstreams: Upstreams;
  readonly #aggregate: AggregateRouter;
  readonly #sessions: SessionStore;
  readonly #hub: RelayHub;
  readonly #access: ClientAccess;
  readonly #tools: ToolAccess;
  readonly #mrtr: MrtrExchanges;
  readonly #version: string;
  readonly #projectOf: (server: string) => string | undefined;
  readonly #projectSeen: McpEndpointOptions['projectSeen'];
  readonly #roots: RootsScope | undefined;

  constructor(core: McpEndpointCore, options: McpEndpointOptions = {}) {
    this.#projectOf = options.projectOf ?? (() => undefined);
    this.#projectSeen = options.projectSeen;
    this.#access = new ClientAccess(core, this.#projectOf);
    this.#sessions = new SessionStore({
      closed: (session) => {
        this.#hub.sessionClosed(session);
        this.#upstreams.release(session);
      },
    });
    const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#mrtr = new MrtrExchanges({
      inputTimeoutMs: options.inputTimeoutMs ?? requestTimeoutMs,
      allowed: (editor, server) => this.#access.allowed(editor, server),
    });
    this.#hub = new RelayHub({
      sessions: this.#sessions,
      allowed: (session, server) => this.#access.reaches(session, server),
      requestTimeoutMs,
      mrtr: this.#mrtr,
    });
    core.lifecycle.upstreamPeer = this.#hub;
    this.#core = core;
    this.#upstreams = new Upstreams(core, this.#hub);
    // The lists an editor is served from: a server's own state decides (Upstreams.lists).
    const listSource = {
      tools: { toolGate: (s: string) => this.#upstreams.gate(s) },
      lifecycle: { lists: (s: string) => this.#upstreams.lists(s) },
    };
    this.#tools = new ToolAccess({
      listing: (server) => listingOf(listSource, server),
      serverFilter: (server) => core.servers.entries().get(server)?.config.tools,
      selection: (token, server) => this.#access.selection(token, server),
    });
    this.#aggregate = new AggregateRouter(this.#upstreams, this.#tools);
    this.#version = options.version ?? '0.1.0';
    this.#roots =
      options.roots &&
      new RootsScope({
        ...options.roots,
        sessions: () => this.#sessions.on(null),
        ask: (session) => this.#hub.sessionRoots(session),
        changed: (session) => this.#listAgain(session),
        seen: this.#projectSeen,
      });
    // A project added or removed (the core reloads): sessions routed by their roots are judged again.
    core.events.on('config', () => this.#roots?.projectsChanged());
    // Only list_changed reaches here (the relays take every other notification): it goes to all,
    // after the supervisor fetched the list anew (so the lists editors are answered from are new).
    core.events.on('notification', (name, notification) => {
      const message = {
        jsonrpc: '2.0' as const,
        method: notification.method,
        ...(notification.params ? { params: notification.params } : {}),
      };
      for (const session of this.#sessions.on(name)) deliver(session, message);
      if (
        notification.method === 'notifications/prompts/list_changed' ||
        notification.method === 'notifications/resources/list_changed'
      )
        this.#toAggregate(notification.method, name);
    });
    core.events.on('tools', (name) => {
      this.#aggregate.toolsChanged();
      this.#toAggregate('notifications/tools/list_changed', name);
    });
    // Accepting a change (or a new one) changes which tools and prompts editors get: they are told
    // to list again.
    core.events.on('toolChange', (name) => {
      this.#aggregate.toolsChanged();
      for (const method of ['notifications/tools/list_changed', 'notifications/prompts/list_changed']) {
        const message = { jsonrpc: '2.0' as const, method };
        for (const session of this.#sessions.on(name)) deliver(session, message);
        this.#toAggregate(method, name);
      }
    });
    // A server's "tools" filter in servers.json changed (applied live, nothing restarts): its editors
    // list again.
    const filterKeys = () =>
      new Map([...core.servers.entries()].map(([name, e]) => [name, toolFilterKey(e.config.tools)]));
    let filters = filterKeys();
    core.events.on('config', () => {
      const now = filterKeys();
      const changed = [...now].filter(([name, key]) => (filters.get(name) ?? '') !== key).map(([n]) => n);
      filters = now;
      if (changed.length === 0) return;
      this.#aggregate.toolsChanged();
      const message = { jsonrpc: '2.0' as const, method: 'notifications/tools/list_changed' };
      for (const name of changed) {
        for (const session of this.#sessions.on(name)) deliver(session, message);
        this.#toAggregate(message.method, name);
      }
    });
    // An editor's selection of tools (or discovery mode) changed: its sessions list again.
    core.events.on('editorTools', (editor) => {
      this.#access.refresh();
      const message = { jsonrpc: '2.0' as const, method: 'notifications/tools/list_changed' };
      for (const session of this.#sessions.ofEditor(editor)) deliver(session, message);
    });
    let wasRunning = new Set<string>();
    let wasListed = new Set<string>();
    const listedChanged = (name: string) => {
      const now = this.#upstreams.lists(name) !== undefined;
      if (now === wasListed.has(name)) return;
      wasListed = new Set(wasListed);
      if (now) wasListed.add(name);
      else wasListed.delete(name);
      // A server joining or leaving (not one going idle or waking) changes every list of the aggregate.
      this.#aggregate.toolsChanged();
      for (const list of ['tools', 'prompts', 'resources'])
        this.#toAggregate(`notifications/${list}/list_changed`, name);
    };
    core.events.on('lists', listedChanged);
    core.events.on('removed', listedChanged);
    core.events.on('status', (status) => {
      const now = status.state === 'running';
      if (now !== wasRunning.has(status.name)) {
        wasRunning = new Set(wasRunning);
        if (now) wasRunning.add(status.name);
        else wasRunning.delete(status.name);
        // A new connection gets what the sessions asked of the old one (log level, subscriptions).
        if (now) void this.#upstreams.acquire(status.name).then((u) => u.ok && u.upstream.relay.replay());
      }
      listedChanged(status.name);
    });
  }

  /** Tells aggregate sessions that may reach `server` that a list changed. */
  #toAggregate(method: string, server: string): void {
    for (const session of this.#sessions.on(null))
      if (this.#access.reaches(session, server)) deliver(session, { jsonrpc: '2.0', method });
  }

  /** What a session may reach changed: it lists everything again. */
  #listAgain(session: McpSession): void {
    for (const list of ['tools', 'prompts', 'resources'])
      deliver(session, { jsonrpc: '2.0', method: `notifications/${list}/list_changed` });
  }

  close(): void {
    this.#sessions.closeAll();
  }

  /** The editor's token no longer works (revoked, deleted, replaced): end what it opened. */
  closeEditor(editor: string): void {
    this.#sessions.closeEditor(editor);
  }

  /** Handles /mcp and /mcp/<server> for an authenticated editor. */
  async handle(req: IncomingMessage, res: ServerResponse, route: string, token: string): Promise<void> {
    const { path, editor, project } = scopedRoute(route, token, this.#projectOf);
    if (project !== undefined) this.#projectSeen?.(project, token);
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
    if (messages.length > MAX_BATCH) {
      return sendJson(
        res,
        400,
        errorResponse(
          null,
          ErrorCodes.InvalidRequest,
          `Batch too large: Switchboard takes at most ${MAX_BATCH} messages in one JSON-RPC batch (this one has ${messages.length}); send them in smaller batches`,
        ),
      );
    }

    // A 2026-07-28 request names its revision in its _meta (no initialize, no session), or in its
    // MCP-Protocol-Version header (then refused for its missing envelope): that era's answer.
    // Everything else is 2025 traffic, handled exactly as before.
    if (!batch) {
      if (claimedVersion(body) !== undefined || headerClaim(req.headers, body) !== undefined)
        return this.#modern(req, res, editor, target, body);
    } else if (messages.some((m) => claimedVersion(m) !== undefined)) {
      return sendJson(
        res,
        400,
        errorResponse(
          null,
          ErrorCodes.InvalidRequest,
          `Bad Request: JSON-RPC batches may not contain requests for protocol revision ${MODERN_VERSION}; send each on its own`,
        ),
      );
    }

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
    const refusal =
      target !== null && !this.#access.allowed(editor, target)
        ? this.#access.refusal(editor, target)
        : undefined;

    // initialize's answer may have to carry a new Mcp-Session-Id header, so it is never streamed.
    const reply = new PostReply(res, acceptsEventStream(req) && !messages.some(isInitialize));
    const responses: Promise<JsonRpcResponse>[] = [];
    const cancels: RequestCancel[] = [];
    let newSession: McpSession | undefined;
    for (const value of messages) {
      const msg = classify(value);
      // A sessionless client's own traffic only: an initialize makes no implicit session.
      const owner = () => session ?? this.#sessions.implicit(editor, target);
      switch (msg.kind) {
        case 'invalid':
          responses.push(
            Promise.resolve(
              errorResponse(msg.id, ErrorCodes.InvalidRequest, `Invalid request: ${msg.reason}`),
            ),
          );
          break;
        case 'response':
          // The editor's answer to a server's sampling, elicitation or roots request.
          this.#hub.answer(owner(), msg.message);
          break;
        case 'notification':
          this.#notification(owner(), msg.message.method, msg.message.params);
          break;
        case 'request': {
          const request = msg.message;
          if (refusal) {
            responses.push(Promise.resolve(errorResponse(request.id, ErrorCodes.ServerUnavailable, refusal)));
            break;
          }
          if (request.method === 'initialize') {
            responses.push(
              this.#initialize(request, target).then((response) => {
                if (!response.error) {
                  const version = (response.result as { protocolVersion: string }).protocolVersion;
                  const hello = helloOf(request.params);
                  this.#sessions.helloImplicit(editor, target, hello);
                  if (!session) newSession = this.#sessions.create(editor, target, version, hello);
                  if (target === null && this.#access.discovery(editor)) this.#aggregate.prepareDiscovery();
                }
                return response;
              }),
            );
            break;
          }
          const cancel = new RequestCancel();
          cancels.push(cancel);
          const by = owner();
          by.inflight.add(request.id, cancel);
          responses.push(
            this.#dispatch(request, target, by, cancel, reply).finally(() =>
              by.inflight.delete(request.id, cancel),
            ),
          );
        }
      }
    }
    if (responses.length === 0) {
      res.writeHead(202).end();
      return;
    }
    // A client that goes away stops waiting: its requests are cancelled at the server too. (Left on:
    // once the answer is written, closing cancels nothing.)
    res.on('close', () => {
      if (!res.writableFinished) for (const c of cancels) c.cancel('client disconnected');
    });
    // Each answer becomes text as it arrives, within the batch's budget (post-reply.ts); one answer is
    // awaited on its own (no Promise.all on the hot path).
    const budget = new AnswerBudget(batch);
    const results =
      responses.length === 1
        ? [budget.encode(await (responses[0] as Promise<JsonRpcResponse>))]
        : await Promise.all(responses.map((response) => response.then((r) => budget.encode(r))));
    const created = newSession as McpSession | undefined;
    reply.finish(results, batch, created ? { [SESSION_HEADER]: created.id } : {});
  }

  /**
   * One 2026-07-28 message. Its envelope and headers are checked first (modern-era.ts); then it goes
   * the way a 2025 sessionless client's request goes (#dispatch: the same token checks, tool access,
   * pins, filters, discovery mode, relays), on the state the token's 2026 clients share on this
   * endpoint (SessionStore.stateless), and its answer is put in 2026 form.
   */
  async #modern(
    req: IncomingMessage,
    res: ServerResponse,
    editor: string,
    target: string | null,
    body: unknown,
  ): Promise<void> {
    const msg = classify(body);
    if (msg.kind === 'notification') {
      const session = this.#sessions.stateless(editor, target, undefined);
      const { method, params } = msg.message;
      this.#notification(session, method, params);
      if (method === 'notifications/cancelled') this.#endListen(editor, target, params?.requestId);
      res.writeHead(202).end();
      return;
    }
    if (msg.kind !== 'request')
      return sendJson(
        res,
        400,
        errorResponse(
          msg.kind === 'invalid' ? msg.id : null,
          ErrorCodes.InvalidRequest,
          msg.kind === 'invalid'
            ? `Invalid request: ${msg.reason}`
            : `Bad Request: a ${MODERN_VERSION} POST carries one request or notification, not a response`,
        ),
      );
    const request = msg.message;
    const checked = checkModern(req.headers, request);
    if ('status' in checked) return sendJson(res, checked.status, checked.response);
    const removed = removedMethod(request);
    if (removed) return sendJson(res, removed.status, removed.response);
    const session = this.#sessions.stateless(editor, target, checked.clientInfo);
    const id = request.id;
    const reply = new PostReply(res, acceptsEventStream(req));
    let response: JsonRpcResponse;
    if (target !== null && !this.#access.allowed(editor, target)) {
      response = errorResponse(id, ErrorCodes.ServerUnavailable, this.#access.refusal(editor, target));
    } else if (request.method === 'server/discover') {
      if (target === null && this.#access.discovery(editor)) this.#aggregate.prepareDiscovery();
      response = await this.#discover(request, target);
    } else if (request.method === 'subscriptions/listen') {
      return this.#listen(req, res, editor, target, request, checked.clientInfo);
    } else if (MrtrExchanges.isRetry(request)) {
      // A retry with the input a server asked for (MRTR): nothing of it is relayed as a new request.
      const leg = { editor, target, request, capabilities: checked.capabilities };
      const resumed = this.#mrtr.resume(leg, reply);
      res.on('close', () => {
        if (!res.writableFinished) resumed.cancel?.cancel('client disconnected');
      });
      response = await resumed.response;
    } else {
      const cancel = new RequestCancel();
      session.inflight.add(id, cancel);
      res.on('close', () => {
        if (!res.writableFinished) cancel.cancel('client disconnected');
      });
      // The server behind speaks 2025: it gets the request without the envelope, as from a 2025 client.
      const relayed = { ...request, params: withoutEnvelope(request.params) };
      const call = this.#dispatch(relayed, target, session, cancel, reply).finally(() =>
        session.inflight.delete(id, cancel),
      );
      // A server's requests during the call come back to the client as input_required (MRTR).
      response = INPUT_REQUIRED_METHODS.has(request.method)
        ? await this.#mrtr.start(
            { editor, target, request, capabilities: checked.capabilities },
            reply,
            cancel,
            call,
          )
        : await call;
    }
    reply.finish(
      [
        new AnswerBudget(false).encode(
          modernResponse(response, request.method, this.#ttl(request.method, target)),
        ),
      ],
      false,
      {},
      modernStatus(response),
    );
  }

  /**
   * subscriptions/listen (2026-07-28): an event stream that opens with what it will carry and then
   * carries the list changes and resource updates it opted in to, until the client closes it or
   * cancels the request. The stream is a session of its own (never idle while open), so every 2025
   * path that tells sessions of changes tells it too (server, aggregate, token's selection); each
   * resource it names is subscribed as that session's resources/subscribe, with the same checks and
   * routing (a URI that cannot be subscribed is left out of the acknowledgement).
   */
  async #listen(
    req: IncomingMessage,
    res: ServerResponse,
    editor: string,
    target: string | null,
    request: JsonRpcRequest,
    clientInfo: Implementation | undefined,
  ): Promise<void> {
    const asked = listenFilter(request);
    if ('error' in asked)
      return sendJson(res, 200, errorResponse(request.id, ErrorCodes.InvalidParams, asked.error));
    if (!acceptsEventStream(req))
      return sendJson(
        res,
        406,
        errorResponse(
          request.id,
          ErrorCodes.InvalidRequest,
          'subscriptions/listen answers with an event stream: send Accept: text/event-stream',
        ),
      );
    const session = this.#sessions.create(editor, target, MODERN_VERSION, { capabilities: {}, clientInfo });
    session.listen = asked.listen;
    const subscribed: string[] = [];
    for (const uri of asked.uris) {
      const subscribe = {
        jsonrpc: '2.0' as const,
        id: request.id,
        method: 'resources/subscribe',
        params: { uri },
      };
      const answer = await this.#dispatch(
        subscribe,
        target,
        session,
        new RequestCancel(),
        new PostReply(res, false),
      );
      if (!answer.error) subscribed.push(uri);
    }
    if (session.closed || res.destroyed) {
      this.#sessions.delete(session.id);
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    res.write(sseEvent(listenAcknowledged(asked.listen, subscribed)));
    addStream(session, res);
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 25_000);
    keepAlive.unref();
    res.once('close', () => {
      clearInterval(keepAlive);
      session.streams.delete(res);
      this.#sessions.delete(session.id);
    });
  }

  /** A 2026 client cancelled its listen request: its stream ends (with its response). */
  #endListen(editor: string, target: string | null, requestId: unknown): void {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    for (const session of this.#sessions.on(target))
      if (session.listen?.id === requestId && session.editor === editor) this.#sessions.delete(session.id);
  }

  /**
   * How long a 2026 client may keep this answer: lists (and discover) answered from Switchboard's
   * list cache for LIST_TTL_MS; a server's own answer (not listed yet, or a resource's contents) 0.
   */
  #ttl(method: string, target: string | null): number {
    if (method === 'resources/read') return 0;
    return target === null || this.#upstreams.lists(target) !== undefined ? LIST_TTL_MS : 0;
  }

  /** server/discover: what initialize says, for a client of 2026-07-28 (which sends no initialize). */
  async #discover(request: JsonRpcRequest, target: string | null): Promise<JsonRpcResponse> {
    const about = await this.#about(target);
    if ('error' in about)
      return errorResponse(request.id, about.error.code, about.error.message, about.error.data);
    return resultResponse(request.id, {
      supportedVersions: supportedVersions(),
      capabilities: about.capabilities,
      ...(about.instructions ? { instructions: about.instructions } : {}),
      _meta: { [SERVER_INFO_KEY]: about.serverInfo },
    });
  }

  #notification(session: McpSession, method: string, params: Record<string, unknown> | undefined): void {
    switch (method) {
      case 'notifications/cancelled': {
        const requestId = params?.requestId;
        if (typeof requestId === 'string' || typeof requestId === 'number')
          session.inflight.cancel(requestId, 'cancelled by the client');
        return;
      }
      case 'notifications/roots/list_changed':
        this.#hub.rootsChanged(session);
        return this.#roots?.follow(session);
      case 'notifications/initialized':
        // A new editor with roots changes what a shared server's roots are.
        if (session.capabilities.roots) this.#hub.rootsChanged(session);
        return this.#roots?.follow(session);
      default:
    }
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
    addStream(session, res);
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
    const about = await this.#about(target);
    if ('error' in about) return { jsonrpc: '2.0', id: request.id, error: about.error };
    return resultResponse(request.id, {
      protocolVersion,
      capabilities: about.capabilities,
      serverInfo: about.serverInfo,
      ...(about.instructions ? { instructions: about.instructions } : {}),
    });
  }

  /** What an endpoint says of itself (initialize in 2025, server/discover in 2026). */
  async #about(target: string | null): Promise<
    | {
        capabilities: Record<string, unknown>;
        serverInfo: Implementation;
        instructions: string | undefined;
      }
    | { error: NonNullable<JsonRpcResponse['error']> }
  > {
    if (target === null) {
      return {
        // Servers come and go, so every list may change: all three are offered even while empty.
        capabilities: {
          tools: { listChanged: true },
          prompts: { listChanged: true },
          resources: { listChanged: true, subscribe: true },
          logging: {},
          completions: {},
        },
        serverInfo: { name: 'switchboard', title: 'Switchboard (all servers)', version: this.#version },
        instructions:
          'Tools and prompts of every MCP server Switchboard runs, named <server>__<name>, and their resources.',
      };
    }
    // What the server said on its last run: an editor connecting does not start an idle server.
    const lists = this.#upstreams.lists(target);
    if (lists) {
      return {
        capabilities: lists.capabilities,
        serverInfo: lists.serverInfo,
        instructions: this.#instructions(target, lists.instructions),
      };
    }
    const found = await this.#upstreams.acquire(target);
    if (!found.ok)
      return { error: { code: found.code, message: found.message, data: { state: found.state } } };
    const { client } = found.upstream;
    return {
      capabilities: client.getServerCapabilities() ?? {},
      serverInfo: client.getServerVersion() ?? { name: target, version: 'unknown' },
      instructions: this.#instructions(target, client.getInstructions()),
    };
  }

  /** The server's instructions as editors get them: the pinned ones while the server's changed. */
  #instructions(server: string, given: string | undefined): string | undefined {
    const gate = this.#upstreams.gate(server);
    return gate ? gate.instructions : given;
  }

  #dispatch(
    request: JsonRpcRequest,
    target: string | null,
    session: McpSession,
    cancel: RequestCancel,
    reply: PostReply,
  ): Promise<JsonRpcResponse> {
    // Most of what editors send: a tool call to one server, relayed without an await on the way
    // (a throw on it is a rejection, as from the async path).
    if (target !== null && request.method === 'tools/call') {
      try {
        return this.#callTool(request, target, session, cancel, reply);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
    return this.#dispatchOther(request, target, session, cancel, reply);
  }

  /** tools/call on /mcp/<server>: checked against what this token gets, under its server's own name. */
  #callTool(
    request: JsonRpcRequest,
    target: string,
    session: McpSession,
    cancel: RequestCancel,
    reply: PostReply,
  ): Promise<JsonRpcResponse> {
    const name = request.params?.name;
    const offer = this.#tools.offer(session.editor, target);
    // The name this editor's client sees may be a shortened one (a client with a name limit).
    const own = offer && typeof name === 'string' ? offer.byExposed.get(name) : undefined;
    const refused = offer
      ? refusal(offer, target, session.editor, own, name)
      : typeof name === 'string'
        ? this.#tools.check(session.editor, target, name)
        : this.#upstreams.refusedTool(target, name);
    if (refused) return Promise.resolve(errorResponse(request.id, ErrorCodes.InvalidParams, refused));
    return this.#relay(
      target,
      request,
      own === undefined ? request.params : { ...request.params, name: own },
      session,
      reply,
      cancel,
    );
  }

  async #dispatchOther(
    request: JsonRpcRequest,
    target: string | null,
    session: McpSession,
    cancel: RequestCancel,
    reply: PostReply,
  ): Promise<JsonRpcResponse> {
    if (request.method === 'ping') return resultResponse(request.id, {});
    const answer = (r: Reply): JsonRpcResponse => ({ jsonrpc: '2.0', id: request.id, ...r });
    if (request.method === 'logging/setLevel') {
      const level = request.params?.level;
      if (typeof level !== 'string' || !LOG_LEVELS.has(level))
        return errorResponse(
          request.id,
          ErrorCodes.InvalidParams,
          `Invalid log level: ${JSON.stringify(level)}`,
        );
      session.logLevel = level as LoggingLevel;
    }
    if (target === null) {
      const judging = this.#roots?.ready(session);
      if (judging) await judging; // its first list already has the projects its roots are in
      this.#roots?.touch(session);
      return this.#aggregate.dispatch(request, {
        session,
        allowed: (server) => this.#access.reaches(session, server),
        acquire: (server) => this.#upstreams.acquire(server, session),
        relay: (server, params) => this.#relay(server, request, params, session, reply, cancel),
        answer,
        discovery: this.#access.discovery(session.editor),
      });
    }
    const early = this.#fromLists(request, target, session);
    if (early) return early;
    const prompt = promptOf(request);
    if (prompt !== undefined) {
      const refused = this.#upstreams.refusedPrompt(target, prompt);
      if (refused) return errorResponse(request.id, ErrorCodes.InvalidParams, refused);
    }
    if (request.method === 'resources/read') {
      const refused = this.#upstreams.refusedRead(target, request.params?.uri);
      if (refused) return errorResponse(request.id, ErrorCodes.InvalidParams, refused);
    }
    const found = await this.#upstreams.acquire(target, session);
    if (!found.ok) return errorResponse(request.id, found.code, found.message, { state: found.state });
    const { relay } = found.upstream;
    switch (request.method) {
      case 'logging/setLevel':
        return answer(await relay.applyLevel());
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        const uri = request.params?.uri;
        if (typeof uri !== 'string')
          return errorResponse(request.id, ErrorCodes.InvalidParams, 'uri must be a string');
        return answer(
          request.method === 'resources/subscribe'
            ? await relay.subscribe(session, uri)
            : await relay.unsubscribe(session, uri),
        );
      }
      case 'tools/list':
      case 'prompts/list':
      case 'resources/templates/list':
        return this.#gated(
          target,
          session.editor,
          await relay.request(session, request, request.params, reply, cancel),
        );
      default:
        return relay.request(session, request, request.params, reply, cancel);
    }
  }

  /**
   * What /mcp/<server> answers without its server: list requests from its last run's lists (editors'
   * list requests never start an idle server), and the log level or an unsubscribe of an idle one
   * (its next connection is told, replay). Undefined: the server is needed.
   */
  #fromLists(request: JsonRpcRequest, target: string, session: McpSession): JsonRpcResponse | undefined {
    const kind = LIST_REQUESTS.get(request.method);
    if (kind !== undefined) {
      const lists = this.#upstreams.lists(target);
      if (!lists) return undefined; // not listed yet: the server answers (tools filtered, #gated)
      if (request.params?.cursor !== undefined)
        return errorResponse(request.id, ErrorCodes.InvalidParams, 'Invalid cursor: this list has one page');
      // Tools: what this token gets (pinned, filtered, selected, named for its client); prompts: pinned.
      const items =
        kind === 'tools'
          ? (this.#tools.offer(session.editor, target)?.tools ?? [])
          : kind === 'prompts'
            ? (this.#upstreams.gate(target)?.prompts.listed ?? lists.prompts)
            : kind === 'resourceTemplates'
              ? (this.#upstreams.gate(target)?.templates.listed ?? lists.resourceTemplates)
              : lists[kind];
      return resultResponse(request.id, { [kind]: items });
    }
    const idleAsk =
      request.method === 'logging/setLevel' ||
      (request.method === 'resources/unsubscribe' && typeof request.params?.uri === 'string');
    if (!idleAsk || this.#status(target) !== 'idle' || this.#upstreams.lists(target) === undefined)
      return undefined;
    if (request.method === 'resources/unsubscribe')
      session.subscriptions.get(target)?.delete(String(request.params?.uri));
    return resultResponse(request.id, {});
  }

  /**
   * A tools/list or prompts/list answer of the server's own (before its lists are kept) with only
   * what this token gets: tools pinned, filtered and selected for it, under the names its client sees
   * (tool-access.ts); prompts and resource templates pinned (new and changed ones are held back).
   */
  #gated(server: string, token: string, response: JsonRpcResponse): JsonRpcResponse {
    const gate = this.#upstreams.gate(server);
    const result = response.result as
      { tools?: unknown; prompts?: unknown; resourceTemplates?: unknown } | undefined;
    if (!result) return response;
    const named = (item: unknown): item is { name: string } =>
      typeof item === 'object' && item !== null && typeof (item as { name?: unknown }).name === 'string';
    if (Array.isArray(result.tools)) {
      const listed = result.tools.filter((t: unknown): t is Tool => named(t));
      const offer = this.#tools.offerFrom(token, server, listed, gate);
      return { ...response, result: { ...result, tools: offer.tools } };
    }
    if (gate && Array.isArray(result.prompts)) {
      const prompts = result.prompts.filter((p: unknown) => named(p) && promptAllowed(gate, p as Prompt));
      return { ...response, result: { ...result, prompts } };
    }
    if (gate && Array.isArray(result.resourceTemplates)) {
      const resourceTemplates = result.resourceTemplates.filter(
        (t: unknown) =>
          typeof (t as { uriTemplate?: unknown } | null)?.uriTemplate === 'string' &&
          templateAllowed(gate, t as ResourceTemplate),
      );
      return { ...response, result: { ...result, resourceTemplates } };
    }
    return response;
  }

  /**
   * Relays one request to a server (started if idle; a session's own process when isolated). A tool
   * call's round trip is recorded as the editor saw it: a cold start is part of its latency. A server
   * that runs with its connection settled is relayed to at once (every call but the first ones): no
   * await between the editor's POST and the server's stdin.
   */
  #relay(
    server: string,
    request: JsonRpcRequest,
    params: Record<string, unknown> | undefined,
    session: McpSession,
    reply: PostReply,
    cancel: RequestCancel,
  ): Promise<JsonRpcResponse> {
    const started = performance.now();
    const ready = this.#upstreams.readyNow(server, session);
    const response = ready
      ? this.#relayTo(ready, request, params, session, reply, cancel)
      : this.#upstreams
          .acquire(server, session)
          .then((found) =>
            found.ok
              ? this.#relayTo(found.upstream, request, params, session, reply, cancel)
              : errorResponse(request.id, found.code, found.message, { state: found.state }),
          );
    if (request.method !== 'tools/call') return response;
    return response.then((relayed) => {
      const answer = checkToolAnswer(
        this.#core.lifecycle.supervisor()?.runner(server)?.sandbox,
        params?.arguments,
        relayed,
      );
      const failed =
        answer.error !== undefined || (answer.result as { isError?: unknown } | undefined)?.isError === true;
      this.#core.activity.record(
        server,
        String(params?.name),
        session.editor,
        performance.now() - started,
        failed,
      );
      return answer;
    });
  }

  /** The relay of a running server: a tool call is checked again (a cold start lists its tools anew). */
  #relayTo(
    upstream: Upstream,
    request: JsonRpcRequest,
    params: Record<string, unknown> | undefined,
    session: McpSession,
    reply: PostReply,
    cancel: RequestCancel,
  ): Promise<JsonRpcResponse> {
    const refused =
      request.method === 'tools/call'
        ? typeof params?.name === 'string'
          ? this.#tools.check(session.editor, upstream.name, params.name)
          : this.#upstreams.refusedTool(upstream.name, params?.name)
        : undefined;
    return refused
      ? Promise.resolve(errorResponse(request.id, ErrorCodes.InvalidParams, refused))
      : upstream.relay.request(session, request, params, reply, cancel);
  }

  #status(name: string): string | undefined {
    return this.#core.lifecycle.supervisor()?.statusOf(name)?.state;
  }
}

/** The list requests /mcp/<server> answers from the server's lists, and the list each gets. */
const LIST_REQUESTS = new Map<string, ListKind>([
  ['tools/list', 'tools'],
  ['prompts/list', 'prompts'],
  ['resources/list', 'resources'],
  ['resources/templates/list', 'resourceTemplates'],
]);

/** The prompt a request is about (prompts/get, completion/complete of a prompt), if any. */
function promptOf(request: JsonRpcRequest): unknown {
  if (request.method === 'prompts/get') return request.params?.name;
  const ref = request.params?.ref as { type?: unknown; name?: unknown } | undefined;
  return request.method === 'completion/complete' && ref?.type === 'ref/prompt' ? ref.name : undefined;
}

/** What the editor said about itself in initialize. */
function helloOf(params: Record<string, unknown> | undefined): {
  capabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
} {
  const capabilities = params?.capabilities;
  const clientInfo = params?.clientInfo;
  return {
    capabilities:
      typeof capabilities === 'object' && capabilities !== null ? (capabilities as ClientCapabilities) : {},
    clientInfo:
      typeof clientInfo === 'object' &&
      clientInfo !== null &&
      typeof (clientInfo as Implementation).name === 'string'
        ? (clientInfo as Implementation)
        : undefined,
  };
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
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}
