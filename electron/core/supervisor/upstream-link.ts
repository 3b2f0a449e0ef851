import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  ClientCapabilities,
  JSONRPCMessage,
  JSONRPCNotification,
  MessageExtraInfo,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { takeRelatedTag } from './related-streams.ts';

const LIST_CHANGED = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
]);

/**
 * Requests the bridge relays carry string ids with this prefix; the SDK client's own (initialize,
 * ping, tools/list) are numbers. Answers are told apart by that alone.
 */
export const RELAYED_ID_PREFIX = 'sb:';

/** What the bridge says about a relayed request to the transport that carries it. */
export interface RelaySendOptions extends TransportSendOptions {
  /**
   * The editor speaks 2026-07-28: a 2026 server's input_required goes to it as it is (its state
   * wrapped), not turned into an elicitation or sampling request (modern-upstream.ts).
   */
  editorSpeaks2026?: boolean;
  /**
   * What the editor whose request this is can do: a 2026 server is told it in that request's
   * envelope (instead of what Switchboard's connection declared), so it asks only for input that
   * editor can give.
   */
  editorCapabilities?: ClientCapabilities;
}

/** Takes a server's messages meant for editors (see UpstreamLink). */
export interface LinkReceiver {
  /**
   * A message from the server that is not an answer to Switchboard's own client: answers to relayed
   * requests, the server's requests to its client (sampling, elicitation, roots) and notifications.
   * `related` is the id of the request on whose HTTP response stream it came, when known. Returns
   * false to let Switchboard's own client see it too (list_changed: the supervisor refreshes tools).
   */
  receive(message: JSONRPCMessage, related: RequestId | undefined): boolean;
  /** The connection ended (stopped, crashed, restarted). */
  disconnected(): void;
  /** Whether this id is of an editor's request relayed now (not one of Switchboard's own). */
  fromEditor?(id: RequestId): boolean;
}

/** The bridge: gets every new connection to a server before its initialize is sent. */
export interface UpstreamPeer {
  attach(server: string, link: UpstreamLink): LinkReceiver;
}

/**
 * Switchboard's connection to one server, shared by two users: the SDK client that the supervisor
 * drives (initialize, ping, tools/list) connects through it as its transport, and the bridge sends
 * editors' messages on it raw, with its own ids, so that nothing of what an editor and the server say
 * to each other is parsed, reshaped or dropped on the way. Every server message passes the receiver
 * first, synchronously and in order (a progress notification is routed before the answer after it).
 */
export class UpstreamLink implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  readonly #inner: Transport;
  readonly #tagKey: string | undefined;
  #receiver: LinkReceiver | undefined;
  #closed = false;
  /** set by the runner once the server runs: marks the server in use (see ServerRunner.hold) */
  holder: (() => () => void) | undefined;
  /**
   * set by the runner: starts the server anew as soon as no request is in flight (the bridge asks
   * when the editors that gave it roots left: it then has the folders it was started with again)
   */
  renew: (() => void) | undefined;
  /**
   * set by the runner: takes the server's `notifications/…/list_changed` (instead of the SDK client)
   * with the id of the request on whose answer it came, when known — an announcement on the answer
   * to Switchboard's own list request is no reason to list again (see ListRefresh)
   */
  onListChanged: ((notification: JSONRPCNotification, related: RequestId | undefined) => void) | undefined;
  /** set by the runner: a line in the server's log (what the bridge refused of the server, and why) */
  note: ((text: string, level: 'info' | 'warn' | 'error') => void) | undefined;

  /** `tagKey`: the key under which an HTTP transport's fetch marks related messages (related-streams.ts). */
  constructor(inner: Transport, tagKey?: string) {
    this.#inner = inner;
    this.#tagKey = tagKey;
  }

  set receiver(receiver: LinkReceiver | undefined) {
    this.#receiver = receiver;
  }

  /**
   * Whether the server's messages say which request they belong to (Streamable HTTP: those on a POST's
   * stream are marked, so one without a mark came on the standalone stream and belongs to none).
   */
  get marksRelated(): boolean {
    return this.#tagKey !== undefined;
  }

  /**
   * A Streamable HTTP connection the server gave no session (no Mcp-Session-Id): every request stands
   * alone, and nothing is kept between them that a health ping could find lost.
   */
  get stateless(): boolean {
    return this.#tagKey !== undefined && this.#inner.sessionId === undefined;
  }

  /**
   * The server speaks MCP 2026-07-28 (modern-upstream.ts): it asks its client for anything (roots,
   * input) only inside a call, as input_required.
   */
  get modern(): boolean {
    return (this.#inner as { modern?: unknown }).modern === true;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  async start(): Promise<void> {
    this.#inner.onmessage = (message, extra) => this.#onMessage(message, extra);
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => {
      if (this.#closed) return;
      this.#closed = true;
      this.#receiver?.disconnected();
      this.onclose?.();
    };
    await this.#inner.start();
  }

  /** The SDK client's own messages. */
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#inner.send(message, options);
  }

  /**
   * Marks the server in use until the returned function is called (a request in flight, a
   * subscription): it does not go idle meanwhile.
   */
  hold(): () => void {
    return this.holder?.() ?? (() => {});
  }

  /** A message the bridge sends on an editor's behalf (relayed request, answer, notification). */
  post(message: JSONRPCMessage, options?: RelaySendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('Not connected'));
    return this.#inner.send(message, options);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Whether a message that came with the answer to request `related` came with an editor's request
   * (else: one of Switchboard's own, its SDK client's or the bridge's pings and settings).
   */
  fromEditor(related: RequestId | undefined): boolean {
    return related !== undefined && this.#receiver?.fromEditor?.(related) === true;
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #onMessage(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    const related =
      this.#tagKey !== undefined && 'method' in message ? takeRelatedTag(message, this.#tagKey) : undefined;
    const receiver = this.#receiver;
    if (receiver) {
      if (!('method' in message)) {
        if (typeof message.id === 'string' && message.id.startsWith(RELAYED_ID_PREFIX)) {
          receiver.receive(message, undefined);
          return;
        }
      } else if (!('id' in message && message.method === 'ping') && receiver.receive(message, related)) {
        return;
      }
    }
    if (this.onListChanged && !('id' in message) && 'method' in message && LIST_CHANGED.has(message.method)) {
      this.onListChanged(message, related);
      return;
    }
    this.onmessage?.(message, extra);
  }
}
