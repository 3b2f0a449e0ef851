import type { ClientCapabilities, Root } from '@modelcontextprotocol/sdk/types.js';
import type { LinkReceiver, UpstreamLink, UpstreamPeer } from '../supervisor/upstream-link.ts';
import { ErrorCodes, type JsonRpcResponse } from './json-rpc.ts';
import type { MrtrExchanges } from './mrtr-exchanges.ts';
import { deliver, whenStream, type McpSession, type SessionStore } from './mcp-sessions.ts';
import type { PostReply } from './post-reply.ts';
import { attributed } from './server-attribution.ts';
import { ServerRelay, type AskReply, type RelayPeer } from './server-relay.ts';

/** How long a request for an editor waits for it to open an event stream it can go on. */
const STREAM_WAIT_MS = 3_000;
/** How long Switchboard waits for an editor's roots before answering the server without them. */
const ROOTS_TIMEOUT_MS = 5_000;

interface Ask {
  session: McpSession;
  settle: (reply: AskReply) => void;
}

export interface RelayHubOptions {
  sessions: Pick<SessionStore, 'on'>;
  /** may this session reach this server (its token's selection in servers.json and editor settings, its roots)? */
  allowed: (session: McpSession, server: string) => boolean;
  requestTimeoutMs: number;
  /** where a server's requests during a 2026 client's call are held for its input_required */
  mrtr?: Pick<MrtrExchanges, 'ask' | 'cancelAsk' | 'capabilities'>;
}

/**
 * Every server connection's relay (the current one per server), and the requests Switchboard has put
 * to editors on servers' behalf: it is the bridge's side of each upstream link (UpstreamPeer).
 */
export class RelayHub implements UpstreamPeer, RelayPeer {
  readonly requestTimeoutMs: number;
  readonly #sessions: RelayHubOptions['sessions'];
  readonly #allowed: (session: McpSession, server: string) => boolean;
  readonly #mrtr: RelayHubOptions['mrtr'];
  readonly #relays = new Map<string, ServerRelay>();
  /** servers that asked their client for roots (on any connection since Switchboard started) */
  readonly #rootsUsers = new Set<string>();
  /** the relays of isolated servers' own processes, by the session they serve and by server */
  readonly #own = new Map<McpSession, Map<string, ServerRelay>>();
  /** requests sent to editors, by the id they were sent with, until the editor answers */
  readonly #asks = new Map<string, Ask>();
  #seq = 0;

  constructor(options: RelayHubOptions) {
    this.#sessions = options.sessions;
    this.#allowed = options.allowed;
    this.#mrtr = options.mrtr;
    this.requestTimeoutMs = options.requestTimeoutMs;
  }

  attach(server: string, link: UpstreamLink): LinkReceiver {
    const relay = new ServerRelay(server, link, this);
    this.#relays.set(server, relay);
    return relay;
  }

  /** The relay of an isolated server's own process for one session: it serves that session alone. */
  attachIsolated(server: string, link: UpstreamLink, session: McpSession): ServerRelay {
    const relay = new ServerRelay(server, link, this, session);
    let own = this.#own.get(session);
    if (!own) this.#own.set(session, (own = new Map()));
    own.set(server, relay);
    return relay;
  }

