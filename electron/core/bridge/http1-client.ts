// A minimal HTTP/1.1 client over node:net, for the stdio relay and the CLI's quick answers (a
// `switchboard status` from PATH). Why not node:http or fetch: loading node:http costs ~30 ms and fetch
// (undici) ~35 ms at process start on the 2-core CI machine, against budgets of 150 ms from spawn to
// answer; node:net costs ~3 ms. It talks to one server (the bridge, on its local socket or named pipe)
// and understands what that server sends: Content-Length, chunked and read-until-close bodies,
// keep-alive. Not a general-purpose client. Dependency-free: the relay's bundle carries it.
import { connect, type Socket } from 'node:net';

export interface Http1Response {
  status: number;
  /** lowercased names; repeated headers joined with ", " */
  headers: Record<string, string>;
  /**
   * Delivers body chunks as they arrive (also those that arrived before); resolves at the body's end:
   * true if the body arrived whole, false if the connection broke (or was aborted) first.
   */
  read(onChunk: (chunk: Buffer) => void): Promise<boolean>;
  /** Closes the connection (e.g. a stream the relay no longer wants). */
  abort(): void;
}

/** A connection failed before any byte of a response arrived (safe to retry on a reused socket). */
class NoResponseError extends Error {
  readonly code: string | undefined;
  constructor(cause: NodeJS.ErrnoException | undefined) {
    super(cause?.message ?? 'connection closed before a response');
    this.code = cause?.code;
  }
}

/** Idle sockets older than this are not reused: the bridge closes idle keep-alive sockets after 60 s. */
const MAX_IDLE_MS = 30_000;

export class Http1Client {
  #path: string;
  #idle: { socket: Socket; since: number }[] = [];
  /** how to take an idle socket off the pool when its server closes it */
  readonly #dropIdle = new WeakMap<Socket, () => void>();

  /** `path`: a Unix domain socket or a Windows named pipe */
  constructor(path: string) {
    this.#path = path;
  }

  get path(): string {
    return this.#path;
  }

