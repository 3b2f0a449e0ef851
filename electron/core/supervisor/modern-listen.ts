import type { ClientCapabilities, Implementation, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { SUBSCRIPTION_ID_KEY } from '../../../shared/mcp-2026.ts';
import { backoffDelay } from './backoff.ts';
import {
  envelope,
  isObject,
  messagesOf,
  postSigned,
  type Connection,
  type Discovered,
} from './modern-wire.ts';

/**
 * Switchboard's `subscriptions/listen` stream to a remote server that speaks MCP 2026-07-28: the
 * only way such a server tells its client that a list or a resource changed. What arrives on it is
 * handed on as the notification a 2025 server would have sent (`notifications/tools/list_changed`,
 * `notifications/resources/updated`, …), so the list cache refreshes and editors of both eras are
 * told exactly as for a 2025 server.
 *
 * - It asks for the list changes the server's `server/discover` says it announces, and for updates
 *   of the resources editors subscribed to now (a listen's filter is fixed, so a change of those
 *   opens a new stream and ends the old one once the new one is acknowledged).
 * - A stream that drops (network, the server restarting, the server ending it) is opened again after
 *   a backoff (1 s doubling to 60 s, ±20 %; reset by an acknowledgement). Whatever changed while no
 *   stream was open is unknown, so a reopened stream announces every list it carries as changed and
 *   every subscribed resource as updated (editors re-read; nothing is missed).
 * - A server that refuses the listen with a JSON-RPC error (it does not serve it) is not asked again
 *   on this connection; nor is one that honoured nothing of the filter.
 */

const BACKOFF = {
  backoffInitialMs: 1_000,
  backoffMaxMs: 60_000,
  backoffJitter: 0.2,
  crashLoopFailures: Number.POSITIVE_INFINITY,
  crashLoopWindowMs: 0,
};

const LIST_CHANGES: [keyof Filter, string][] = [
  ['toolsListChanged', 'notifications/tools/list_changed'],
  ['promptsListChanged', 'notifications/prompts/list_changed'],
  ['resourcesListChanged', 'notifications/resources/list_changed'],
];
/** What a listen stream carries to Switchboard: the four kinds of change, nothing else. */
const CHANGES = new Set([...LIST_CHANGES.map(([, method]) => method), 'notifications/resources/updated']);

interface Filter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
}

interface Stream {
  id: string;
  controller: AbortController;
  /** what the server said it carries, once acknowledged */
  honored?: Filter;
  /** when it was acknowledged */
  since?: number;
  /** the stream it replaces: carries until this one is acknowledged, so no change falls between */
  previous?: Stream;
}

/** A stream that lasted this long was not a failure: the next drop waits the first delay again. */
const STABLE_MS = 30_000;
type Outcome = 'dropped' | 'refused' | 'empty';

export interface ListenOptions {
  connection: Connection;
  discovered: Discovered;
  /** what Switchboard's connection declared (its initialize), for the envelope */
  capabilities: () => ClientCapabilities;
  clientInfo: () => Implementation | undefined;
  /** a change, as the notification a 2025 server sends */
  emit: (message: JSONRPCMessage) => void;
}

export class ListenStream {
  readonly #options: ListenOptions;
  readonly #uris = new Set<string>();
  #current: Stream | undefined;
  #seq = 0;
  #failures = 0;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #started = false;
  #closed = false;
  /** the server does not serve listen (it refused it): not asked again */
  #refused = false;
  /** waiting for the acknowledgement of the stream now opening */
  #acknowledged: ((honored: Filter | undefined) => void)[] = [];

  constructor(options: ListenOptions) {
    this.#options = options;
  }

  /** Whether the server says it can send updates of a resource (`resources.subscribe`). */
  get subscribable(): boolean {
    return this.#options.discovered.capabilities.resources?.subscribe === true;
  }

