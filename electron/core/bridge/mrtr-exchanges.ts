import { randomBytes } from 'node:crypto';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { isServerState } from '../supervisor/upstream-state.ts';
import { formatDuration } from '../supervisor/wording.ts';
import { errorResponse, ErrorCodes, type JsonRpcRequest, type JsonRpcResponse } from './json-rpc.ts';
import { StateSigner } from './mrtr-state.ts';
import type { PostReply } from './post-reply.ts';
import type { RequestCancel } from './request-cancel.ts';
import { SERVER_META_KEY } from './server-attribution.ts';
import type { AskReply } from './server-relay.ts';

/**
 * Multi round-trip requests (MRTR, 2026-07-28) on the editors' side. A server that speaks 2025 asks
 * its client things during a call (elicitation/create, sampling/createMessage) with requests of its
 * own; a 2026 client answers such things only as `input_required`. So while a 2026 client's
 * tools/call, prompts/get or resources/read is relayed, the server's requests for it are held here
 * (the call stays in flight at the server), and the client's request is answered with
 * `resultType: "input_required"`, the held requests as `inputRequests` (each still naming its server,
 * server-attribution.ts) and a `requestState` (mrtr-state.ts). The client's retry of the same request
 * carries `inputResponses`: each answers its held request, and the retry's answer is the rest of the
 * call (which may need input again: another round).
 *
 * What the server says about the call after the first round (progress, logs) goes on the latest
 * retry's answer (PostReply.forwardTo), progress under that retry's own progress token.
 *
 * Held calls are bounded (per token) and wait for their retry at most `inputTimeoutMs`: then every
 * held request gets an error and the call is cancelled at the server.
 */

/** The requests whose results may be `input_required` in 2026-07-28. */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set([
  'tools/call',
  'prompts/get',
  'resources/read',
]);
/** Calls one token may have waiting for input at once; past it, a server's further request is refused. */
export const MAX_HELD_CALLS_PER_EDITOR = 32;
/** Requests one call may have waiting for the client at once. */
export const MAX_ASKS_PER_CALL = 16;
/** How long a server's requests of one round are gathered into one input_required (they often come together). */
const GATHER_MS = 5;

interface HeldAsk {
  server: string;
  method: string;
  params: Record<string, unknown> | undefined;
  settle: (reply: AskReply) => void;
}

/** One 2026 call that may need input, from its first request to its last answer. */
interface Exchange {
  /** random, unguessable; '' until the call first needs input */
  id: string;
  editor: string;
  endpoint: string;
  method: string;
  name: string;
  capabilities: ClientCapabilities;
  cancel: RequestCancel;
  /** the first request's answer: the relay sends what the server says about the call to it */
  reply: PostReply;
  /** the round the last state issued answers; a state of another round is spent or not yet issued */
  round: number;
  /** what the server asked and the client has not answered, by input key */
  asks: Map<string, HeldAsk>;
  /** the call's answer, once the server gave it */
  final: JsonRpcResponse | undefined;
  /** the client's request now waiting for this call (first or a retry), woken by an ask or the answer */
  wake: (() => void) | undefined;
  /** held in #byId (it issued a state), waiting for a retry until this timer */
  timer: NodeJS.Timeout | undefined;
  seq: number;
}

export interface MrtrOptions {
  /** how long a held call waits for the client's retry */
  inputTimeoutMs: number;
  /** may this token still reach this server (checked again on every retry) */
  allowed: (editor: string, server: string) => boolean;
}

/** What a 2026 request says that MRTR needs: who sent it, where, and what it continues. */
export interface Leg {
  editor: string;
  /** the endpoint: a server's name, or null for /mcp */
  target: string | null;
  request: JsonRpcRequest;
  capabilities: ClientCapabilities;
}

export class MrtrExchanges {
  readonly #signer = new StateSigner();
  readonly #options: MrtrOptions;
  /** each 2026 call by its first request's answer: the relay passes that answer's reply with a server's ask */
  readonly #byReply = new WeakMap<PostReply, Exchange>();
  /** calls that issued a requestState, by their id, until they end or their state expires */
  readonly #byId = new Map<string, Exchange>();
  /** the hub's ask ids of held requests: a server that withdraws one withdraws it here */
  readonly #askIds = new Map<string, { exchange: Exchange; key: string }>();
  #askSeq = 0;

  constructor(options: MrtrOptions) {
    this.#options = options;
  }

  /**
   * Whether a 2026 request is a retry carrying input (or a state) back to Switchboard. A retry whose
   * state a 2026 server minted (sealed to it, supervisor/upstream-state.ts) is not: it goes to that
   * server like any request, and the server's transport checks the seal.
   */
  static isRetry(request: JsonRpcRequest): boolean {
    const state = request.params?.requestState;
    if (isServerState(state)) return false;
    return state !== undefined || request.params?.inputResponses !== undefined;
  }

