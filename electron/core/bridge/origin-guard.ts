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
