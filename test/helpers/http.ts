import { request } from 'node:http';
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One HTTP request with full control over its headers (Host, Origin, Authorization…), on a fresh
 * connection. `fetch` cannot send a foreign Host header, which the security tests need.
 */
export function call(
  port: number,
  method: string,
  path: string,
  options: { headers?: Record<string, string | number>; body?: string | Buffer; host?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: options.host ?? '127.0.0.1',
        port,
        path,
        method,
        agent: false,
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

export function bearer(token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` };
}

/**
 * Writes raw bytes to the port (anything: malformed HTTP, garbage, truncated bodies) and collects
 * whatever comes back until the server closes or `timeoutMs` passes (then the connection is dropped).
 * Send `Connection: close` for the server to close after its answer. (No half-close: Node's HTTP server
 * ends the connection at once when the client half-closes, before an asynchronous answer is written.)
 */
export function rawExchange(
  port: number,
  payload: Buffer,
  timeoutMs = 2_000,
): Promise<{ data: string; timedOut: boolean; error?: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ data: Buffer.concat(chunks).toString('latin1'), timedOut, ...(error ? { error } : {}) });
    });
    socket.write(payload);
  });
}
