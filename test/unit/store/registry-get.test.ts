import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, expect, it } from 'vitest';
import { getJson } from '../../../electron/core/store/registry-get.ts';

// A real local HTTP server answering as registries do: gzip when asked, 404 for an unknown package,
// or nothing at all.
let server: Server | undefined;
const accepts: (string | undefined)[] = [];

async function serve(answer: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer((req, res) => {
    accepts.push(req.headers.accept);
    answer?.(req, res);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  accepts.length = 0;
  const s = server;
  server = undefined;
  if (!s) return;
  s.closeAllConnections();
  await new Promise((resolve) => s.close(resolve));
});

it('reads a gzipped packument, asking for the document type given', async () => {
  const doc = { name: 'a', 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': {} } };
  const base = await serve((req, res) => {
    const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
    res.end(gzip ? gzipSync(JSON.stringify(doc)) : JSON.stringify(doc));
  });
  await expect(getJson(`${base}/a`, 'application/vnd.npm.install-v1+json', 5_000)).resolves.toEqual(doc);
  expect(accepts).toEqual(['application/vnd.npm.install-v1+json']);
});

it('gives nothing for a package the registry does not have', async () => {
  const base = await serve((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"Not found"}');
  });
  await expect(getJson(`${base}/missing`, 'application/json', 5_000)).resolves.toBeUndefined();
});

it('gives up on a registry that never answers, saying which address', async () => {
  const base = await serve(() => undefined); // holds every request
  await expect(getJson(`${base}/slow`, 'application/json', 300)).rejects.toThrow(`${base}/slow`);
});

it('refuses an address that is not http(s)', async () => {
  await expect(getJson('file:///etc/passwd', 'application/json', 1_000)).rejects.toThrow(/not an http/);
});
