import type { IncomingMessage } from 'node:http';

/**
 * DNS-rebinding and cross-site protection: the Host must name this loopback listener, and a present
 * Origin must be Switchboard's own page. Returns why a request is refused, or undefined.
 */
export function refuseForeignRequest(req: IncomingMessage, port: number): string | undefined {
  const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!allowedHosts.includes(req.headers.host ?? '')) return 'host not allowed';
  const origin = req.headers.origin;
  if (origin !== undefined && !allowedHosts.some((h) => origin === `http://${h}`))
    return 'origin not allowed';
  return undefined;
}

/**
 * The same guard for a request on the relay's local socket (local-listener.ts): no browser can open a
 * Unix socket or named pipe, so there is no DNS rebinding to refuse and any Host is fine; an Origin
 * there still means a page is involved, and is refused.
 */
export function refuseForeignLocalRequest(req: IncomingMessage): string | undefined {
  return req.headers.origin === undefined ? undefined : 'origin not allowed';
}
