import type {
  ClientCapabilities,
  JSONRPCMessage,
  LoggingLevel,
  RequestId,
  Root,
} from '@modelcontextprotocol/sdk/types.js';
import { RELAYED_ID_PREFIX, type LinkReceiver, type UpstreamLink } from '../supervisor/upstream-link.ts';
import { formatDuration } from '../supervisor/wording.ts';
import {
  ErrorCodes,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from './json-rpc.ts';
import { deliver, type McpSession } from './mcp-sessions.ts';
import { editorCapabilitiesOf, MODERN_VERSION } from './modern-era.ts';
import type { PostReply } from './post-reply.ts';
import type { RequestCancel } from './request-cancel.ts';
import { attributed } from './server-attribution.ts';
import { unsolicited } from './unsolicited.ts';

/** An answer without its id: what a request came back with. */
export type Reply = Pick<JsonRpcResponse, 'result' | 'error'>;

/** What came of a request Switchboard put to an editor: its answer, or withdrawn by the server. */
export type AskReply = Reply | 'cancelled';

/**
 * What a relay needs of the bridge around it (RelayHub): the sessions of its server, and a way to put
 * a server's requests to an editor. A relay never reaches the other relays or the session store.
 */
export interface RelayPeer {
  readonly requestTimeoutMs: number;
  /** every session that may reach the server */
  sessionsOf(server: string): McpSession[];
  /** roots/list for the server: the union of these sessions' roots */
  rootsOf(sessions: McpSession[], server: string): Promise<Root[]>;
  /** whether the server asks for roots: then it is told of new ones before editors' calls go on */
  usesRoots(server: string): boolean;
  /** the server asked for roots (remembered across its connections) */
  markUsesRoots(server: string): void;
  /** sends a request to an editor, on `via` when that answer stream is still open */
  ask(
    session: McpSession,
    method: string,
    params: Record<string, unknown> | undefined,
    via?: PostReply,
  ): { id: string; done: Promise<AskReply> };
  /** what the editor can answer: a 2026 call's envelope (`via` is its answer), else the session's */
  capabilities(session: McpSession, via: PostReply | undefined): ClientCapabilities;
  /** the server withdrew its request: the editor is told, and nothing goes back */
  cancelAsk(id: string, reason: unknown): void;
  /** this relay's connection ended */
  detach(relay: ServerRelay): void;
}

interface Pending {
  /** the editor session that asked; undefined for Switchboard's own requests (setLevel, subscribe) */
  session: McpSession | undefined;
  /** where the editor's answer goes: the server's messages about this request go there too */
  reply: PostReply | undefined;
  method: string;
  /** the editor's progress token, given back on the server's progress (which carries ours) */
  progressToken: string | number | undefined;
  settle: (reply: Reply) => void;
  /** takes the request's cancellation listener back once it is answered */
  stopListening: (() => void) | undefined;
  timer: NodeJS.Timeout;
  /** ends the request's hold on the server (it does not go idle while a request is in flight) */
  release: () => void;
}

/** Who a request on the link is for: an editor's session (and its answer stream), or Switchboard. */
interface SendFrom {
  session?: McpSession;
  reply?: PostReply;
  cancel?: RequestCancel;
  /** Switchboard's own round trip (a ping): not a use of the server */
  own?: boolean;
}

const noop = () => {};

/**
 * How long editors' requests wait at most for a server that uses roots to ask for them after a change
 * (the wait ends as soon as it has). Generous: on a loaded machine server-filesystem once took over
 * 1.5 s to ask, and a call in between ran in the folders of an editor that had left.
 */
const ROOTS_SYNC_MS = 5_000;
/**
 * Round trips to the server after it was given roots, before calls go on: each is a turn of its
 * event loop to take them in (measured with server-filesystem on a loaded machine: one was not always
 * enough, three were).
 */
const SETTLE_PINGS = 3;

const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/**
 * Switchboard's connection to one server, as the editors using it see it. Editors' requests go out
 * with ids of the relay's own (so editors' ids never clash on the one connection) and their progress
 * tokens swapped for ours; what the server sends back goes to the session it belongs to:
 *
 * - answers and progress: to the request that asked, by id and token (exact);
 * - the server's own requests (sampling, elicitation) and its logs: to the session whose request the
 *   server is handling. Over HTTP the server sends them on that request's stream, so the relay knows
 *   (`related`); where nothing says (stdio, or an HTTP server's standalone stream) they go to the
 *   editor whose request reached the server last. With no editor's request in flight a sampling or
 *   elicitation request is refused (and logged): nobody asked, so it would be unsolicited; a log line
 *   goes to every session. Each request says which server sends it (server-attribution.ts).
 * - resource updates: to the sessions subscribed to that URI; `list_changed`: to all (the endpoint).
 * - roots/list: the union of every session's roots (RelayHub.rootsOf).
 *
 * Per-session state the server keeps only once — logging level, subscriptions — is merged here: the
 * server gets the most verbose level any session asked for and each session only what it asked for;
 * a URI is subscribed while any session wants it. Both are replayed when the server reconnects.
 * An isolated server's own process for one session has a relay of its own that serves that session
 * alone: there nothing is shared, merged or guessed.
 */
export class ServerRelay implements LinkReceiver {
  readonly server: string;
  readonly link: UpstreamLink;
  readonly #hub: RelayPeer;
  readonly #pending = new Map<string, Pending>();
  /** the server's requests now with an editor: server id → the hub's ask id (for its cancellations) */
  readonly #asked = new Map<RequestId, string>();
  /** URL-mode elicitations: their completion notice goes to the session that was asked */
  readonly #elicitations = new Map<string, McpSession>();
  #seq = 0;
  /** the level the server was last told, and the URIs it was asked to watch, on this connection */
  #level: LoggingLevel | undefined;
  readonly #subscribed = new Set<string>();
  /** while any URI is subscribed the server stays up (idle, it could not send updates) */
  #subscriptionHold: (() => void) | undefined;
  #closed = false;
  #replayed = false;
  /** the one session an isolated server's own process serves; undefined for a shared server */
  readonly #only: McpSession | undefined;
  /**
   * Editors' requests wait for this while the server is being told new roots (see #syncRoots): a
   * call must not run against the folders of the editors before.
   */
  #rootsSync: { done: Promise<void>; settle: () => void } | undefined;
  /** counts changes of the sessions' roots: an answer settles the sync only if none came after its ask */
  #rootsChanges = 0;
  /** how many roots the server was last given on this connection */
  #rootsGiven = 0;
  /** a first round trip on this connection, before the first editor request (see settled) */
  #firstTrip: Promise<unknown> | undefined;
  /** that round trip came back: requests need not wait for it any more */
  #firstTripDone = false;

  constructor(server: string, link: UpstreamLink, hub: RelayPeer, only?: McpSession) {
    this.server = server;
    this.link = link;
    this.#hub = hub;
    this.#only = only;
    // A server that asked for roots before asks again once initialized: until then, calls wait.
    if (hub.usesRoots(server)) this.#syncRoots();
  }

  /** The one session an isolated server's own process serves; undefined for a shared server. */
  get only(): McpSession | undefined {
    return this.#only;
  }

  /** Every session this connection serves. */
  #sessions(): McpSession[] {
    if (this.#only) return this.#only.closed ? [] : [this.#only];
    return this.#hub.sessionsOf(this.server);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Relays an editor's request; resolves with the answer under the editor's own id. Once the
   * connection is settled (nearly always) the request goes out at once: no await in between.
   */
  request(
    session: McpSession,
    request: JsonRpcRequest,
    params: Record<string, unknown> | undefined,
    reply: PostReply,
    cancel: RequestCancel,
  ): Promise<JsonRpcResponse> {
    const send = () =>
      new Promise<JsonRpcResponse>((resolve) =>
        this.#out(request.method, params, { session, reply, cancel }, (answer) =>
          resolve({ jsonrpc: '2.0', id: request.id, ...answer }),
        ),
      );
    return this.isSettled ? send() : this.settled().then(send);
  }

  // ─── what editors change about the shared server ──────────────────────────────────────────────

  /** logging/setLevel from a session (already recorded on it): tells the server the merged level. */
  async applyLevel(): Promise<Reply> {
    const merged = this.#mergedLevel();
    if (merged === undefined || merged === this.#level) return { result: {} };
    const answer = await this.#send('logging/setLevel', { level: merged });
    if (!answer.error) this.#level = merged;
    return answer;
  }

  async subscribe(session: McpSession, uri: string): Promise<Reply> {
    if (!this.#subscribed.has(uri)) {
      const answer = await this.#send('resources/subscribe', { uri });
      if (answer.error) return answer;
      this.#subscribed.add(uri);
      this.#holdForSubscriptions();
    }
    uris(session, this.server).add(uri);
    return { result: {} };
  }

  async unsubscribe(session: McpSession, uri: string): Promise<Reply> {
    session.subscriptions.get(this.server)?.delete(uri);
    if (!this.#subscribed.has(uri) || this.#wanted(uri)) return { result: {} };
    this.#subscribed.delete(uri);
    const answer = await this.#send('resources/unsubscribe', { uri });
    this.#holdForSubscriptions();
    return answer;
  }

  /** A session ended: what only it wanted is given back, and the server learns its roots changed. */
  forget(session: McpSession): void {
    if (this.#closed) return;
    for (const uri of session.subscriptions.get(this.server) ?? []) {
      if (!this.#wanted(uri, session) && this.#subscribed.delete(uri))
        void this.#send('resources/unsubscribe', { uri });
    }
    this.#holdForSubscriptions();
    if (session.logLevel !== undefined) void this.applyLevel();
    if (session.capabilities.roots) this.rootsChanged();
  }

  /**
   * Resolves once the server has been given the roots of the sessions it serves now (see
   * #syncRoots); false when this connection ended meanwhile (the request belongs on the next one).
   */
  async settled(): Promise<boolean> {
    // A server that wants roots asks as soon as it is initialized: whatever it asked before this
    // ping's answer is answered before the first call goes out (one round trip, once per connection).
    if (!this.#closed)
      await (this.#firstTrip ??= this.#send('ping', undefined, { own: true }).then(() => {
        this.#firstTripDone = true;
      }));
    await this.#rootsSync?.done;
    return !this.#closed;
  }

  /** Whether settled() would resolve true at once: a request need not wait for anything. */
  get isSettled(): boolean {
    return this.#firstTripDone && this.#rootsSync === undefined && !this.#closed;
  }

  /** Some session's roots changed (or a session with roots came or went). */
  rootsChanged(): void {
    if (this.#closed) return;
    this.#rootsChanges += 1;
    if (this.#hub.usesRoots(this.server)) this.#syncRoots();
    void this.link.post({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }).catch(() => {});
  }

  /**
   * Until the server has asked for its roots again and been answered (or ROOTS_SYNC_MS passed: it
   * may not ask), editors' requests wait, so that none runs against the folders of before.
   */
  #syncRoots(): void {
    if (this.#rootsSync) return;
    let settle = () => {};
    const done = new Promise<void>((resolve) => (settle = resolve));
    const timer = setTimeout(() => this.#rootsSynced(), ROOTS_SYNC_MS);
    timer.unref();
    this.#rootsSync = {
      done,
      settle: () => {
        clearTimeout(timer);
        settle();
      },
    };
  }

  #rootsSynced(): void {
    const sync = this.#rootsSync;
    this.#rootsSync = undefined;
    sync?.settle();
  }

  /** The server is initialized on this connection: it gets what the sessions asked of its predecessor. */
  replay(): void {
    if (this.#replayed) return;
    this.#replayed = true;
    void this.applyLevel();
    const wanted = new Set<string>();
    for (const session of this.#sessions())
      for (const uri of session.subscriptions.get(this.server) ?? []) wanted.add(uri);
    for (const uri of wanted) {
      this.#subscribed.add(uri);
      void this.#send('resources/subscribe', { uri });
    }
    this.#holdForSubscriptions();
  }

  /** Holds the server up while anything is subscribed on this connection, and lets go after. */
  #holdForSubscriptions(): void {
    if (this.#subscribed.size > 0 && !this.#closed) this.#subscriptionHold ??= this.link.hold();
    else {
      this.#subscriptionHold?.();
      this.#subscriptionHold = undefined;
    }
  }

  // ─── from the server ──────────────────────────────────────────────────────────────────────────

  receive(message: JSONRPCMessage, related: RequestId | undefined): boolean {
    if (!('method' in message)) {
      const pending = this.#pending.get(String(message.id));
      if (pending) {
        this.#finish(
          String(message.id),
          'error' in message ? { error: message.error } : { result: (message as { result: unknown }).result },
        );
      }
      return true;
    }
    if ('id' in message) {
      void this.#serverRequest(message as JsonRpcRequest, related);
      return true;
    }
    return this.#notification(message as JsonRpcNotification, related);
  }

  fromEditor(id: RequestId): boolean {
    return this.#pending.get(String(id))?.session !== undefined;
  }

  disconnected(): void {
    this.#closed = true;
    this.#rootsSynced(); // what waited for roots goes to the next connection
    this.#holdForSubscriptions();
    for (const id of [...this.#pending.keys()]) {
      this.#finish(id, {
        error: {
          code: -32000,
          message: `MCP server "${this.server}" went away during the request (its connection closed); try again once it restarts`,
        },
      });
    }
    for (const askId of this.#asked.values()) this.#hub.cancelAsk(askId, 'the server went away');
    this.#asked.clear();
    this.#hub.detach(this);
  }

  async #serverRequest(request: JsonRpcRequest, related: RequestId | undefined): Promise<void> {
    const answer = (reply: Reply) =>
      void this.link.post({ jsonrpc: '2.0', id: request.id, ...reply } as JSONRPCMessage).catch(() => {});
    if (request.method === 'roots/list' && this.link.modern) {
      // A 2026 server asks only inside a call (input_required), never after a change: nothing to
      // sync or wait for before later calls.
      answer({ result: { roots: await this.#hub.rootsOf(this.#sessions(), this.server) } });
      return;
    }
    if (request.method === 'roots/list') {
      this.#hub.markUsesRoots(this.server);
      this.#syncRoots(); // calls wait for this answer
      const asked = this.#rootsChanges;
      const roots = await this.#hub.rootsOf(this.#sessions(), this.server);
      await this.link
        .post({ jsonrpc: '2.0', id: request.id, result: { roots } } as JSONRPCMessage)
        .catch(() => {});
      const hadRoots = this.#rootsGiven > 0;
      this.#rootsGiven = roots.length;
      // Roots changed again since it asked: it asks again (it was told), and calls wait for that.
      if (asked !== this.#rootsChanges) return;
      // The editors that gave it folders left. An empty list makes servers such as server-filesystem
      // keep the folders they had, the editors' before: it starts anew, with those it was started
      // with; calls waiting meanwhile go to the new process.
      if (hadRoots && roots.length === 0 && !this.#only) {
        this.link.renew?.();
        return;
      }
      // The server takes its new roots in on its own time (server-filesystem checks each folder
      // first): pings answered after the answer above let that happen before calls go on.
      if (this.#rootsSync)
        for (let i = 0; i < SETTLE_PINGS; i++) await this.#send('ping', undefined, { own: true });
      if (asked === this.#rootsChanges) this.#rootsSynced();
      return;
    }
    const owner = this.#asker(related);
    if (!owner?.session) {
      const refused = unsolicited(this.server, request);
      this.link.note?.(refused.note, 'warn');
      answer({ error: refused.error });
      return;
    }
    const session = owner.session;
    const refusal = unsupported(session, this.#hub.capabilities(session, owner.reply), request);
    if (refusal) {
      answer({ error: refusal });
      return;
    }
    const elicitationId = request.params?.elicitationId;
    if (request.method === 'elicitation/create' && typeof elicitationId === 'string')
      this.#elicitations.set(elicitationId, session);
    const params = attributed(request.method, request.params, this.server, session.target === null);
    const ask = this.#hub.ask(session, request.method, params, owner.reply);
    this.#asked.set(request.id, ask.id);
    const reply = await ask.done;
    this.#asked.delete(request.id);
    if (reply !== 'cancelled') answer(reply);
  }

  #notification(notification: JsonRpcNotification, related: RequestId | undefined): boolean {
    const params = notification.params ?? {};
    switch (notification.method) {
      case 'notifications/progress': {
        const pending = this.#pending.get(String(params.progressToken));
        if (!pending?.session || pending.progressToken === undefined) return true;
        pending.timer.refresh(); // progress resets the request's timeout
        deliver(
          pending.session,
          { ...notification, params: { ...params, progressToken: pending.progressToken } },
          pending.reply,
        );
        return true;
      }
      case 'notifications/message': {
        const level = typeof params.level === 'string' ? LEVELS.indexOf(params.level as LoggingLevel) : -1;
        for (const [session, via] of this.#concerned(related)) {
          const wanted = session.logLevel === undefined ? -1 : LEVELS.indexOf(session.logLevel);
          if (level >= wanted) deliver(session, notification, via);
        }
        return true;
      }
      case 'notifications/resources/updated': {
        const uri = params.uri;
        for (const session of this.#sessions())
          if (typeof uri === 'string' && session.subscriptions.get(this.server)?.has(uri))
            deliver(session, notification);
        return true;
      }
      case 'notifications/cancelled': {
        const askId = this.#asked.get(params.requestId as RequestId);
        if (askId !== undefined) this.#hub.cancelAsk(askId, params.reason);
        return true;
      }
      case 'notifications/elicitation/complete': {
        const id = String(params.elicitationId);
        const session = this.#elicitations.get(id);
        this.#elicitations.delete(id);
        for (const s of session ? [session] : this.#sessions()) deliver(s, notification);
        return true;
      }
      case 'notifications/tools/list_changed':
      case 'notifications/prompts/list_changed':
      case 'notifications/resources/list_changed':
        return false; // every session, and the supervisor's tool list: the endpoint's and runner's job
      default:
        for (const [session, via] of this.#concerned(related)) deliver(session, notification, via);
        return true;
    }
  }

  // ─── requests on the link ─────────────────────────────────────────────────────────────────────

  #send(method: string, params: Record<string, unknown> | undefined, from: SendFrom = {}): Promise<Reply> {
    return new Promise<Reply>((resolve) => this.#out(method, params, from, resolve));
  }

  /** Sends a request on the link; `settle` gets its answer (or why there is none) exactly once. */
  #out(
    method: string,
    params: Record<string, unknown> | undefined,
    from: SendFrom,
    settle: (reply: Reply) => void,
  ): void {
    if (this.#closed) {
      settle({
        error: {
          code: -32000,
          message: `MCP server "${this.server}" is not connected; try again once it restarts`,
        },
      });
      return;
    }
    const id = `${RELAYED_ID_PREFIX}${++this.#seq}`;
    const progressToken = from.session ? progressTokenOf(params) : undefined;
    // The server sees a token of ours (editors' tokens could clash on the one connection).
    const sent = progressToken === undefined ? params : withProgressToken(params, id);
    const { cancel } = from;
    const onAbort = (reason: string) => {
      void this.link
        .post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } })
        .catch(() => {});
      this.#finish(id, { error: { code: ErrorCodes.RequestCancelled, message: reason } });
    };
    const timeoutMs = this.#hub.requestTimeoutMs;
    const timer = setTimeout(() => {
      void this.link
        .post({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason: 'timed out' },
        })
        .catch(() => {});
      this.#finish(id, {
        error: {
          code: ErrorCodes.RequestTimeout,
          message: `Request timed out: MCP server "${this.server}" did not answer ${method} within ${formatDuration(timeoutMs)} (Switchboard's per-request timeout, reset by progress notifications), so Switchboard cancelled it; try again, and if it keeps happening see the server's log: switchboard logs ${this.server}`,
          data: { timeoutMs },
        },
      });
    }, timeoutMs);
    timer.unref();
    const pending: Pending = {
      session: from.session,
      reply: from.reply,
      method,
      progressToken,
      timer,
      // Switchboard's own round trips (pings) are no use of the server: it may go idle meanwhile.
      release: from.own ? noop : this.link.hold(),
      settle,
      stopListening: undefined,
    };
    this.#pending.set(id, pending);
    if (cancel?.reason !== undefined) return onAbort(cancel.reason);
    pending.stopListening = cancel?.onCancel(onAbort);
    this.link
      .post(
        { jsonrpc: '2.0', id, method, ...(sent ? { params: sent } : {}) } as JSONRPCMessage,
        // Only a 2026 server's transport reads these: the 2025 path allocates nothing more per call.
        from.session && this.link.modern
          ? {
              editorSpeaks2026: from.session.protocolVersion === MODERN_VERSION,
              editorCapabilities: editorCapabilitiesOf(params) ?? from.session.capabilities,
            }
          : undefined,
      )
      .catch((err: unknown) =>
        this.#finish(id, {
          error: {
            code: ErrorCodes.InternalError,
            message: `MCP server "${this.server}": ${err instanceof Error ? err.message : String(err)}`,
          },
        }),
      );
  }

  #finish(id: string, reply: Reply): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    pending.release();
    pending.stopListening?.();
    pending.settle(reply);
  }

  // ─── whose is it ──────────────────────────────────────────────────────────────────────────────

  /** The editor request a server message belongs to: the one it came with, else the latest sent. */
  #owner(related: RequestId | undefined): Pending | undefined {
    if (related !== undefined) {
      const pending = this.#pending.get(String(related));
      if (pending) return pending.session ? pending : undefined;
    }
    let latest: Pending | undefined;
    for (const pending of this.#pending.values()) if (pending.session) latest = pending;
    return latest;
  }

  /**
   * The editor request a server's own request (sampling, elicitation) belongs to; undefined when no
   * editor's request is in flight for it. Over Streamable HTTP that is exact: a request on a call's
   * stream belongs to that call while it is in flight, and one on the standalone stream to none (the
   * spec has servers send only what is unrelated to any request there). Elsewhere: see #owner.
   */
  #asker(related: RequestId | undefined): Pending | undefined {
    if (!this.link.marksRelated) return this.#owner(related);
    const pending = related === undefined ? undefined : this.#pending.get(String(related));
    return pending?.session ? pending : undefined;
  }

  /**
   * The sessions a notification about "what the server is doing" concerns, each with the answer
   * stream it can go on: the request it came with or, when nothing says, the request that reached
   * the server last (as for the server's own requests); with no request in flight, every session.
   */
  #concerned(related: RequestId | undefined): Map<McpSession, PostReply | undefined> {
    const targets = new Map<McpSession, PostReply | undefined>();
    const owner = this.#owner(related);
    if (owner?.session) return targets.set(owner.session, owner.reply);
    for (const session of this.#sessions()) targets.set(session, undefined);
    return targets;
  }

  #mergedLevel(): LoggingLevel | undefined {
    let merged: number | undefined;
    for (const session of this.#sessions()) {
      if (session.logLevel === undefined) continue;
      const rank = LEVELS.indexOf(session.logLevel);
      if (merged === undefined || rank < merged) merged = rank;
    }
    return merged === undefined ? undefined : LEVELS[merged];
  }

  /** Does any session (but `except`) still want updates of this URI? */
  #wanted(uri: string, except?: McpSession): boolean {
    for (const session of this.#sessions())
      if (session !== except && session.subscriptions.get(this.server)?.has(uri)) return true;
    return false;
  }
}

/** Why this editor cannot answer this server request (the words its own MCP client would use), if so. */
function unsupported(
  session: McpSession,
  caps: ClientCapabilities,
  request: Pick<JsonRpcRequest, 'method' | 'params'>,
): Reply['error'] {
  const who = `${session.clientInfo?.name ?? session.editor} (the editor this request is for)`;
  if (request.method === 'sampling/createMessage') {
    if (!caps.sampling)
      return {
        code: ErrorCodes.MethodNotFound,
        message: `Method not found: ${who} does not support sampling`,
      };
    if (request.params?.tools !== undefined && !caps.sampling.tools)
      return {
        code: ErrorCodes.InvalidParams,
        message: `${who} does not support tools in sampling requests`,
      };
  }
  if (request.method === 'elicitation/create') {
    const elicitation = caps.elicitation;
    if (!elicitation)
      return {
        code: ErrorCodes.MethodNotFound,
        message: `Method not found: ${who} does not support elicitation`,
      };
    const url = request.params?.mode === 'url';
    // An empty elicitation capability means form mode (the spec's backwards compatibility).
    const form = elicitation.form !== undefined || elicitation.url === undefined;
    if (url ? elicitation.url === undefined : !form)
      return {
        code: ErrorCodes.InvalidParams,
        message: `${who} does not support ${url ? 'URL' : 'form'}-mode elicitation requests`,
      };
  }
  return undefined;
}

function uris(session: McpSession, server: string): Set<string> {
  let set = session.subscriptions.get(server);
  if (!set) session.subscriptions.set(server, (set = new Set()));
  return set;
}

function progressTokenOf(params: Record<string, unknown> | undefined): string | number | undefined {
  const meta = params?._meta;
  if (typeof meta !== 'object' || meta === null || !('progressToken' in meta)) return undefined;
  const token = meta.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

function withProgressToken(
  params: Record<string, unknown> | undefined,
  token: string,
): Record<string, unknown> {
  const meta = params?._meta as Record<string, unknown> | undefined;
  return { ...params, _meta: { ...meta, progressToken: token } };
}
