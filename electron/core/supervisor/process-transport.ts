import type { Readable, Writable } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * MCP over an already-spawned child's stdin/stdout (newline-delimited JSON-RPC), modelled on the
 * SDK's StdioClientTransport but without spawning: the supervisor owns the process (its group,
 * its stop sequence). close() detaches from the pipes; it does not stop the process.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #stdin: Writable;
  readonly #stdout: Readable;
  readonly #readBuffer = new ReadBuffer();
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

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#closed || !this.#stdin.writable) {
        reject(new Error('Not connected'));
        return;
      }
      if (this.#stdin.write(serializeMessage(message))) resolve();
      else this.#stdin.once('drain', resolve);
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
    this.#readBuffer.clear();
    this.onclose?.();
  }

  readonly #onData = (chunk: Buffer): void => {
    try {
      this.#readBuffer.append(chunk);
    } catch (err) {
      // The line grew past the buffer limit: this peer is not speaking MCP; give up on it.
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#readBuffer.readMessage();
      } catch (err) {
        // A line that is not JSON-RPC (a server printing to stdout): report it and go on.
        this.onerror?.(err instanceof Error ? err : new Error(String(err)));
        continue;
      }
      if (message === null) break;
      this.onmessage?.(message);
    }
  };

  readonly #onError = (err: Error): void => {
    this.onerror?.(err);
  };

  readonly #onEnd = (): void => {
    void this.close();
  };
}
