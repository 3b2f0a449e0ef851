import type { ServerResponse } from 'node:http';
import type { JsonRpcNotification, JsonRpcResponse } from './json-rpc.ts';

/** One server-sent event carrying a JSON-RPC message (the framing Streamable HTTP uses). */
export function sseEvent(message: JsonRpcNotification | JsonRpcResponse): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * The answer to one editor POST: plain JSON, unless a server sends a notification for one of its
 * requests (progress) first; then it becomes an event stream carrying those notifications and then the
 * responses. Streamable HTTP allows either, and clients must accept both; only requests that do get
 * progress pay for a stream. The notification reaches exactly the client that asked, which a shared
 * GET stream could not promise for sessionless clients.
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

  notify(notification: JsonRpcNotification): void {
    const res = this.#res;
    // A client that cannot take a stream misses its progress; the answer itself still comes.
    if (!this.#canStream || res.destroyed || res.writableEnded) return;
    if (!this.#streaming) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      this.#streaming = true;
    }
    res.write(sseEvent(notification));
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
