import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** A server line longer than this is not MCP (the SDK's stdio transports use the same limit). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * MCP over an already-spawned child's stdin/stdout (newline-delimited JSON-RPC), modelled on the
 * SDK's StdioClientTransport but without spawning: the supervisor owns the process (its group,
 * its stop sequence). close() detaches from the pipes; it does not stop the process.
 *
 * Built for the bridge's hot path, where every editor call crosses it twice:
 * - a line from the server is parsed once and checked by hand for the JSON-RPC shape (the SDK's
 *   zod parse of every message cost more than the parse itself and copied each message); the
 *   receivers check what they use, and the SDK client checks its own answers again;
 * - what is sent within one turn of the event loop goes out in one write (cork, then uncork on
 *   setImmediate): 32 editors' calls arriving together wake the server once, not 32 times.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #stdin: Writable;
  readonly #stdout: Readable;
  /** the start of a line whose end has not arrived yet */
  #partial: Buffer | undefined;
  /** resolves once this turn's writes are handed to the pipe; undefined while nothing is corked */
  #flushed: Promise<void> | undefined;
  #started = false;
  #closed = false;

  constructor(stdin: Writable, stdout: Readable) {
    this.#stdin = stdin;
    this.#stdout = stdout;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('ProcessTransport already started');
    this.#started = true;
    this.#stdout.on('data', this.#onData);
    this.#stdout.on('error', this.#onError);
    this.#stdout.once('end', this.#onEnd);
    this.#stdout.once('close', this.#onEnd);
    this.#stdin.on('error', this.#onError);
  }

  /** Resolves once the message is handed to the pipe (at the end of this turn of the event loop). */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed || !this.#stdin.writable) return Promise.reject(new Error('Not connected'));
    const flushed = (this.#flushed ??= this.#cork());
    this.#stdin.write(JSON.stringify(message) + '\n');
    return flushed;
  }

  #cork(): Promise<void> {
    const stdin = this.#stdin;
    stdin.cork();
    return new Promise<void>((resolve) => {
      setImmediate(() => {
        this.#flushed = undefined;
        stdin.uncork();
        // A server that reads slowly: the senders wait until the pipe takes more.
        if (stdin.writableNeedDrain) stdin.once('drain', resolve);
        else resolve();
      });
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stdout.off('data', this.#onData);
    this.#stdout.off('error', this.#onError);
    this.#stdout.off('end', this.#onEnd);
    this.#stdout.off('close', this.#onEnd);
    this.#stdin.off('error', this.#onError);
    this.#partial = undefined;
    this.onclose?.();
  }

  readonly #onData = (chunk: Buffer): void => {
    let start = 0;
    let end = chunk.indexOf(10); // '\n'
    if (this.#partial) {
      if (end === -1) {
        if (this.#partial.length + chunk.length > MAX_LINE_BYTES) return this.#tooLong();
        this.#partial = Buffer.concat([this.#partial, chunk]);
        return;
      }
      const line = Buffer.concat([this.#partial, chunk.subarray(0, end)]);
      this.#partial = undefined;
      this.#line(line.toString('utf8'));
      if (this.#closed) return;
      start = end + 1;
      end = chunk.indexOf(10, start);
    }
    while (end !== -1) {
      this.#line(chunk.toString('utf8', start, end));
      if (this.#closed) return;
      start = end + 1;
      end = chunk.indexOf(10, start);
    }
    if (start < chunk.length) {
      if (chunk.length - start > MAX_LINE_BYTES) return this.#tooLong();
      // A copy: a slice would keep the whole chunk alive until the line ends.
      this.#partial = Buffer.from(chunk.subarray(start));
    }
  };

  #line(text: string): void {
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      // A line that is not JSON (a server printing to stdout): report it and go on.
      this.onerror?.(new Error(`not JSON-RPC on stdout: ${quote(line)}`));
      return;
    }
    const problem = jsonRpcProblem(message);
    if (problem) {
      this.onerror?.(new Error(`not a JSON-RPC message (${problem}): ${quote(line)}`));
      return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  }

  #tooLong(): void {
    // The line grew past the limit: this peer is not speaking MCP; give up on it.
    this.#partial = undefined;
    this.onerror?.(new Error(`a line on stdout is longer than ${MAX_LINE_BYTES} bytes`));
    void this.close();
  }

  readonly #onError = (err: Error): void => {
    this.onerror?.(err);
  };

  readonly #onEnd = (): void => {
    void this.close();
  };
}

/**
 * Why a parsed line is not a JSON-RPC 2.0 message as MCP uses them (the shapes of the SDK's
 * JSONRPCMessageSchema), or undefined. Members beyond these pass through untouched.
 */
export function jsonRpcProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const msg = value as Record<string, unknown>;
  if (msg.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  const id = msg.id;
  const validId = typeof id === 'string' || Number.isInteger(id);
  if (typeof msg.method === 'string') {
    if (id !== undefined && !validId) return 'id is not a string or an integer';
    const params = msg.params;
    if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params)))
      return 'params is not an object';
    return undefined;
  }
  if ('result' in msg) {
    if (!validId) return 'id is not a string or an integer';
    const result = msg.result;
    return typeof result === 'object' && result !== null && !Array.isArray(result)
      ? undefined
      : 'result is not an object';
  }
  if ('error' in msg) {
    if (id !== undefined && !validId) return 'id is not a string or an integer';
    const error = msg.error as { code?: unknown; message?: unknown } | null;
    if (typeof error !== 'object' || error === null) return 'error is not an object';
    if (!Number.isInteger(error.code)) return 'error.code is not an integer';
    return typeof error.message === 'string' ? undefined : 'error.message is not a string';
  }
  return 'neither a request, a notification nor a response';
}

function quote(line: string): string {
  return JSON.stringify(line.length > 200 ? `${line.slice(0, 200)}…` : line);
}
