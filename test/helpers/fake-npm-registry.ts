import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REGISTRY_FIXTURES } from './fake-registry.ts';

export interface FakeNpmRegistry {
  url: string;
  /** packuments and tarballs asked for */
  readonly requests: string[];
  /**
   * The environment a process needs for `npx -y pkg@version` to install from here and nowhere else
   * (npm's own settings: a registry, a cache of its own, no update checks or audits).
   */
  npmEnv(cacheDir: string): NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/**
 * A local npm registry serving the fixture packages in test/fixtures/registry/npm/<name>/package/ (one
 * version each, packed with tar as `npm pack` lays them out). With its npmEnv, a real `npx -y
 * switchboard-catalog-echo@1.0.0` installs and runs the package without the internet: the same
 * mechanism a company's private npm mirror uses (npm_config_registry).
 */
export async function startFakeNpmRegistry(names: string[]): Promise<FakeNpmRegistry> {
  const work = mkdtempSync(join(tmpdir(), 'sb-npm-'));
  const packages = new Map<string, { version: string; tarball: Buffer; bin: unknown }>();
  for (const name of names) {
    const dir = join(REGISTRY_FIXTURES, 'npm', name);
    const manifest = JSON.parse(readFileSync(join(dir, 'package', 'package.json'), 'utf8')) as {
      version: string;
      bin: unknown;
    };
    const file = join(work, `${name}.tgz`);
    // Fixed owner and time: the same bytes (and integrity) on every run.
    execFileSync('tar', ['-czf', file, '--owner=0', '--group=0', '--mtime=2026-01-01', '-C', dir, 'package']);
    packages.set(name, { version: manifest.version, tarball: readFileSync(file), bin: manifest.bin });
  }
  const requests: string[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    requests.push(path);
    const tarball = /^\/([^/]+)\/-\/[^/]+\.tgz$/.exec(path);
    if (tarball) {
      const pkg = packages.get(tarball[1] ?? '');
      if (!pkg) return void res.writeHead(404).end();
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': pkg.tarball.length,
      });
      return void res.end(pkg.tarball);
    }
    const name = path.slice(1);
    const pkg = packages.get(name);
    if (!pkg) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: 'Not found' }));
    }
    const body = JSON.stringify({
      name,
      'dist-tags': { latest: pkg.version },
      versions: {
        [pkg.version]: {
          name,
          version: pkg.version,
          bin: pkg.bin,
          dist: {
            tarball: `${base}/${name}/-/${name}-${pkg.version}.tgz`,
            shasum: createHash('sha1').update(pkg.tarball).digest('hex'),
            integrity: `sha512-${createHash('sha512').update(pkg.tarball).digest('base64')}`,
          },
        },
      },
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    npmEnv: (cacheDir) => ({
      npm_config_registry: `${base}/`,
      npm_config_cache: cacheDir,
      npm_config_update_notifier: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_yes: 'true',
    }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(work, { recursive: true, force: true });
    },
  };
}