  detach(relay: ServerRelay): void {
    if (this.#relays.get(relay.server) === relay) this.#relays.delete(relay.server);
    const session = relay.only;
    const own = session && this.#own.get(session);
    if (session && own?.get(relay.server) === relay) {
      own.delete(relay.server);
      if (own.size === 0) this.#own.delete(session);
    }
  }

  /**
   * The relay of this connection to the server (none once it closed or was replaced); with `session`,
   * of that session's own process of an isolated server.
   */
  relay(server: string, link: UpstreamLink, session?: McpSession): ServerRelay | undefined {
    const relay = session ? this.#own.get(session)?.get(server) : this.#relays.get(server);
    return relay && relay.link === link && !relay.closed ? relay : undefined;
  }

  /** The relay of the session's own process of an isolated server, while it is connected. */
  ownRelay(session: McpSession, server: string): ServerRelay | undefined {
    return this.#own.get(session)?.get(server);
  }

  /** Every session that may reach the server: its own endpoint's and the aggregate ones allowed to. */
  sessionsOf(server: string): McpSession[] {
    const sessions: McpSession[] = [];
    for (const s of this.#sessions.on(server)) if (!s.closed) sessions.push(s);
    for (const s of this.#sessions.on(null)) if (!s.closed && this.#allowed(s, server)) sessions.push(s);
    return sessions;
  }

  // ─── Switchboard asks an editor ───────────────────────────────────────────────────────────────

  /**
   * Sends a request to an editor (a server's sampling or elicitation, or roots/list), on `via` when
   * that answer stream is still open, else on its GET stream (waiting a moment for one to open).
   */
  ask(
    session: McpSession,
    method: string,
    params: Record<string, unknown> | undefined,
    via?: PostReply,
  ): { id: string; done: Promise<AskReply> } {
    // During a 2026 client's call it becomes that call's input_required (mrtr-exchanges.ts).
    const held = this.#mrtr?.ask(via, method, params);
    if (held) return held;
    const id = `sb-ask:${++this.#seq}`;
    const message = { jsonrpc: '2.0' as const, id, method, ...(params ? { params } : {}) };
    const done = new Promise<AskReply>((settle) => {
      this.#asks.set(id, { session, settle });
      if (deliver(session, message, via)) return;
      void whenStream(session, STREAM_WAIT_MS).then((open) => {
        if (!this.#asks.has(id) || (open && deliver(session, message))) return;
        this.#settle(id, {
          error: {
            code: ErrorCodes.InternalError,
            message: `Switchboard could not pass ${method} to ${who(session)}: it keeps no event stream open for requests from servers`,
          },
        });
      });
    });
    return { id, done };
  }

  /** What the editor a server's request is for can answer: a 2026 call's own envelope, else its session's. */
  capabilities(session: McpSession, via: PostReply | undefined): ClientCapabilities {
    return this.#mrtr?.capabilities(via) ?? session.capabilities;
  }

  /** An editor's answer to one of Switchboard's requests; false when it is not one it asked. */
  answer(session: McpSession, response: JsonRpcResponse): boolean {
    const id = String(response.id);
    if (this.#asks.get(id)?.session !== session) return false;
    this.#settle(id, response.error ? { error: response.error } : { result: response.result });
    return true;
  }

  /** The server withdrew its request: the editor is told, and nothing goes back. */
  cancelAsk(id: string, reason: unknown): void {
    if (this.#mrtr?.cancelAsk(id)) return;
    const ask = this.#asks.get(id);
    if (!ask) return;
    deliver(ask.session, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, ...(typeof reason === 'string' ? { reason } : {}) },
    });
    this.#settle(id, 'cancelled');
  }

  #settle(id: string, reply: AskReply): void {
    const ask = this.#asks.get(id);
    if (!ask) return;
    this.#asks.delete(id);
    ask.settle(reply);
  }

  // ─── sessions ─────────────────────────────────────────────────────────────────────────────────

  /** A session ended: its open requests are answered for it, and each server forgets what it asked. */
  sessionClosed(session: McpSession): void {
    for (const [id, ask] of this.#asks) {
      if (ask.session !== session) continue;
      this.#settle(id, {
        error: {
          code: ErrorCodes.InternalError,
          message: `${who(session)} closed its session before answering`,
        },
      });
    }
    for (const relay of this.#reached(session)) relay.forget(session);
    this.#own.delete(session);
  }

  /** The editor's roots changed (or it just arrived with some): servers are told to ask again. */
  rootsChanged(session: McpSession): void {
    session.roots = undefined;
    for (const relay of this.#reached(session)) relay.rootsChanged();
  }

  /** Whether the server asks for roots: then it is told of new ones before editors' calls go on. */
  usesRoots(server: string): boolean {
    return this.#rootsUsers.has(server);
  }

  markUsesRoots(server: string): void {
    this.#rootsUsers.add(server);
  }

  /**
   * roots/list for a server: the union of the roots of the editor sessions it serves. A session not
   * asked yet is asked now, its request naming the server that wanted them (`_meta`); its answer is
   * kept and is what every server that session reaches gets (until the editor says they changed).
   */
  async rootsOf(sessions: McpSession[], server: string): Promise<Root[]> {
    const lists = await Promise.all(
      sessions.filter((s) => s.capabilities.roots).map((s) => this.#rootsOf(s, server)),
    );
    const byUri = new Map<string, Root>();
    for (const roots of lists) for (const root of roots) if (!byUri.has(root.uri)) byUri.set(root.uri, root);
    return [...byUri.values()];
  }

  /**
   * The editor's roots for Switchboard itself (which projects it works in), asked anew each time
   * and apart from the servers' requests, so a server's own roots/list still reaches the editor
   * named after that server. Undefined: it gave none (an error, a timeout, no answer).
   */
  async sessionRoots(session: McpSession): Promise<Root[] | undefined> {
    return this.#askRoots(session, undefined);
  }

  #rootsOf(session: McpSession, server: string): Promise<Root[]> {
    session.roots ??= (async () => {
      const roots = await this.#askRoots(session, attributed('roots/list', undefined, server, false));
      if (roots === undefined) session.roots = undefined; // ask again next time
      return roots ?? [];
    })();
    return session.roots;
  }

  async #askRoots(
    session: McpSession,
    params: Record<string, unknown> | undefined,
  ): Promise<Root[] | undefined> {
    const ask = this.ask(session, 'roots/list', params);
    let timer: NodeJS.Timeout | undefined;
    const reply = await Promise.race([
      ask.done,
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ROOTS_TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
    if (reply === 'timeout') this.#settle(ask.id, 'cancelled');
    const roots =
      typeof reply === 'object' ? (reply.result as { roots?: unknown } | undefined)?.roots : undefined;
    if (!Array.isArray(roots)) return undefined;
    return roots.filter(
      (r): r is Root => typeof r === 'object' && r !== null && typeof (r as Root).uri === 'string',
    );
  }

  /** The relays a session's requests go to: its server's, or every server it may reach (aggregate). */
  #reached(session: McpSession): ServerRelay[] {
    const own = [...(this.#own.get(session)?.values() ?? [])];
    if (session.target !== null) {
      const relay = this.#relays.get(session.target);
      return relay ? [relay, ...own] : own;
    }
    return [...this.#relays.values(), ...own].filter((relay) => this.#allowed(session, relay.server));
  }
}

function who(session: McpSession): string {
  return session.clientInfo?.name
    ? `${session.clientInfo.name} (token "${session.editor}")`
    : `editor "${session.editor}"`;
}