  /** Opens the stream once the connection is initialized, if there is anything to listen for. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#open(false);
  }

  /**
   * An editor subscribed to `uri` (or gave it up): the stream is opened anew with it. Resolves with
   * whether the server's acknowledgement carries it (for a subscribe) once the new stream is open.
   */
  async resources(uri: string, wanted: boolean): Promise<boolean> {
    if (wanted === this.#uris.has(uri)) return true;
    if (wanted) this.#uris.add(uri);
    else this.#uris.delete(uri);
    if (this.#refused || this.#closed) return !wanted;
    const honored = new Promise<Filter | undefined>((resolve) => this.#acknowledged.push(resolve));
    this.#cancelRetry();
    this.#open(false);
    const filter = await honored;
    if (!wanted) return true;
    const taken = filter?.resourceSubscriptions?.includes(uri) ?? false;
    // Refused to the editor: the relay keeps no subscription, so none stays in the filter either.
    if (!taken) this.#uris.delete(uri);
    return taken;
  }

  close(): void {
    this.#closed = true;
    this.#cancelRetry();
    this.#current?.previous?.controller.abort();
    this.#current?.controller.abort();
    this.#current = undefined;
    this.#settle(undefined);
  }

  #filter(): Filter {
    const caps = this.#options.discovered.capabilities;
    return {
      ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(this.subscribable && this.#uris.size > 0 ? { resourceSubscriptions: [...this.#uris] } : {}),
    };
  }

  /** Opens a stream with today's filter; `reopened`: after a drop, so changes may have been missed. */
  #open(reopened: boolean): void {
    if (this.#closed || this.#refused) return;
    const filter = this.#filter();
    let previous = this.#current;
    // One not yet acknowledged carries nothing: it is replaced at once, what it replaced is kept.
    if (previous && previous.honored === undefined) {
      previous.controller.abort();
      previous = previous.previous;
    }
    if (Object.keys(filter).length === 0) {
      previous?.controller.abort();
      this.#current = undefined;
      this.#settle({});
      return;
    }
    const stream: Stream = { id: `listen:${++this.#seq}`, controller: new AbortController(), previous };
    this.#current = stream;
    void this.#read(stream, filter, reopened).then(
      (outcome) => this.#ended(stream, outcome),
      () => this.#ended(stream, 'dropped'),
    );
  }

  async #read(stream: Stream, filter: Filter, reopened: boolean): Promise<Outcome> {
    const { connection } = this.#options;
    const params = envelope(
      { notifications: filter },
      this.#options.capabilities(),
      this.#options.clientInfo(),
    );
    const message = { jsonrpc: '2.0', id: stream.id, method: 'subscriptions/listen', params };
    const response = await postSigned(
      connection,
      'subscriptions/listen',
      params,
      message,
      stream.controller.signal,
    );
    for await (const message of messagesOf(response)) {
      if (stream.controller.signal.aborted) return 'dropped';
      if (!('method' in message)) {
        // The listen's own response: the server ended the stream (or refused it: an error).
        if (message.id !== stream.id) continue;
        return 'error' in message ? 'refused' : 'dropped';
      }
      const method = message.method;
      const carried = isObject(message.params) ? message.params : {};
      if (method === 'notifications/subscriptions/acknowledged') {
        const honored = isObject(carried.notifications) ? (carried.notifications as Filter) : {};
        stream.honored = honored;
        stream.since = Date.now();
        // The stream it replaces carried until now: no gap between the two.
        stream.previous?.controller.abort();
        stream.previous = undefined;
        this.#settle(honored);
        if (reopened) this.#missed(honored);
        if (Object.keys(honored).length === 0) return 'empty';
        continue;
      }
      if (typeof method !== 'string' || !CHANGES.has(method) || stream.honored === undefined) continue;
      this.#options.emit({ jsonrpc: '2.0', method, params: withoutSubscription(carried) });
    }
    // A client error other than the credentials or a busy server: it does not serve listen here.
    const { status } = response;
    return status >= 400 && status < 500 && ![401, 403, 408, 429].includes(status) ? 'refused' : 'dropped';
  }

  /**
   * The stream ended: opened again after a backoff, unless the server does not serve listen (or
   * honoured nothing: asked again only when what to listen for changes).
   */
  #ended(stream: Stream, outcome: Outcome): void {
    stream.previous?.controller.abort();
    if (this.#current !== stream || this.#closed) return;
    this.#current = undefined;
    this.#settle(undefined);
    if (outcome === 'refused') this.#refused = true;
    if (outcome !== 'dropped') return;
    if (stream.since !== undefined && Date.now() - stream.since >= STABLE_MS) this.#failures = 0;
    const delay = backoffDelay(++this.#failures, BACKOFF);
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#open(true);
    }, delay);
    this.#retry.unref?.();
  }

  /** A reopened stream: whatever it carries may have changed while none was open. */
  #missed(honored: Filter): void {
    for (const [key, method] of LIST_CHANGES)
      if (honored[key]) this.#options.emit({ jsonrpc: '2.0', method });
    for (const uri of honored.resourceSubscriptions ?? [])
      this.#options.emit({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
  }

  #settle(honored: Filter | undefined): void {
    const waiting = this.#acknowledged;
    this.#acknowledged = [];
    for (const resolve of waiting) resolve(honored);
  }

  #cancelRetry(): void {
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    this.#retry = undefined;
  }
}

/** A change's params without the subscription id (Switchboard's own; editors get theirs stamped). */
function withoutSubscription(params: Record<string, unknown>): Record<string, unknown> | undefined {
  const meta = params._meta;
  if (!isObject(meta) || !(SUBSCRIPTION_ID_KEY in meta)) return params;
  const rest = Object.fromEntries(Object.entries(meta).filter(([key]) => key !== SUBSCRIPTION_ID_KEY));
  const others = { ...params };
  delete others._meta;
  return Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others;
}
