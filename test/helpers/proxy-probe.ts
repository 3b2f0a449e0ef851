import { connect } from 'node:net';

/** What an HTTP proxy answered one request with: its status and everything that came back. */
export interface ProxyAnswer {
  status: number;
  text: string;
}

/**
 * Sends one raw request to an HTTP proxy listening on 127.0.0.1 and reads until it closes the
 * connection (a tunnel closes when the far end does). Raw, so that every spelling of a target goes
 * to the proxy exactly as an attacker writes it.
 */
export function askProxy(port: number, request: string): Promise<ProxyAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(
      () => socket.destroy(new Error(`no answer to ${request.split('\r\n')[0]}`)),
      10_000,
    );
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
    socket.write(request);
  });
}

/** An absolute-form proxy request for `url`, with the Host header the client chose. */
export function getThrough(url: string, host = new URL(url).host): string {
  return `GET ${url} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
}

/** A tunnel to `target` ("host:port", IPv6 in brackets) and, in it at once, a plain GET. */
export function tunnelTo(target: string, host = target): string {
  return `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\nGET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
}
