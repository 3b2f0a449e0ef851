import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The recorded server.json documents (test/fixtures/registry/<folder>/*.json). */
export const REGISTRY_FIXTURES = fileURLToPath(new URL('../fixtures/registry/', import.meta.url));

export type FixtureFolder = 'servers' | 'examples' | 'malformed' | 'hostile' | 'e2e';

/** Every document in one fixture folder, by file name (without .json). */
export function recorded(folder: FixtureFolder): Map<string, unknown> {
  const dir = join(REGISTRY_FIXTURES, folder);
  return new Map(
    readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => [f.slice(0, -5), JSON.parse(readFileSync(join(dir, f), 'utf8')) as unknown]),
  );
}

export function recordedDoc(folder: FixtureFolder, file: string): Record<string, unknown> {
  const doc = recorded(folder).get(file);
  if (!doc) throw new Error(`no fixture ${folder}/${file}.json`);
  return doc as Record<string, unknown>;
}

/**
 * How the fake registry misbehaves: `ok` answers like the official one; the rest are the failures the
 * catalog must put in words (an HTML page, JSON that is not a list, broken JSON, an error status, a
 * hang, a closed connection, an answer too large).
 */
export type RegistryMode = 'ok' | 'html' | 'not-a-list' | 'garbage' | 'error500' | 'hang' | 'reset' | 'huge';

export interface FakeRegistry {
  url: string;
  mode: RegistryMode;
  /** paths and queries asked, in order */
  readonly requests: string[];
  /** serves a document (a server.json) as a new version of its name: the latest from now on */
  add(doc: unknown, meta?: Record<string, unknown>): void;
  /** an item of list answers exactly as given (not wrapped in {server}) */
  addRaw(item: unknown): void;
  close(): Promise<void>;
}

interface Stored {
  name: string;
  version: string;
  item: unknown;
}

/**
 * A local stand-in for the MCP Registry's read API (v0.1): `GET /v0.1/servers` with `search`
 * (case-insensitive, name and description), `version=latest`, `limit` (default 30, at most 100) and
 * an opaque `cursor`; `GET /v0.1/servers/{name}/versions` and `…/versions/{version|latest}`; `404
 * {"error": "Server not found"}`. Answers carry the registry's `_meta` as the official one does.
 */
export async function startFakeRegistry(docs: Iterable<unknown> = []): Promise<FakeRegistry> {
  const stored: Stored[] = [];
  const raw: unknown[] = [];
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  let published = Date.parse('2026-01-05T10:00:00Z');

  const add = (doc: unknown, meta: Record<string, unknown> = {}) => {
    const d = doc as { name?: unknown; version?: unknown };
    const name = typeof d.name === 'string' ? d.name : `unnamed-${stored.length}`;
    const version = typeof d.version === 'string' ? d.version : String(d.version ?? '0');
    published += 3_600_000;
    const at = new Date(published).toISOString();
    for (const s of stored) if (s.name === name) setLatest(s.item, false);
    stored.push({
      name,
      version,
      item: {
        server: doc,
        _meta: {
          'io.modelcontextprotocol.registry/official': {
            status: 'active',
            publishedAt: at,
            updatedAt: at,
            isLatest: true,
            ...meta,
          },
        },
      },
    });
  };
  for (const doc of docs) add(doc);

  const registry: FakeRegistry = {
    url: '',
    mode: 'ok',
    requests,
    add,
    addRaw: (item) => raw.push(item),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server: Server = createServer((req, res) => handle(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://registry.test');
    requests.push(url.pathname + url.search);
    switch (registry.mode) {
      case 'hang':
        return; // never answers
      case 'reset':
        req.socket.destroy();
        return;
      case 'html':
        return send(
          res,
          200,
          '<!doctype html><title>Sign in to the Wi-Fi</title><p>Accept the terms',
          'text/html; charset=utf-8',
        );
      case 'garbage':
        return send(res, 200, '{"servers": [{"server": {"name": "io.x/y"', 'application/json');
      case 'not-a-list':
        return json(res, 200, { servers: 'none today', metadata: {} });
      case 'error500':
        return json(res, 503, { error: 'maintenance' });
      case 'huge':
        return send(res, 200, `{"servers": [${'"x",'.repeat(3_000_000)}"x"]}`, 'application/json');
      case 'ok':
        break;
    }
    if (req.method !== 'GET') return json(res, 405, { error: 'method not allowed' });
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] !== 'v0.1' || parts[1] !== 'servers') return json(res, 404, { error: 'Not found' });
    if (parts.length === 2) return list(url, res);
    const name = decodeURIComponent(parts[2] ?? '');
    const versions = stored.filter((s) => s.name === name);
    if (versions.length === 0) return json(res, 404, { error: 'Server not found' });
    if (parts.length === 4 && parts[3] === 'versions')
      return json(res, 200, {
        servers: versions.map((s) => s.item).reverse(),
        metadata: { count: versions.length },
      });
    if (parts.length === 5 && parts[3] === 'versions') {
      const version = decodeURIComponent(parts[4] ?? '');
      const found = version === 'latest' ? versions.at(-1) : versions.find((s) => s.version === version);
      return found ? json(res, 200, found.item) : json(res, 404, { error: 'Server not found' });
    }
    return json(res, 404, { error: 'Not found' });
  }

  function list(url: URL, res: ServerResponse): void {
    const search = (url.searchParams.get('search') ?? '').toLowerCase();
    const latestOnly = url.searchParams.get('version') === 'latest';
    const limit = Math.min(Math.max(Number(url.searchParams.get('limit') ?? 30) || 30, 1), 100);
    const cursor = url.searchParams.get('cursor');
    let items = stored.filter(
      (s) => !latestOnly || s === [...stored].reverse().find((x) => x.name === s.name),
    );
    if (search) {
      items = items.filter((s) => {
        const description = (s.item as { server?: { description?: unknown } }).server?.description;
        return (
          s.name.toLowerCase().includes(search) ||
          (typeof description === 'string' && description.toLowerCase().includes(search))
        );
      });
    }
    items.sort((a, b) =>
      a.name === b.name ? a.version.localeCompare(b.version) : a.name.localeCompare(b.name),
    );
    const keyOf = (s: Stored) => Buffer.from(`${s.name}:${s.version}`).toString('base64url');
    const start = cursor ? items.findIndex((s) => keyOf(s) === cursor) + 1 : 0;
    if (cursor && start === 0) return json(res, 400, { error: 'invalid cursor' });
    const page = items.slice(start, start + limit);
    const last = page.at(-1);
    const more = start + limit < items.length;
    const servers = [...page.map((s) => s.item), ...(start === 0 ? raw : [])];
    json(res, 200, {
      servers,
      metadata: { count: servers.length, ...(more && last ? { nextCursor: keyOf(last) } : {}) },
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  registry.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return registry;
}

function setLatest(item: unknown, latest: boolean): void {
  const meta = (item as { _meta: Record<string, { isLatest?: boolean }> })._meta[
    'io.modelcontextprotocol.registry/official'
  ];
  if (meta) meta.isLatest = latest;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, JSON.stringify(body), 'application/json');
}

function send(res: ServerResponse, status: number, body: string, type: string): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