  /**
   * A 2026 client's first request of a call that may need input: `call` is its relay. Resolves with
   * what this request is answered: the call's answer, or input_required with what the server asked.
   */
  start(
    leg: Leg,
    reply: PostReply,
    cancel: RequestCancel,
    call: Promise<JsonRpcResponse>,
  ): Promise<JsonRpcResponse> {
    const exchange: Exchange = {
      id: '', // made when it first issues a state: most calls never ask for input
      editor: leg.editor,
      endpoint: leg.target ?? '',
      method: leg.request.method,
      name: nameOf(leg.request),
      capabilities: leg.capabilities,
      cancel,
      reply,
      round: 0,
      asks: new Map(),
      final: undefined,
      wake: undefined,
      timer: undefined,
      seq: 0,
    };
    this.#byReply.set(reply, exchange);
    const ended = (response: JsonRpcResponse) => {
      exchange.final = response;
      // The call is over: whatever it still had asked is moot (the server stopped waiting).
      for (const key of [...exchange.asks.keys()])
        this.#settleAsk(exchange, key, {
          error: { code: ErrorCodes.RequestCancelled, message: 'the call this request belonged to ended' },
        });
      exchange.wake?.();
    };
    call.then(ended, (err: unknown) =>
      ended(
        errorResponse(
          leg.request.id,
          ErrorCodes.InternalError,
          `Switchboard could not relay ${leg.request.method}: ${err instanceof Error ? err.message : String(err)}`,
        ),
      ),
    );
    return this.#next(exchange, leg.request);
  }

  /**
   * A retry: its state is checked (signature, expiry, token, endpoint, request, round) before
   * anything of it is used; a refused one reaches no server. Resolves with what the retry is answered.
   */
  resume(
    leg: Leg,
    reply: PostReply,
  ): { cancel: RequestCancel | undefined; response: Promise<JsonRpcResponse> } {
    const { request } = leg;
    const refuse = (why: string) => ({
      cancel: undefined,
      response: Promise.resolve(
        errorResponse(
          request.id,
          ErrorCodes.InvalidParams,
          `Invalid requestState: ${why}. Send the request again without requestState and inputResponses to start over.`,
        ),
      ),
    });
    const state = request.params?.requestState;
    const responses = request.params?.inputResponses;
    if (typeof state !== 'string')
      return refuse('inputResponses came without the requestState Switchboard gave with them');
    if (responses !== undefined && !isPlainObject(responses))
      return refuse('inputResponses must be an object of responses by input key');
    const checked = this.#signer.verify(state);
    if (!checked.ok) return refuse(checked.reason);
    const claims = checked.claims;
    if (claims.editor !== leg.editor) return refuse('it was issued to another editor token');
    if (claims.endpoint !== (leg.target ?? '')) return refuse('it was issued on another endpoint');
    if (claims.method !== request.method || claims.name !== nameOf(request))
      return refuse(`it continues ${claims.method} ${JSON.stringify(claims.name)}, not this request`);
    const exchange = this.#byId.get(claims.call);
    if (!exchange) return refuse('the call it continues has ended');
    if (claims.round !== exchange.round)
      return refuse('it was already used (each requestState answers one round, once)');
    for (const server of claims.servers)
      if (!this.#options.allowed(leg.editor, server))
        return refuse(`this token may no longer reach server "${server}"`);
    // Spent from here: the next round gets a state of its own.
    exchange.round += 1;
    clearTimeout(exchange.timer);
    exchange.timer = undefined;
    exchange.capabilities = leg.capabilities;
    // The server's progress and logs about the call go on this retry's answer from now on.
    exchange.reply.forwardTo(reply, progressTokenOf(request));
    const given = (responses ?? {}) as Record<string, unknown>;
    for (const key of claims.keys) {
      const answer = given[key];
      // A key left unanswered is asked again in the next round.
      if (isPlainObject(answer)) this.#settleAsk(exchange, key, { result: answer });
    }
    return { cancel: exchange.cancel, response: this.#next(exchange, request) };
  }

  /** The capabilities a server's request is judged by when it comes during a 2026 call. */
  capabilities(via: PostReply | undefined): ClientCapabilities | undefined {
    return via && this.#byReply.get(via)?.capabilities;
  }

  /**
   * A server's request during a 2026 call (the relay found the call in flight, and the client
   * declared what it needs): held for the client's next input_required. Undefined when `via` is no
   * 2026 call's (the 2025 path takes it).
   */
  ask(
    via: PostReply | undefined,
    method: string,
    params: Record<string, unknown> | undefined,
  ): { id: string; done: Promise<AskReply> } | undefined {
    const exchange = via && this.#byReply.get(via);
    if (!exchange) return undefined;
    const id = `sb-input:${++this.#askSeq}`;
    const refused = (message: string) => ({
      id,
      done: Promise.resolve<AskReply>({ error: { code: ErrorCodes.InternalError, message } }),
    });
    if (exchange.final !== undefined) return refused('the call this request belongs to has ended');
    if (exchange.asks.size >= MAX_ASKS_PER_CALL)
      return refused(
        `Switchboard holds at most ${MAX_ASKS_PER_CALL} requests of one call for its editor at once`,
      );
    if (!this.#byId.has(exchange.id) && this.#heldBy(exchange.editor) >= MAX_HELD_CALLS_PER_EDITOR)
      return refused(
        `editor "${exchange.editor}" already has ${MAX_HELD_CALLS_PER_EDITOR} calls waiting for its input; answer those first`,
      );
    const meta = params?._meta as Record<string, unknown> | undefined;
    const server = typeof meta?.[SERVER_META_KEY] === 'string' ? meta[SERVER_META_KEY] : '';
    const key = `${server}:${++exchange.seq}`;
    const done = new Promise<AskReply>((settle) => {
      exchange.asks.set(key, { server, method, params, settle });
    });
    this.#askIds.set(id, { exchange, key });
    exchange.wake?.();
    return { id, done };
  }

  /** The server withdrew a held request: it is no longer offered; false when it is not one held here. */
  cancelAsk(id: string): boolean {
    const held = this.#askIds.get(id);
    if (!held) return false;
    this.#settleAsk(held.exchange, held.key, 'cancelled');
    return true;
  }

  #heldBy(editor: string): number {
    let n = 0;
    for (const exchange of this.#byId.values()) if (exchange.editor === editor) n += 1;
    return n;
  }

  #settleAsk(exchange: Exchange, key: string, reply: AskReply): void {
    const ask = exchange.asks.get(key);
    if (!ask) return;
    exchange.asks.delete(key);
    for (const [id, held] of this.#askIds)
      if (held.exchange === exchange && held.key === key) this.#askIds.delete(id);
    ask.settle(reply);
  }

  /**
   * What the client's request now waiting (first or retry) is answered: the call's answer under this
   * request's id once the server gave it, else, once the server asked something, input_required.
   */
  #next(exchange: Exchange, request: JsonRpcRequest): Promise<JsonRpcResponse> {
    return new Promise<JsonRpcResponse>((resolve) => {
      let gathering: NodeJS.Timeout | undefined;
      const check = () => {
        if (exchange.final !== undefined) {
          clearTimeout(gathering);
          exchange.wake = undefined;
          this.#end(exchange);
          resolve({ ...exchange.final, id: request.id });
          return;
        }
        if (exchange.asks.size === 0 || gathering) return;
        gathering = setTimeout(() => {
          exchange.wake = undefined;
          if (exchange.final !== undefined) return check();
          resolve(this.#inputRequired(exchange, request));
        }, GATHER_MS);
      };
      exchange.wake = check;
      check();
    });
  }

  /** The input_required answer with every held request, and a state for this round; the wait starts. */
  #inputRequired(exchange: Exchange, request: JsonRpcRequest): JsonRpcResponse {
    const { inputTimeoutMs } = this.#options;
    const inputRequests: Record<string, { method: string; params?: Record<string, unknown> }> = {};
    const servers = new Set<string>();
    for (const [key, ask] of exchange.asks) {
      inputRequests[key] = { method: ask.method, ...(ask.params ? { params: ask.params } : {}) };
      servers.add(ask.server);
    }
    if (exchange.id === '') exchange.id = randomBytes(16).toString('base64url');
    const requestState = this.#signer.sign({
      call: exchange.id,
      round: exchange.round,
      editor: exchange.editor,
      endpoint: exchange.endpoint,
      method: exchange.method,
      name: exchange.name,
      servers: [...servers],
      keys: Object.keys(inputRequests),
      expires: Date.now() + inputTimeoutMs,
    });
    this.#byId.set(exchange.id, exchange);
    exchange.timer = setTimeout(() => {
      // Nobody came back for it: the server's requests fail and the call stops.
      const reason = `the editor did not answer within ${formatDuration(inputTimeoutMs)}`;
      for (const key of [...exchange.asks.keys()])
        this.#settleAsk(exchange, key, {
          error: { code: ErrorCodes.RequestTimeout, message: `Switchboard gave up waiting: ${reason}` },
        });
      exchange.cancel.cancel(reason);
      this.#end(exchange);
    }, inputTimeoutMs);
    exchange.timer.unref();
    return {
      jsonrpc: '2.0',
      id: request.id,
      result: { resultType: 'input_required', inputRequests, requestState },
    };
  }

  #end(exchange: Exchange): void {
    clearTimeout(exchange.timer);
    exchange.timer = undefined;
    this.#byId.delete(exchange.id);
  }
}

function progressTokenOf(request: JsonRpcRequest): unknown {
  const meta = request.params?._meta;
  return isPlainObject(meta) ? meta.progressToken : undefined;
}

/** The tool or prompt name, or resource URI, a request is about (what a state binds). */
function nameOf(request: JsonRpcRequest): string {
  const value = request.method === 'resources/read' ? request.params?.uri : request.params?.name;
  return typeof value === 'string' ? value : '';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
