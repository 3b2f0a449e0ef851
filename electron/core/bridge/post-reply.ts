import type { ServerResponse } from 'node:http';
import type { JsonRpcMessage, JsonRpcResponse } from './json-rpc.ts';

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

  /** `canStream`: the client accepts text/event-stream, and no header still has to be decided later. */
  constructor(res: ServerResponse, canStream: boolean) {
    this.#res = res;
    this.#canStream = canStream;
  }

  /** Sends a message on this answer's stream; false when it cannot carry one (any more). */
  send(message: JsonRpcMessage): boolean {
    const res = this.#res;
    if (!this.#canStream || res.destroyed || res.writableEnded) return false;
    if (!this.#streaming) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      this.#streaming = true;
    }
    res.write(sseEvent(message));
    return true;
  }

  finish(results: JsonRpcResponse[], batch: boolean, headers: Record<string, string>): void {
    const res = this.#res;
    if (res.destroyed) return;
    if (this.#streaming) {
      for (const result of results) res.write(sseEvent(result));
      res.end();
      return;
    }
    const payload = JSON.stringify(batch ? results : results[0]);
    res.writeHead(200, {
      ...headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(payload)),
      'cache-control': 'no-store',
    });
    res.end(payload);
  }
}
