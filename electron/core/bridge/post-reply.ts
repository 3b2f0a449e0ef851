import type { ServerResponse } from 'node:http';
import { ErrorCodes, errorResponse, type JsonRpcMessage, type JsonRpcResponse } from './json-rpc.ts';

/**
 * What the answers to one JSON-RPC batch may add up to. A batch of 100 `prompts/list` to a server
 * with a 2 MB list would otherwise make the bridge hold a 200 MB answer (twice, as objects and text);
 * past this, each further answer in the batch is an error saying to send that request on its own.
 */
export const MAX_BATCH_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * Turns each response of one POST into its JSON text as soon as it arrives (so the object can go),
 * counting a batch's answers against MAX_BATCH_ANSWER_BYTES. A single request is never limited: its
 * answer is the server's.
 */
export class AnswerBudget {
  readonly #limit: number;
  #used = 0;

  constructor(batch: boolean, limit = MAX_BATCH_ANSWER_BYTES) {
    this.#limit = batch ? limit : Infinity;
  }

  encode(response: JsonRpcResponse): string {
    const text = JSON.stringify(response);
    if (this.#used + text.length <= this.#limit) {
      this.#used += text.length;
      return text;
    }
    const mib = Math.round(this.#limit / (1024 * 1024));
    return JSON.stringify(
      errorResponse(
        response.id,
        ErrorCodes.InternalError,
        `The answers to this batch passed ${mib} MiB, which Switchboard holds for one request at most: send this request on its own`,
      ),
    );
  }
}

/** One server-sent event carrying a JSON-RPC message (the framing Streamable HTTP uses). */
export function sseEvent(message: JsonRpcMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * The answer to one editor POST: plain JSON, unless the server sends something for one of its
 * requests first (progress, logs, a sampling or elicitation request); then it becomes an event stream
 * carrying those messages and then the responses. Streamable HTTP allows either, and clients must
 * accept both; only requests that do get such messages pay for a stream. The message reaches exactly
 * the client that asked, which a shared GET stream could not promise for sessionless clients.
 */
export class PostReply {
  readonly #res: ServerResponse;
  readonly #canStream: boolean;
  #streaming = false;
  /** where this answer's messages go once it is written: an MRTR call's latest retry (see forwardTo) */
  #forward: { reply: PostReply; progressToken: unknown } | undefined;

  /** `canStream`: the client accepts text/event-stream, and no header still has to be decided later. */
  constructor(res: ServerResponse, canStream: boolean) {
    this.#res = res;
    this.#canStream = canStream;
  }

  /** Sends a message on this answer's stream; false when it cannot carry one (any more). */
  send(message: JsonRpcMessage): boolean {
    const forward = this.#forward;
    if (forward) {
      if (!('method' in message) || message.method !== 'notifications/progress')
        return forward.reply.send(message);
      // Progress the retry did not ask for is not sent (true: nobody else is owed it).
      if (forward.progressToken === undefined) return true;
      return forward.reply.send({
        ...message,
        params: { ...message.params, progressToken: forward.progressToken },
      });
    }
    const res = this.#res;
    if (!this.#canStream || res.destroyed || res.writableEnded) return false;
    if (!this.#streaming) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      this.#streaming = true;
    }
    res.write(sseEvent(message));
    return true;
  }

  /**
   * A call that outlives this answer (MRTR: answered input_required, continued by a retry): what
   * the server says about it from now on (progress, logs) goes on the retry's answer, progress under
   * the retry's own progress token (none: the retry did not ask for progress, so none is sent).
   */
  forwardTo(reply: PostReply, progressToken: unknown): void {
    this.#forward = { reply, progressToken };
  }

  /**
   * Ends the answer with the responses, each already JSON text (AnswerBudget.encode). `status`: what a
   * 2026 answer that is an error goes with (404, 400); an answer already streaming keeps its 200.
   */
  finish(results: string[], batch: boolean, headers: Record<string, string>, status = 200): void {
    const res = this.#res;
    if (res.destroyed) return;
    if (this.#streaming) {
      for (const result of results) res.write(`event: message\ndata: ${result}\n\n`);
      res.end();
      return;
    }
    const payload = batch ? `[${results.join(',')}]` : (results[0] ?? '');
    res.writeHead(status, {
      ...headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(payload)),
      'cache-control': 'no-store',
    });
    res.end(payload);
  }
}
