import type { IncomingMessage } from 'node:http';
import { createGunzip } from 'node:zlib';
import { http, https } from '../node-http.ts';

/**
 * One GET of a registry's JSON document (a packument) with node:http(s), not `fetch`: the first
 * `fetch` loads Node's whole undici into the process for good (~14 MB of serve's resident memory,
 * core/node-http.ts), which serve otherwise never needs. No redirects, no proxy, no credentials (the
 * caller asks npm when this cannot answer). Resolves the parsed body, or undefined for an answer other
 * than 2xx; rejects when the registry cannot be reached, the body is not JSON, or `timeoutMs` passes.
 */
export function getJson(url: string, accept: string, timeoutMs: number): Promise<unknown> {
  const address = new URL(url);
  const client = address.protocol === 'https:' ? https() : address.protocol === 'http:' ? http : undefined;
  if (!client) return Promise.reject(new Error(`${url}: not an http(s) address`));
  return new Promise((resolve, reject) => {
    const req = client.get(address, { headers: { accept, 'accept-encoding': 'gzip' } });
    const timer = setTimeout(
      () => req.destroy(new Error(`${url}: no answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    timer.unref();
    const done =
      <T>(settle: (v: T) => void) =>
      (v: T) => {
        clearTimeout(timer);
        settle(v);
      };
    req.once('error', done(reject));
    req.once('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        res.resume(); // drained, so the connection can be reused
        done(resolve)(undefined);
        return;
      }
      readJson(res).then(done(resolve), done(reject));
    });
  });
}

async function readJson(res: IncomingMessage): Promise<unknown> {
  const body = res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip()) : res;
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
