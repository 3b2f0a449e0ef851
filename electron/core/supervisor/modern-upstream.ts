import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  ClientCapabilities,
  Implementation,
  JSONRPCMessage,
  MessageExtraInfo,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { ListenStream } from './modern-listen.ts';
import { markRelated } from './related-streams.ts';
import type { RelaySendOptions } from './upstream-link.ts';
import { MAX_REQUEST_STATE, openServerState, sealServerState } from './upstream-state.ts';
import { envelope, isObject, post, type Connection, type Discovered, type Reply } from './modern-wire.ts';

/**
 * Switchboard's side of a remote server that speaks MCP 2026-07-28 (stateless Streamable HTTP): no
 * initialize, no session, every request a POST of its own with the per-request `_meta` envelope and
 * the `MCP-Protocol-Version`/`Mcp-Method`/`Mcp-Name` headers. It is an SDK 1.x Transport, so the rest
 * of Switchboard (the SDK client that lists, the bridge's raw relay) is the same for both eras:
 *
 * - Switchboard's initialize is answered here from the server's `server/discover` (the probe that
 *   chose this era); `notifications/initialized`, `ping`, `logging/setLevel` and
 *   `notifications/roots/list_changed` do not exist in 2026 and go nowhere (ping and setLevel are
 *   answered empty: the server is neither pinged nor told a level).
 * - Its list changes and resource updates come on a `subscriptions/listen` stream opened once the
 *   connection is initialized (modern-listen.ts) and go on as a 2025 server's notifications; a
 *   `resources/subscribe` names the resource on that stream.
 * - An editor's request tells the server that editor's own capabilities (RelaySendOptions), so the
 *   server asks only for input that editor can give; Switchboard's own requests (lists) say what its
 *   initialize declared.
 * - A request the editor cancels (or that times out) is ended by closing its HTTP request.
 * - `input_required` (MRTR): each input request goes to the bridge as the server's own request
 *   (elicitation/create, sampling/createMessage, roots/list) marked as belonging to the call, so the
 *   bridge's rules hold as for a 2025 server (in flight only, named, the editor's capabilities); the
 *   answers go back as the retry, with the server's `requestState` as it came (never parsed, at most
 *   MAX_REQUEST_STATE). For an editor that speaks 2026 itself, the input_required goes to it as it is,
 *   its state sealed to this server (upstream-state.ts).
 */

/** Rounds of input_required on one call before Switchboard gives up on it (a server asking forever). */
const MAX_ROUNDS = 8;
/** Input requests in one input_required at most. */
const MAX_INPUTS = 16;
/** What a server may put in an input_required: requests Switchboard can put to an editor. */
const INPUT_METHODS = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list']);

interface InFlight {
  controller: AbortController;
  /** the input requests of this call now with an editor */
  asks: Set<string>;
}

