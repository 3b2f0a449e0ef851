import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { JsonRpcId, JsonRpcNotification } from './json-rpc.ts';

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
  /** requests still waiting for their server, by the editor's id (for notifications/cancelled) */
  inflight: Map<JsonRpcId, AbortController>;
  lastSeen: number;
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
    for (const controller of session.inflight.values()) controller.abort();
    for (const stream of session.streams) stream.end();
    return true;
  }

  /** Every session (explicit or implicit) of an endpoint, for fanning out notifications. */
  *on(target: string | null): Iterable<McpSession> {
    for (const s of this.#sessions.values()) if (s.target === target) yield s;
    for (const s of this.#implicit.values()) if (s.target === target) yield s;
  }

  closeAll(): void {
    for (const id of [...this.#sessions.keys()]) this.delete(id);
    for (const s of this.#implicit.values()) {
      for (const c of s.inflight.values()) c.abort();
      for (const stream of s.streams) stream.end();
    }
    this.#implicit.clear();
  }
}

export function sendNotification(session: McpSession, notification: JsonRpcNotification): void {
  if (session.streams.size === 0) return;
  const frame = `event: message\ndata: ${JSON.stringify(notification)}\n\n`;
  for (const stream of session.streams) stream.write(frame);
}

function newSession(id: string, editor: string, target: string | null, protocolVersion: string): McpSession {
  return {
    id,
    editor,
    target,
    protocolVersion,
    streams: new Set(),
    inflight: new Map(),
    lastSeen: Date.now(),
  };
}
