import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

interface Packument {
  name: string;
  'dist-tags': Record<string, string>;
  versions: Record<string, Record<string, unknown>>;
  time: Record<string, string>;
  tarballs: Map<string, Buffer>;
}

export interface NpmRegistry {
  url: string;
  /** every path asked for, in order (packuments and tarballs) */
  readonly requests: string[];
  /** `npm publish` of a package folder against this registry (the real npm, a real tarball) */
  publish(dir: string): Promise<void>;
  /** publishes a copy of a package folder under another version (its code as it is) */
  publishAs(dir: string, version: string, fields?: Record<string, unknown>): Promise<void>;
  /** takes a package off the registry altogether (as an unpublish or a takedown would) */
  remove(name: string): void;
  /**
   * Holds every answer to a package's metadata (a packument GET) until the returned function is
   * called: a slow or hanging registry, for as long as a test needs it.
   */
  hold(): () => void;
  /** packument GETs being held now */
  readonly held: number;
  /**
   * npm's settings for a process that installs from here and nowhere else: this registry, a token
   * for it (in a userconfig of its own), a cache folder of its own, no update checks
   */
  npmEnv(cacheDir: string): NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/**
 * A small npm registry in memory, enough for npm itself: packuments with every version, `dist-tags`
 * and publish `time`; tarballs; `npm publish` (PUT). Packages get in only through the real
 * `npm publish`, so their tarballs are exactly what npm packs.
 */
export async function startNpmRegistry(): Promise<NpmRegistry> {
  const work = mkdtempSync(join(tmpdir(), 'sb-npm-registry-'));
  const packages = new Map<string, Packument>();
  const requests: string[] = [];
  let base = '';
  let gate: Promise<void> | undefined;
  let held = 0;
  const server: Server = createServer((req, res) => {
    void handle(req).then(
      ({ status, body, type }) => {
        res.writeHead(status, { 'content-type': type, 'content-length': body.length });
        res.end(body);
      },
      (err: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: String(err) }));
      },
    );
  });

  async function handle(req: IncomingMessage): Promise<{ status: number; body: Buffer; type: string }> {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    requests.push(`${req.method} ${path}`);
    const json = (status: number, value: unknown) => ({
      status,
      body: Buffer.from(JSON.stringify(value)),
      type: 'application/json',
    });
    const tarball = /^\/(.+)\/-\/([^/]+\.tgz)$/.exec(path);
    if (req.method === 'GET' && tarball) {
      const data = packages.get(tarball[1] ?? '')?.tarballs.get(tarball[2] ?? '');
      return data
        ? { status: 200, body: data, type: 'application/octet-stream' }
        : json(404, { error: 'Not found' });
    }
    const name = path.slice(1);
    if (req.method === 'PUT') {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const doc = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        versions: Record<string, Record<string, unknown>>;
        'dist-tags'?: Record<string, string>;
        _attachments?: Record<string, { data: string }>;
      };
      const pkg: Packument = packages.get(name) ?? {
        name,
        'dist-tags': {},
        versions: {},
        time: {},
        tarballs: new Map(),
      };
      for (const [version, manifest] of Object.entries(doc.versions)) {
        if (pkg.versions[version]) return json(409, { error: `${name}@${version} exists` });
        const file = `${name.replace(/^@[^/]+\//, '')}-${version}.tgz`;
        const dist = manifest.dist as Record<string, unknown>;
        pkg.versions[version] = { ...manifest, dist: { ...dist, tarball: `${base}/${name}/-/${file}` } };
        pkg.time[version] = new Date().toISOString();
      }
      for (const [file, attachment] of Object.entries(doc._attachments ?? {}))
        pkg.tarballs.set(file.replace(/^.*\//, ''), Buffer.from(attachment.data, 'base64'));
      Object.assign(pkg['dist-tags'], doc['dist-tags'] ?? {});
      pkg.time.modified = new Date().toISOString();
      pkg.time.created ??= pkg.time.modified;
      packages.set(name, pkg);
      return json(201, { ok: true });
    }
    if (req.method === 'GET' && gate) {
      held++;
      await gate;
      held--;
    }
    const pkg = packages.get(name);
    if (req.method !== 'GET' || !pkg) return json(404, { error: 'Not found' });
    return json(200, {
      name: pkg.name,
      'dist-tags': pkg['dist-tags'],
      versions: pkg.versions,
      time: pkg.time,
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const userconfig = join(work, 'npmrc');
  writeFileSync(userconfig, `registry=${base}/\n//127.0.0.1:${new URL(base).port}/:_authToken=test-token\n`);
  const npmEnv = (cacheDir: string): NodeJS.ProcessEnv => ({
    npm_config_registry: `${base}/`,
    npm_config_userconfig: userconfig,
    npm_config_cache: cacheDir,
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  });
  const publish = async (dir: string) => {
    await run('npm', ['publish', '--ignore-scripts', '--access', 'public'], {
      cwd: dir,
      env: { ...process.env, ...npmEnv(join(work, 'publish-cache')) },
    });
  };
  return {
    url: base,
    requests,
    publish,
    async publishAs(dir, version, fields = {}) {
      const copy = mkdtempSync(join(work, 'package-'));
      cpSync(dir, copy, { recursive: true });
      const manifest = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8')) as { version: string };
      writeFileSync(join(copy, 'package.json'), JSON.stringify({ ...manifest, ...fields, version }, null, 2));
      await publish(copy);
    },
    remove(name) {
      packages.delete(name);
    },
    hold() {
      let release: () => void = () => undefined;
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const opened = gate;
      return () => {
        if (gate === opened) gate = undefined;
        release();
      };
    },
    get held() {
      return held;
    },
    npmEnv,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(work, { recursive: true, force: true });
    },
  };
}