export class ModernHttpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  readonly sessionId = undefined;
  /** read by UpstreamLink.modern */
  readonly modern = true;

  readonly #server: string;
  readonly #connection: Connection;
  readonly #discovered: Discovered;
  readonly #tagKey: string;
  #capabilities: ClientCapabilities = {};
  #clientInfo: Implementation | undefined;
  readonly #inflight = new Map<string, InFlight>();
  /** input requests put to an editor: their id → what takes the editor's answer */
  readonly #asks = new Map<string, (reply: Reply) => void>();
  #askSeq = 0;
  #closed = false;
  /** how the server tells of changes: list changes and resource updates (modern-listen.ts) */
  readonly #listen: ListenStream;

  constructor(server: string, connection: Connection, discovered: Discovered, tagKey: string) {
    this.#server = server;
    this.#connection = connection;
    this.#discovered = discovered;
    this.#tagKey = tagKey;
    this.#listen = new ListenStream({
      connection,
      discovered,
      capabilities: () => this.#capabilities,
      clientInfo: () => this.#clientInfo,
      emit: (message) => this.#emit(message),
    });
  }

  async start(): Promise<void> {}

  send(message: JSONRPCMessage, options?: RelaySendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('Not connected'));
    if (!('method' in message)) {
      // An editor's answer to one of the input requests.
      const take = this.#asks.get(String(message.id));
      this.#asks.delete(String(message.id));
      take?.(
        'error' in message ? { error: message.error } : { result: message.result as Record<string, unknown> },
      );
      return Promise.resolve();
    }
    if (!('id' in message)) {
      if (message.method === 'notifications/cancelled') {
        const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        if (id !== undefined) this.#abort(String(id));
      }
      // Initialized: from now on the server's changes are listened to, as a 2025 server sends them.
      if (message.method === 'notifications/initialized') this.#listen.start();
      return Promise.resolve(); // roots/list_changed: nothing of the kind in 2026
    }
    const { id, method } = message;
    const params = message.params as Record<string, unknown> | undefined;
    switch (method) {
      case 'initialize':
        this.#capabilities = (params?.capabilities as ClientCapabilities | undefined) ?? {};
        this.#clientInfo = params?.clientInfo as Implementation | undefined;
        this.#answer(id, {
          result: {
            protocolVersion: params?.protocolVersion,
            capabilities: this.#discovered.capabilities,
            serverInfo: this.#discovered.serverInfo,
            ...(this.#discovered.instructions === undefined
              ? {}
              : { instructions: this.#discovered.instructions }),
          },
        });
        return Promise.resolve();
      case 'ping':
      case 'logging/setLevel':
        this.#answer(id, { result: {} });
        return Promise.resolve();
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        void this.#subscribe(id, method === 'resources/subscribe', params?.uri);
        return Promise.resolve();
      default:
        void this.#call(id, method, params, options ?? {});
        return Promise.resolve();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listen.close();
    for (const key of [...this.#inflight.keys()]) this.#abort(key);
    this.onclose?.();
  }

  /** A resource subscription: the server's listen stream names the resource (2026 has no subscribe). */
  async #subscribe(id: RequestId, wanted: boolean, uri: unknown): Promise<void> {
    if (typeof uri !== 'string') {
      this.#answer(id, { error: { code: -32602, message: 'Invalid params: uri must be a string' } });
      return;
    }
    if (wanted && !this.#listen.subscribable) {
      this.#answer(id, {
        error: {
          code: -32601,
          message: `MCP server "${this.#server}" does not send resource updates (its server/discover declares no resources.subscribe); read the resource again instead`,
        },
      });
      return;
    }
    if (await this.#listen.resources(uri, wanted)) this.#answer(id, { result: {} });
    else
      this.#answer(id, {
        error: {
          code: -32603,
          message: `MCP server "${this.#server}" did not take a subscription to ${uri} on its subscriptions/listen stream; read the resource again instead`,
        },
      });
  }

  /** A request to the server, with its rounds of input_required until it is complete. */
  async #call(
    id: RequestId,
    method: string,
    given: Record<string, unknown> | undefined,
    { editorSpeaks2026 = false, editorCapabilities }: RelaySendOptions,
  ): Promise<void> {
    // The editor's own capabilities when the request is an editor's; Switchboard's declared ones else.
    const capabilities = editorCapabilities ?? this.#capabilities;
    const key = String(id);
    const flight: InFlight = { controller: new AbortController(), asks: new Set() };
    this.#inflight.set(key, flight);
    const { signal } = flight.controller;
    try {
      let params = given;
      // A state an editor gives back must be one Switchboard sealed for this server (see upstream-state.ts).
      if (params?.requestState !== undefined) {
        const opened = openServerState(this.#server, params.requestState);
        if (opened === undefined) {
          this.#answer(id, {
            error: {
              code: -32602,
              message: `Invalid params: this requestState was not handed out by MCP server "${this.#server}" through Switchboard (or Switchboard restarted since); start the call again without it`,
            },
          });
          return;
        }
        params =
          opened.state === undefined ? without(params, STATE_KEY) : { ...params, requestState: opened.state };
      }
      for (let round = 0; ; round++) {
        const reply = await post(
          this.#connection,
          id,
          method,
          envelope(params, capabilities, this.#clientInfo),
          signal,
          (note) => this.#emit(note, id),
        );
        if (signal.aborted) return;
        if ('error' in reply || reply.result.resultType !== 'input_required') {
          this.#answer(id, 'error' in reply ? reply : { result: complete(reply.result) });
          return;
        }
        const input = inputRequired(this.#server, reply.result);
        if ('error' in input) {
          this.#answer(id, input);
          return;
        }
        if (editorSpeaks2026) {
          // Sealed even when the server gave no state: the editor's retry then still carries one
          // of this form back, and so comes to this server (not to Switchboard's own MRTR).
          this.#answer(id, {
            result: { ...reply.result, requestState: sealServerState(this.#server, input.state) },
          });
          return;
        }
        if (round + 1 >= MAX_ROUNDS) {
          this.#answer(id, {
            error: {
              code: -32603,
              message: `MCP server "${this.#server}" asked for input ${MAX_ROUNDS} times on one ${method} without finishing it; Switchboard stopped the call`,
            },
          });
          return;
        }
        const responses = await this.#askEditor(id, input.requests, flight);
        if (signal.aborted) return;
        if ('error' in responses) {
          this.#answer(id, responses);
          return;
        }
        const rest = without(given, RETRY_KEYS);
        params = {
          ...rest,
          inputResponses: responses.result,
          ...(input.state === undefined ? {} : { requestState: input.state }),
        };
      }
    } catch (err) {
      if (signal.aborted || this.#closed) return;
      this.#answer(id, {
        error: {
          code: -32000,
          message: `MCP server "${this.#server}" could not be reached for ${method}: ${err instanceof Error ? err.message : String(err)}`,
        },
      });
    } finally {
      this.#inflight.delete(key);
    }
  }

  /**
   * Puts each input request to the bridge as the server's own request, marked as belonging to call
   * `related` (the bridge's in-flight rule and its naming of the server apply); all answers, or the
   * first refusal.
   */
  async #askEditor(
    related: RequestId,
    requests: [string, { method: string; params: Record<string, unknown> | undefined }][],
    flight: InFlight,
  ): Promise<{ result: Record<string, unknown> } | Extract<Reply, { error: unknown }>> {
    const replies = await Promise.all(
      requests.map(
        ([name, request]) =>
          new Promise<[string, string, Reply]>((resolve) => {
            const id = `mrtr:${++this.#askSeq}`;
            flight.asks.add(id);
            this.#asks.set(id, (reply) => {
              flight.asks.delete(id);
              resolve([name, request.method, reply]);
            });
            const params: Record<string, unknown> = { ...request.params };
            // 2025 editors need an id for a URL-mode elicitation; 2026 has none.
            if (request.method === 'elicitation/create' && params.mode === 'url') params.elicitationId ??= id;
            this.#emit({ jsonrpc: '2.0', id, method: request.method, params }, related);
          }),
      ),
    );
    const result: Record<string, unknown> = {};
    for (const [name, method, reply] of replies) {
      if ('error' in reply)
        return {
          error: {
            code: reply.error.code,
            message: `MCP server "${this.#server}" needs input the editor did not give (${method}): ${reply.error.message}`,
          },
        };
      result[name] = reply.result;
    }
    return { result };
  }

  /** Ends a call: its HTTP request is closed, and what it asked an editor is withdrawn. */
  #abort(key: string): void {
    const flight = this.#inflight.get(key);
    if (!flight) return;
    this.#inflight.delete(key);
    flight.controller.abort();
    for (const id of flight.asks) {
      this.#emit({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: id, reason: 'cancelled' },
      });
      this.#asks.get(id)?.({ error: { code: -32800, message: 'cancelled' } });
      this.#asks.delete(id);
    }
  }

  #answer(id: RequestId, reply: Reply): void {
    queueMicrotask(() => {
      if (!this.#closed) this.onmessage?.({ jsonrpc: '2.0', id, ...reply } as JSONRPCMessage);
    });
  }

  /** A server message about call `related` (or about none). */
  #emit(message: JSONRPCMessage, related?: RequestId): void {
    if (this.#closed) return;
    if (related !== undefined && 'method' in message)
      markRelated(message as { params?: Record<string, unknown> }, this.#tagKey, related);
    this.onmessage?.(message);
  }
}