  set path(path: string) {
    if (path === this.#path) return;
    this.#path = path;
    this.close();
  }

  async request(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: Buffer,
    options: { keepAlive?: boolean } = {},
  ): Promise<Http1Response> {
    const keepAlive = options.keepAlive ?? true;
    let head = `${method} ${path} HTTP/1.1\r\nhost: localhost\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    if (body) head += `content-length: ${body.length}\r\n`;
    if (!keepAlive) head += 'connection: close\r\n';
    const data = body
      ? Buffer.concat([Buffer.from(head + '\r\n', 'latin1'), body])
      : Buffer.from(head + '\r\n', 'latin1');
    for (;;) {
      const idle = keepAlive ? this.#takeIdle() : undefined;
      try {
        return await this.#exchange(idle ?? this.#connect(), data, keepAlive);
      } catch (err) {
        // A reused socket the server closed meanwhile: the request was never read, so send it again.
        if (idle && err instanceof NoResponseError) continue;
        throw err;
      }
    }
  }

  close(): void {
    for (const { socket } of this.#idle.splice(0)) socket.destroy();
  }

  #connect(): Socket {
    const socket = connect({ path: this.#path });
    socket.on('error', () => undefined); // reported through the exchange
    return socket;
  }

  #takeIdle(): Socket | undefined {
    const now = Date.now();
    for (let entry = this.#idle.pop(); entry; entry = this.#idle.pop()) {
      if (!entry.socket.destroyed && now - entry.since < MAX_IDLE_MS) return entry.socket;
      entry.socket.destroy();
    }
    return undefined;
  }

  #release(socket: Socket): void {
    const entry = { socket, since: Date.now() };
    const drop = () => {
      socket.destroy();
      this.#idle = this.#idle.filter((e) => e !== entry);
    };
    socket.once('end', drop);
    socket.once('close', drop);
    socket.unref();
    this.#idle.push(entry);
    this.#dropIdle.set(socket, drop);
  }

  #exchange(socket: Socket, data: Buffer, keepAlive: boolean): Promise<Http1Response> {
    const drop = this.#dropIdle.get(socket);
    if (drop) {
      socket.off('end', drop);
      socket.off('close', drop);
      this.#dropIdle.delete(socket);
    }
    socket.ref();
    return new Promise<Http1Response>((resolve, reject) => {
      let state: 'head' | 'length' | 'chunked' | 'close' | 'done' = 'head';
      let buffer: Buffer = Buffer.alloc(0);
      let remaining = 0;
      let chunkStep: 'size' | 'data' | 'crlf' | 'trailer' = 'size';
      let reusable = keepAlive;
      const queue: Buffer[] = [];
      let listener: ((chunk: Buffer) => void) | undefined;
      let onEnd: ((complete: boolean) => void) | undefined;
      let ended = false;
      let complete = false;

      const emit = (chunk: Buffer) => {
        if (chunk.length === 0) return;
        if (listener) listener(chunk);
        else queue.push(chunk);
      };
      const cleanup = () => {
        socket.off('data', onData);
        socket.off('error', onError);
        socket.off('close', onClose);
      };
      const finish = (ok: boolean) => {
        if (state === 'done') return;
        state = 'done';
        cleanup();
        ended = true;
        complete = ok;
        if (ok && reusable && !socket.destroyed) this.#release(socket);
        else socket.destroy();
        onEnd?.(ok);
      };
      const onError = (err: NodeJS.ErrnoException) => {
        if (state === 'head') {
          cleanup();
          socket.destroy();
          state = 'done';
          reject(new NoResponseError(err));
        } else finish(false);
      };
      const onClose = () => {
        if (state === 'head')
          onError(Object.assign(new Error('connection closed before a response'), { code: 'ECONNRESET' }));
        else finish(state === 'close');
      };
      const response = (status: number, headers: Record<string, string>): Http1Response => ({
        status,
        headers,
        read: (onChunk) =>
          new Promise<boolean>((done) => {
            listener = onChunk;
            for (const chunk of queue.splice(0)) onChunk(chunk);
            if (ended) done(complete);
            else onEnd = done;
          }),
        abort: () => {
          reusable = false;
          finish(false);
        },
      });

      const onData = (data: Buffer) => {
        buffer = buffer.length ? Buffer.concat([buffer, data]) : data;
        while (buffer.length && state !== 'done') {
          if (state === 'head') {
            const end = buffer.indexOf('\r\n\r\n');
            if (end < 0) {
              if (buffer.length > 64 * 1024)
                onError(Object.assign(new Error('response head too large'), { code: 'EPROTO' }));
              return;
            }
            const lines = buffer.subarray(0, end).toString('latin1').split('\r\n');
            buffer = buffer.subarray(end + 4);
            const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1]);
            if (!status) return onError(Object.assign(new Error('not an HTTP response'), { code: 'EPROTO' }));
            if (status < 200) continue; // 100 Continue, 103 Early Hints
            const headers: Record<string, string> = {};
            for (const line of lines.slice(1)) {
              const colon = line.indexOf(':');
              if (colon <= 0) continue;
              const name = line.slice(0, colon).trim().toLowerCase();
              const value = line.slice(colon + 1).trim();
              headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
            }
            if (/\bclose\b/i.test(headers.connection ?? '')) reusable = false;
            if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) state = 'chunked';
            else if (headers['content-length'] !== undefined) {
              state = 'length';
              remaining = Number(headers['content-length']);
            } else if (status === 204 || status === 304) {
              state = 'length';
              remaining = 0;
            } else {
              state = 'close';
              reusable = false;
            }
            resolve(response(status, headers));
            if (state === 'length' && remaining === 0) finish(true);
          } else if (state === 'length') {
            const take = buffer.subarray(0, remaining);
            buffer = buffer.subarray(take.length);
            remaining -= take.length;
            emit(take);
            if (remaining === 0) finish(true);
          } else if (state === 'close') {
            emit(buffer);
            buffer = Buffer.alloc(0);
          } else {
            // chunked: size line, data, CRLF, … then 0-size chunk and (possibly empty) trailers
            if (chunkStep === 'size') {
              const end = buffer.indexOf('\r\n');
              if (end < 0) return;
              const size = parseInt(buffer.subarray(0, end).toString('latin1').split(';')[0] ?? '', 16);
              buffer = buffer.subarray(end + 2);
              if (Number.isNaN(size)) return finish(false);
              if (size === 0) chunkStep = 'trailer';
              else {
                chunkStep = 'data';
                remaining = size;
              }
            } else if (chunkStep === 'data') {
              const take = buffer.subarray(0, remaining);
              buffer = buffer.subarray(take.length);
              remaining -= take.length;
              emit(take);
              if (remaining === 0) chunkStep = 'crlf';
            } else if (chunkStep === 'crlf') {
              if (buffer.length < 2) return;
              buffer = buffer.subarray(2);
              chunkStep = 'size';
            } else {
              if (buffer.subarray(0, 2).toString('latin1') === '\r\n') return finish(true);
              if (buffer.indexOf('\r\n\r\n') >= 0) return finish(true);
              return;
            }
          }
        }
      };

      socket.on('data', onData);
      socket.on('error', onError);
      socket.on('close', onClose);
      socket.write(data);
    });
  }
}
