import type { IncomingMessage } from 'node:http';

/**
 * DNS-rebinding and cross-site protection: the Host must name this loopback listener, and a present
 * Origin must be Switchboard's own page. Returns why a request is refused, or undefined.
 */
export function refuseForeignRequest(req: IncomingMessage, port: number): string | undefined {
  const allowed = allowedFor(port);
  if (!allowed.hosts.includes(req.headers.host ?? '')) return 'host not allowed';
  const origin = req.headers.origin;
  if (origin !== undefined && !allowed.origins.includes(origin)) return 'origin not allowed';
  return undefined;
}

/** The Hosts and Origins of the listener on `port`, made once (every request is checked). */
let allowedCache: { port: number; hosts: string[]; origins: string[] } | undefined;
function allowedFor(port: number): { hosts: string[]; origins: string[] } {
  if (allowedCache?.port !== port) {
    const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
    allowedCache = { port, hosts, origins: hosts.map((h) => `http://${h}`) };
  }
  return allowedCache;
}

/**
 * The same guard for a request on the relay's local socket (local-listener.ts): no browser can open a
 * Unix socket or named pipe, so there is no DNS rebinding to refuse and any Host is fine; an Origin
 * there still means a page is involved, and is refused.
 */
export function refuseForeignLocalRequest(req: IncomingMessage): string | undefined {
  return req.headers.origin === undefined ? undefined : 'origin not allowed';
}