/** The input requests and state of an input_required result, checked; or why it is refused. */
function inputRequired(
  server: string,
  result: Record<string, unknown>,
):
  | {
      requests: [string, { method: string; params: Record<string, unknown> | undefined }][];
      state: string | undefined;
    }
  | Extract<Reply, { error: unknown }> {
  const refuse = (why: string) => ({
    error: {
      code: -32603,
      message: `MCP server "${server}" sent an input_required Switchboard cannot use: ${why}`,
    },
  });
  const state = result.requestState;
  if (state !== undefined && typeof state !== 'string') return refuse('its requestState is not a string');
  if (typeof state === 'string' && state.length > MAX_REQUEST_STATE)
    return refuse(`its requestState is over ${MAX_REQUEST_STATE / 1024} KiB`);
  const asked = result.inputRequests ?? {};
  if (!isObject(asked)) return refuse('inputRequests is not an object');
  const requests: [string, { method: string; params: Record<string, unknown> | undefined }][] = [];
  for (const [name, request] of Object.entries(asked)) {
    if (!isObject(request) || typeof request.method !== 'string' || !INPUT_METHODS.has(request.method))
      return refuse(`input request "${name}" is not an elicitation, sampling or roots request`);
    const params = request.params;
    if (params !== undefined && !isObject(params))
      return refuse(`input request "${name}" has no params object`);
    requests.push([name, { method: request.method, params }]);
  }
  if (requests.length > MAX_INPUTS) return refuse(`it asks for more than ${MAX_INPUTS} inputs at once`);
  if (requests.length === 0 && state === undefined) return refuse('it asks for nothing');
  return { requests, state };
}

/** A complete result as a 2025 reader takes it: without the 2026 wire's own fields. */
function complete(result: Record<string, unknown>): Record<string, unknown> {
  return without(result, WIRE_KEYS);
}

/** The keys of a retry that Switchboard fills (an editor's own are replaced). */
const RETRY_KEYS: ReadonlySet<string> = new Set(['inputResponses', 'requestState']);
const STATE_KEY: ReadonlySet<string> = new Set(['requestState']);
/** The 2026 wire's own fields of a result. */
const WIRE_KEYS: ReadonlySet<string> = new Set(['resultType', 'ttlMs', 'cacheScope']);

function without(
  object: Record<string, unknown> | undefined,
  keys: ReadonlySet<string>,
): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object ?? {})) if (!keys.has(key)) rest[key] = value;
  return rest;
}
