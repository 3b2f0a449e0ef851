import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type {
  ClientCapabilities,
  Implementation,
  LoggingLevel,
  Root,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonRpcId, JsonRpcMessage } from './json-rpc.ts';
import { listenEnd, listenMessage, MODERN_VERSION as MODERN, type Listen } from './modern-era.ts';
import { sseEvent, type PostReply } from './post-reply.ts';
import type { RequestCancel } from './request-cancel.ts';

/**
 * One editor's MCP session on one endpoint (`target` is a server name, or null for the aggregate
 * /mcp). Clients that send no Mcp-Session-Id share one implicit session per editor and endpoint.
 */
export interface McpSession {
  id: string;
  editor: string;
  target: string | null;
  protocolVersion: string;
  /** what the editor declared in initialize: decides which server requests it is asked */
  capabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  /** open GET streams, for what the server sends outside a request of this session */
  streams: Set<ServerResponse>;
  /** requests still waiting for their server (for notifications/cancelled) */
  inflight: InflightRequests;
  /** the level the editor asked for with logging/setLevel (undefined: it never asked) */
  logLevel: LoggingLevel | undefined;
  /** resources/subscribe: URIs per server (one server unless this is an aggregate session) */
  subscriptions: Map<string, Set<string>>;
  /** the editor's roots, asked once and kept until it says they changed */
  roots: Promise<Root[]> | undefined;
  /** the projects whose folders hold the editor's roots (aggregate sessions only, roots-scope.ts) */
  workingIn?: ReadonlySet<string> | undefined;
  /** called once streams appear, for requests waiting to reach this editor */
  streamWaiters: Set<() => void>;
  /** a 2026-07-28 subscriptions/listen stream: what it opted in to (undefined for any other session) */
  listen: Listen | undefined;
  lastSeen: number;
  closed: boolean;
}

/**
 * Requests waiting for their server, by the editor's request id. Ids are unique only per client, and
 * every sessionless client of one token shares the implicit session, so two clients can both have a
 * request 1 in flight: a cancel is forwarded only when exactly one request has that id, so that it can
 * never stop another client's request. (A sessionless client can still cancel by disconnecting.)
 * Flat: one entry per id, a list only while ids clash (this changes twice on every call).
 */
export class InflightRequests {
  readonly #byId = new Map<JsonRpcId, RequestCancel | RequestCancel[]>();

  add(id: JsonRpcId, cancel: RequestCancel): void {
    const there = this.#byId.get(id);
    if (there === undefined) this.#byId.set(id, cancel);
    else if (Array.isArray(there)) there.push(cancel);
    else this.#byId.set(id, [there, cancel]);
  }

  delete(id: JsonRpcId, cancel: RequestCancel): void {
    const there = this.#byId.get(id);
    if (there === cancel) this.#byId.delete(id);
    else if (Array.isArray(there)) {
      const at = there.indexOf(cancel);
      if (at === -1) return;
      there.splice(at, 1);
      if (there.length === 1) this.#byId.set(id, there[0] as RequestCancel);
    }
  }

  /** Cancels the request with this id if it is the only one in flight; says whether it did. */
  cancel(id: JsonRpcId, reason: string): boolean {
    const there = this.#byId.get(id);
    if (there === undefined || Array.isArray(there)) return false;
    there.cancel(reason);
    return true;
  }

  get size(): number {
    return this.#byId.size;
  }

  abortAll(reason: string): void {
    for (const there of this.#byId.values())
      for (const cancel of Array.isArray(there) ? there : [there]) cancel.cancel(reason);
    this.#byId.clear();
  }
}

/** Oldest sessions are dropped beyond this, so a misbehaving client cannot grow memory forever. */
const MAX_SESSIONS = 5_000;
/**
 * A session with no open stream, nothing in flight and no request for this long is ended: many
 * clients just drop the connection instead of sending DELETE, and what their sessions asked of a
 * shared server (log level, subscriptions, roots) must not outlive them for ever.
 */
export const SESSION_IDLE_MS = 10 * 60_000;

export interface SessionStoreEvents {
  /** a session ended (DELETE, evicted, shutdown, its token revoked): servers forget its state */
  closed?: (session: McpSession) => void;
}

export class SessionStore {
  readonly #sessions = new Map<string, McpSession>();
  readonly #implicit = new Map<string, McpSession>();
  /**
   * The last initialize of each editor and endpoint: what a sessionless client of it declared. Kept
   * apart until such a client is heard from without a session id: most clients use the session their
   * initialize created, and an implicit session taking their capabilities (roots, sampling) would be
   * asked for what nobody behind it answers.
   */
  readonly #hellos = new Map<
    string,
    { capabilities: ClientCapabilities; clientInfo: Implementation | undefined }
  >();
  readonly #events: SessionStoreEvents;

