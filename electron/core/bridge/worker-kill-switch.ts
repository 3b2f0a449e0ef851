import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Switchboard's UI registers no service worker. A browser asks for one's script (`Service-Worker:
 * script`, when a worker is registered or checked for an update) only if a page at this address
 * registered one: a program that held the port while `serve` was down. Such a worker would keep
 * answering this address in the person's browser, as them, after `serve` is back. Its update check
 * reaches `serve`: whatever script it names, the answer is a worker that takes over, unregisters
 * itself and reloads the pages it held, so they load from `serve` again. The squatter's old pages may
 * also be cached, and the origin's storage read: `Clear-Site-Data` asks the browser to drop both.
 */
const KILL_SWITCH = `// Switchboard: a service worker that another program registered at this address is removed.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      await self.clients.claim();
      await self.registration.unregister();
      for (const client of await self.clients.matchAll({ type: 'window' })) client.navigate(client.url);
    })(),
  );
});
`;

/** Answers a service worker's script request with the kill switch; false for any other request. */
export function answerWorkerScript(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.headers['service-worker'] !== 'script') return false;
  res.writeHead(200, {
    'content-type': 'text/javascript; charset=utf-8',
    'cache-control': 'no-store',
    'clear-site-data': '"cache", "storage"',
    'content-length': Buffer.byteLength(KILL_SWITCH),
  });
  res.end(KILL_SWITCH);
  return true;
}
