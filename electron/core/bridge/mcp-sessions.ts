import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { JsonRpcId, JsonRpcNotification } from './json-rpc.ts';
import { sseEvent } from './post-reply.ts';

/**
 * One editor's MCP session on one endpoint (`target` is a server name, or null for the aggregate
 * /mcp). Clients that send no Mcp-Session-Id share one implicit session per editor and endpoint.
 */
export interface McpSession {
  id: string;
  editor: string;
  target: string | null;
  protocolVersion: string;
  /** open GET streams, for notifications from the server */
  streams: Set<ServerResponse>;
  /** requests still waiting for their server (for notifications/cancelled) */
  inflight: InflightRequests;
  lastSeen: number;
}

/**
 * Requests waiting for their server, by the editor's request id. Ids are unique only per client, and
 * every sessionless client of one token shares the implicit session, so two clients can both have a
 * request 1 in flight: a cancel is forwarded only when exactly one request has that id, so that it can
 * never stop another client's request. (A sessionless client can still cancel by disconnecting.)
 */
export class InflightRequests {
  readonly #byId = new Map<JsonRpcId, Set<AbortController>>();

  add(id: JsonRpcId, controller: AbortController): void {
    const set = this.#byId.get(id);
    if (set) set.add(controller);
    else this.#byId.set(id, new Set([controller]));
  }

  delete(id: JsonRpcId, controller: AbortController): void {
    const set = this.#byId.get(id);
    if (!set?.delete(controller)) return;
    if (set.size === 0) this.#byId.delete(id);
  }

  /** Aborts the request with this id if it is the only one in flight; says whether it did. */
  cancel(id: JsonRpcId, reason: string): boolean {
    const set = this.#byId.get(id);
    if (set?.size !== 1) return false;
    for (const controller of set) controller.abort(reason);
    return true;
  }

  abortAll(reason: string): void {
    for (const set of this.#byId.values()) for (const controller of set) controller.abort(reason);
    this.#byId.clear();
  }
}

/** Oldest sessions are dropped beyond this, so a misbehaving client cannot grow memory forever. */
const MAX_SESSIONS = 5_000;

export class SessionStore {
  readonly #sessions = new Map<string, McpSession>();
  readonly #implicit = new Map<string, McpSession>();

  create(editor: string, target: string | null, protocolVersion: string): McpSession {
    const session = newSession(randomUUID(), editor, target, protocolVersion);
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

  /** The shared session of clients that do not use Mcp-Session-Id. */
  implicit(editor: string, target: string | null): McpSession {
    const key = `${editor}\0${target ?? ''}`;
    let session = this.#implicit.get(key);
    if (!session) {
      session = newSession(key, editor, target, '');
      this.#implicit.set(key, session);
    }
    return session;
  }

  delete(id: string): boolean {
    const session = this.#sessions.get(id);
    if (!session) return false;
    this.#sessions.delete(id);
    session.inflight.abortAll('the session was closed');
    for (const stream of session.streams) stream.end();
    return true;
  }

  /** Ends every session of an editor whose token stopped working: its streams close, its requests stop. */
  closeEditor(editor: string): void {
    for (const s of [...this.#sessions.values()]) if (s.editor === editor) this.delete(s.id);
    for (const [key, s] of [...this.#implicit]) {
      if (s.editor !== editor) continue;
      this.#implicit.delete(key);
      s.inflight.abortAll('the token was revoked');
      for (const stream of s.streams) stream.end();
    }
  }

  /** Every session (explicit or implicit) of an endpoint, for fanning out notifications. */
  *on(target: string | null): Iterable<McpSession> {
    for (const s of this.#sessions.values()) if (s.target === target) yield s;
    for (const s of this.#implicit.values()) if (s.target === target) yield s;
  }

  closeAll(): void {
    for (const id of [...this.#sessions.keys()]) this.delete(id);
    for (const s of this.#implicit.values()) {
      s.inflight.abortAll('Switchboard is shutting down');
      for (const stream of s.streams) stream.end();
    }
    this.#implicit.clear();
  }
}

export function sendNotification(session: McpSession, notification: JsonRpcNotification): void {
  if (session.streams.size === 0) return;
  const frame = sseEvent(notification);
  for (const stream of session.streams) stream.write(frame);
}

function newSession(id: string, editor: string, target: string | null, protocolVersion: string): McpSession {
  return {
    id,
    editor,
    target,
    protocolVersion,
    streams: new Set(),
    inflight: new InflightRequests(),
    lastSeen: Date.now(),
  };
}