  readonly #sweeper: NodeJS.Timeout;

  constructor(events: SessionStoreEvents = {}, idleMs = SESSION_IDLE_MS) {
    this.#events = events;
    this.#sweeper = setInterval(() => this.#sweep(idleMs), Math.min(idleMs, 60_000));
    this.#sweeper.unref();
  }

  #sweep(idleMs: number): void {
    const before = Date.now() - idleMs;
    const idle = (s: McpSession) => s.lastSeen < before && s.streams.size === 0 && s.inflight.size === 0;
    for (const [id, session] of this.#sessions) if (idle(session)) this.delete(id);
    for (const [key, session] of this.#implicit) {
      if (!idle(session)) continue;
      this.#implicit.delete(key);
      this.#end(session, 'idle');
    }
  }

  create(
    editor: string,
    target: string | null,
    protocolVersion: string,
    hello: { capabilities: ClientCapabilities; clientInfo: Implementation | undefined },
  ): McpSession {
    const session = newSession(randomUUID(), editor, target, protocolVersion, hello);
    this.#sessions.set(session.id, session);
    if (this.#sessions.size > MAX_SESSIONS) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest !== undefined) this.delete(oldest);
    }
    return session;
  }

  /** The session for this id, if it belongs to this editor and endpoint. */
  get(id: string, editor: string, target: string | null): McpSession | undefined {
    const session = this.#sessions.get(id);
    if (!session || session.editor !== editor || session.target !== target) return undefined;
    session.lastSeen = Date.now();
    return session;
  }

  /**
   * The shared session of clients that do not use Mcp-Session-Id: call it only for such a client's
   * traffic (a message or stream without a session id, other than initialize).
   */
  implicit(editor: string, target: string | null): McpSession {
    const key = `${editor}\0${target ?? ''}`;
    let session = this.#implicit.get(key);
    const hello = this.#hellos.get(key);
    if (!session) {
      session = newSession(key, editor, target, '', hello ?? { capabilities: {}, clientInfo: undefined });
      this.#implicit.set(key, session);
    } else if (hello) {
      session.capabilities = hello.capabilities;
      session.clientInfo = hello.clientInfo;
    }
    this.#hellos.delete(key);
    session.lastSeen = Date.now();
    return session;
  }

  /**
   * The state 2026-07-28 clients of one editor and endpoint share: that era has no sessions, so
   * what the bridge keeps per client (requests in flight, an isolated server's process, the name it
   * is shown by) is kept per token and endpoint. Apart from the 2025 implicit session: its
   * capabilities are never taken from an envelope, so a server's request (sampling, elicitation,
   * roots) is never sent to a 2026 client on this channel; during its call one becomes that call's
   * input_required instead, judged by that request's envelope (mrtr-exchanges.ts).
   */
  stateless(editor: string, target: string | null, clientInfo: Implementation | undefined): McpSession {
    const key = `${editor}\0${target ?? ''}\0${MODERN}`;
    let session = this.#implicit.get(key);
    if (!session) {
      session = newSession(key, editor, target, MODERN, { capabilities: {}, clientInfo });
      this.#implicit.set(key, session);
    } else if (clientInfo !== undefined && clientInfo.name !== session.clientInfo?.name)
      session.clientInfo = clientInfo;
    session.lastSeen = Date.now();
    return session;
  }

  /**
   * An initialize: its capabilities are the best knowledge of what the shared implicit session of
   * that editor and endpoint can answer, once a client of it is heard from without a session id.
   */
  helloImplicit(
    editor: string,
    target: string | null,
    hello: { capabilities: ClientCapabilities; clientInfo: Implementation | undefined },
  ): void {
    const key = `${editor}\0${target ?? ''}`;
    this.#hellos.delete(key); // newest last: the map stays in order of arrival, and bounded below
    this.#hellos.set(key, hello);
    if (this.#hellos.size > MAX_SESSIONS) {
      const oldest = this.#hellos.keys().next().value;
      if (oldest !== undefined) this.#hellos.delete(oldest);
    }
  }

  delete(id: string): boolean {
    const session = this.#sessions.get(id);
    if (!session) return false;
    this.#sessions.delete(id);
    this.#end(session, 'the session was closed');
    return true;
  }

  /** Ends every session of an editor whose token stopped working: its streams close, its requests stop. */
  closeEditor(editor: string): void {
    // Its sessions on project routes too (`<editor>@<project>`, project-scope.ts).
    const its = (e: string) => e === editor || e.startsWith(`${editor}@`);
    for (const [id, session] of this.#sessions) if (its(session.editor)) this.delete(id);
    for (const [key, session] of this.#implicit) {
      if (!its(session.editor)) continue;
      this.#implicit.delete(key);
      this.#end(session, 'the editor token was revoked');
    }
  }

  /** Every session (explicit or implicit) of an endpoint. */
  *on(target: string | null): Iterable<McpSession> {
    for (const s of this.#sessions.values()) if (s.target === target) yield s;
    for (const s of this.#implicit.values()) if (s.target === target) yield s;
  }

  /** Every session (explicit or implicit, any endpoint) of one editor's token. */
  *ofEditor(editor: string): Iterable<McpSession> {
    for (const s of this.#sessions.values()) if (s.editor === editor) yield s;
    for (const s of this.#implicit.values()) if (s.editor === editor) yield s;
  }

  closeAll(): void {
    clearInterval(this.#sweeper);
    for (const id of [...this.#sessions.keys()]) this.delete(id);
    for (const session of this.#implicit.values()) this.#end(session, 'Switchboard is shutting down');
    this.#implicit.clear();
  }

  #end(session: McpSession, reason: string): void {
    session.closed = true;
    session.inflight.abortAll(reason);
    // A listen stream ends with its response: the subscription ended on purpose (2026-07-28).
    const last = session.listen && sseEvent(listenEnd(session.listen));
    for (const stream of session.streams) stream.end(last);
    session.streams.clear();
    for (const wake of session.streamWaiters) wake();
    this.#events.closed?.(session);
  }
}

/**
 * Sends a message to the editor: on `via` (the event stream answering one of its POSTs) when that can
 * still carry it, else on the session's GET streams. Returns false when it has nowhere to go.
 */
export function deliver(session: McpSession, message: JsonRpcMessage, via?: PostReply): boolean {
  if (via?.send(message)) return true;
  if (session.streams.size === 0) return false;
  // A 2026 listen stream carries only what it opted in to, each message naming the subscription.
  const sent = session.listen ? listenMessage(session.listen, message) : message;
  if (sent === undefined) return false;
  const frame = sseEvent(sent);
  for (const stream of session.streams) stream.write(frame);
  return true;
}

/** Resolves once the session has a GET stream (true), or after `ms` or when it closes (false). */
export function whenStream(session: McpSession, ms: number): Promise<boolean> {
  if (session.streams.size > 0) return Promise.resolve(true);
  if (session.closed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      session.streamWaiters.delete(wake);
      resolve(session.streams.size > 0);
    };
    const timer = setTimeout(wake, ms);
    session.streamWaiters.add(wake);
  });
}

export function addStream(session: McpSession, stream: ServerResponse): void {
  session.streams.add(stream);
  for (const wake of [...session.streamWaiters]) wake();
}

function newSession(
  id: string,
  editor: string,
  target: string | null,
  protocolVersion: string,
  hello: { capabilities: ClientCapabilities; clientInfo: Implementation | undefined },
): McpSession {
  return {
    id,
    editor,
    target,
    protocolVersion,
    capabilities: hello.capabilities,
    clientInfo: hello.clientInfo,
    streams: new Set(),
    inflight: new InflightRequests(),
    logLevel: undefined,
    subscriptions: new Map(),
    roots: undefined,
    streamWaiters: new Set(),
    listen: undefined,
    lastSeen: Date.now(),
    closed: false,
  };
}
