import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import type { ServerStatus } from '../../../shared/status.ts';
import { closeAll, editorToken, httpClient, textOf } from '../../helpers/bridge.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { runCli } from '../../helpers/cli.ts';
import { startNpmRegistry, type NpmRegistry } from '../../helpers/npm-registry.ts';
import { defined, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// The package store with a real npm (resolution, `npm ci`), a real local registry that packages get
// into only through `npm publish`, a real Switchboard (core, supervisor, bridge) and a real MCP client.
// The server is `npx -y sb-store-pkg`, which depends on sb-store-dep@^1.

const FIXTURES = join(import.meta.dirname, '../../fixtures/store');

let t: TempHome;
let registry: NpmRegistry;
let headless: Headless | undefined;
let cache: string;
let marker: string;
const clients: Client[] = [];

beforeEach(async () => {
  t = tempHome();
  registry = await startNpmRegistry();
  cache = join(t.dir, 'npm-cache');
  marker = join(t.dir, 'new-code-ran');
  await registry.publish(join(FIXTURES, 'sb-store-dep'));
  await registry.publish(join(FIXTURES, 'sb-store-pkg'));
});

afterEach(async () => {
  await closeAll(clients);
  await headless?.stop();
  headless = undefined;
  await registry.close();
  t.cleanup();
});

/** Publishes a new version of a fixture package whose code writes the marker file when it is loaded. */
async function publishWithMarker(name: 'sb-store-pkg' | 'sb-store-dep', version: string): Promise<void> {
  const dir = mkdtempSync(join(t.dir, `${name}-`));
  cpSync(join(FIXTURES, name), dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  manifest.version = version;
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  const file = name === 'sb-store-pkg' ? 'server.mjs' : 'index.js';
  const code = readFileSync(join(dir, file), 'utf8');
  const write = `require('node:fs').writeFileSync(${JSON.stringify(`${marker}-${name}`)}, 'loaded');\n`;
  writeFileSync(
    join(dir, file),
    name === 'sb-store-pkg'
      ? code.replace(
          'const require = createRequire(import.meta.url);\n',
          `const require = createRequire(import.meta.url);\n${write}`,
        )
      : `${write}${code}`,
  );
  await registry.publish(dir);
}

async function serve(servers: Record<string, unknown>, clock?: ManualClock): Promise<Headless> {
  t.writeServers({ mcpServers: servers });
  const h = await startHeadless({
    home: t.home,
    keychain: new MemoryKeychain(),
    env: { ...t.env, ...registry.npmEnv(cache) },
    port: 0,
    editorSync: false,
    ...(clock ? { clock } : {}),
  });
  headless = h;
  return h;
}

function statusOf(h: Headless, name: string): ServerStatus | undefined {
  return h.core.status.report().servers.find((s) => s.name === name);
}

function reached(h: Headless, name: string, state: ServerStatus['state']): Promise<ServerStatus> {
  return waitFor(
    () => {
      const s = statusOf(h, name);
      return s?.state === state && (state !== 'running' || s.toolCount !== null) ? s : undefined;
    },
    60_000,
    `${name} ${state}`,
  );
}

async function greet(h: Headless, name: string): Promise<string> {
  const client = await httpClient(`http://127.0.0.1:${h.port}/mcp/${name}`, editorToken(h.tokens));
  clients.push(client);
  return textOf(await client.callTool({ name: 'greet', arguments: { name: 'ada' } }));
}

const markers = () => readdirSync(t.dir).filter((f) => f.startsWith('new-code-ran'));

describe('package store: npm', { timeout: 180_000 }, () => {
  it('runs exactly the approved tree: new releases, an idle restart and an empty npm cache change nothing until an update is approved', async () => {
    const clock = new ManualClock();
    // The planted code leaves its marker in the test's folder: its sandbox lets it write there.
    const h = await serve(
      { pkg: { command: 'npx', args: ['-y', 'sb-store-pkg'], idleTimeout: 60, sandbox: { write: [t.dir] } } },
      clock,
    );
    expect(statusOf(h, 'pkg')?.state).toBe('pending-approval');

    // The approval shows the package, its exact version and date, its dependencies and scripts.
    const shown = await h.core.approvals.preview('pkg');
    const pkg = defined(shown.package, 'package review');
    expect(pkg).toMatchObject({
      name: 'sb-store-pkg',
      version: '1.0.0',
      dependencies: 1,
      installScripts: [],
    });
    expect(pkg.publishedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(pkg.lines.join('\n')).toContain('runs from the store: ');
    expect(pkg.changes).toBeNull();
    expect(shown.lines[0]).toMatch(/^command: \S*npx -y sb-store-pkg$/);
    h.core.approvals.approve('pkg', shown.fingerprint);
    await reached(h, 'pkg', 'running');
    expect(await greet(h, 'pkg')).toBe('hello ada (sb-store-pkg 1.0.0, sb-store-dep 1.0.0)');
    // servers.json keeps what the person wrote.
    expect(JSON.parse(readFileSync(t.home.serversFile, 'utf8')).mcpServers.pkg.args).toEqual([
      '-y',
      'sb-store-pkg',
    ]);

    // Both packages get a release whose code writes a file when it is loaded.
    await publishWithMarker('sb-store-dep', '1.0.1');
    await publishWithMarker('sb-store-pkg', '1.1.0');
    const published = registry.requests.length;

    await h.core.lifecycle.restartServer('pkg');
    await reached(h, 'pkg', 'running');
    expect(await greet(h, 'pkg')).toBe('hello ada (sb-store-pkg 1.0.0, sb-store-dep 1.0.0)');

    clock.advance(60_000);
    await reached(h, 'pkg', 'idle');
    expect(await greet(h, 'pkg')).toBe('hello ada (sb-store-pkg 1.0.0, sb-store-dep 1.0.0)');

    rmSync(cache, { recursive: true, force: true });
    await h.core.lifecycle.restartServer('pkg');
    await reached(h, 'pkg', 'running');
    expect(await greet(h, 'pkg')).toBe('hello ada (sb-store-pkg 1.0.0, sb-store-dep 1.0.0)');
    expect(markers()).toEqual([]);
    // No start asked the registry anything.
    expect(registry.requests.slice(published)).toEqual([]);

    // outdated names both releases.
    const outdated = await h.core.store.outdated();
    expect(outdated).toEqual([
      expect.objectContaining({
        server: 'pkg',
        package: 'sb-store-pkg',
        current: '1.0.0',
        wanted: '1.1.0',
        latest: '1.1.0',
        changes: ['sb-store-dep 1.0.0 → 1.0.1', 'sb-store-pkg 1.0.0 → 1.1.0'],
      }),
    ]);

    // update shows the diff; once approved, the new code runs.
    const update = await h.core.approvals.preview('pkg', { fresh: true });
    expect(update.package?.version).toBe('1.1.0');
    expect(update.package?.changes).toEqual(['sb-store-dep 1.0.0 → 1.0.1', 'sb-store-pkg 1.0.0 → 1.1.0']);
    expect(markers()).toEqual([]);
    h.core.approvals.approve('pkg', update.fingerprint);
    await waitFor(() => markers().length === 2 || undefined, 60_000, 'the new code to load');
    await reached(h, 'pkg', 'running');
    expect(await greet(h, 'pkg')).toBe('hello ada (sb-store-pkg 1.1.0, sb-store-dep 1.0.1)');
    // The version it replaced is gone from the store.
    expect(h.core.store.storeUsage().installs.map((i) => i.id)).toEqual([
      expect.stringMatching(/^npm\/sb-store-pkg@1\.1\.0-/),
    ]);
  });

  it('asks again when the stored install changes on disk, and installs it afresh once approved', async () => {
    const h = await serve({ pkg: { command: 'npx', args: ['-y', 'sb-store-pkg'] } });
    h.core.approvals.approve('pkg', (await h.core.approvals.preview('pkg')).fingerprint);
    await reached(h, 'pkg', 'running');
    const [install] = h.core.store.storeUsage().installs;
    const depFile = join(t.home.store, defined(install, 'install').id, 'node_modules/sb-store-dep/index.js');
    writeFileSync(depFile, `${readFileSync(depFile, 'utf8')}\nexports.greeting = () => 'tampered';\n`);

    await h.core.lifecycle.restartServer('pkg');
    const pending = await reached(h, 'pkg', 'pending-approval');
    expect(pending.lastError).toContain('changed on disk');
    const again = await h.core.approvals.preview('pkg');
    expect(again.package?.notes.join(' ')).toContain('installs the approved sb-store-pkg@1.0.0 afresh');
    h.core.approvals.approve('pkg', again.fingerprint);
    // Its lists are known from before (the same approval), so the call starts it.
    expect(await greet(h, 'pkg')).toBe('hello ada (sb-store-pkg 1.0.0, sb-store-dep 1.0.0)');
    expect(
      h.core.logs.lines('pkg').filter((l) => l.text.startsWith('installing sb-store-pkg@1.0.0')),
    ).toHaveLength(2);
  });

  it('removes a removed server’s install from the store', async () => {
    const h = await serve({ pkg: { command: 'npx', args: ['-y', 'sb-store-pkg@1.0.0'] } });
    h.core.approvals.approve('pkg', (await h.core.approvals.preview('pkg')).fingerprint);
    await reached(h, 'pkg', 'running');
    expect(h.core.store.storeUsage().installs).toHaveLength(1);
    t.writeServers({ mcpServers: {} });
    h.core.lifecycle.reload();
    await waitFor(
      () => h.core.store.storeUsage().installs.length === 0 || undefined,
      10_000,
      'the install removed',
    );
    expect(existsSync(join(t.home.store, 'locks'))).toBe(true);
    expect(readdirSync(join(t.home.store, 'locks'))).toEqual([]);
  });

  it('stores one tree once: `latest` and `^1.0.0` resolving to it share one install, which prune keeps while either uses it', async () => {
    const h = await serve({
      latest: { command: 'npx', args: ['-y', 'sb-store-pkg'] },
      ranged: { command: 'npx', args: ['-y', 'sb-store-pkg@^1.0.0'] },
    });
    for (const name of ['latest', 'ranged'])
      h.core.approvals.approve(name, (await h.core.approvals.preview(name)).fingerprint);
    await reached(h, 'latest', 'running');
    await reached(h, 'ranged', 'running');
    // Two lockfiles (their root records the range written), one tree: one install, both start from it.
    expect(readdirSync(join(t.home.store, 'locks'))).toHaveLength(2);
    const installs = () => h.core.store.storeUsage().installs.map((i) => i.servers);
    expect(installs()).toEqual([['latest', 'ranged']]);
    expect(await greet(h, 'ranged')).toBe('hello ada (sb-store-pkg 1.0.0, sb-store-dep 1.0.0)');

    t.writeServers({ mcpServers: { ranged: { command: 'npx', args: ['-y', 'sb-store-pkg@^1.0.0'] } } });
    h.core.lifecycle.reload();
    await waitFor(() => (installs()[0]?.length === 1 ? true : undefined), 10_000, 'latest gone');
    expect(h.core.store.pruneStore().removed).toEqual([]);
    expect(installs()).toEqual([['ranged']]);
    expect(readdirSync(join(t.home.store, 'locks'))).toHaveLength(1);
    expect(await greet(h, 'ranged')).toBe('hello ada (sb-store-pkg 1.0.0, sb-store-dep 1.0.0)');

    t.writeServers({ mcpServers: {} });
    h.core.lifecycle.reload();
    await waitFor(() => (installs().length === 0 ? true : undefined), 10_000, 'the install removed');
  });

  it('from the command line: approve shows the package, outdated and update name the releases, store and store prune', async () => {
    t.writeServers({ mcpServers: { pkg: { command: 'npx', args: ['-y', 'sb-store-pkg'] } } });
    const env = { ...t.env, ...registry.npmEnv(cache) };
    const approved = await runCli(['approve', 'pkg', '--yes'], env);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(
      /It runs this package, installed in Switchboard’s store:\n {2}package: sb-store-pkg 1\.0\.0 \(published \d{4}-\d\d-\d\d\) from the npm registry\n {2}dependencies: 1\n {2}install scripts: none\n/,
    );

    const current = await runCli(['outdated'], env);
    expect(current.stdout).toBe('Every stored package is the newest its servers.json entry allows.\n');
    await publishWithMarker('sb-store-dep', '1.0.1');
    const outdated = await runCli(['outdated', '--json'], env);
    expect(JSON.parse(outdated.stdout)).toEqual({
      servers: [
        {
          server: 'pkg',
          kind: 'npm',
          package: 'sb-store-pkg',
          current: '1.0.0',
          wanted: '1.0.0',
          latest: '1.0.0',
          changes: ['sb-store-dep 1.0.0 → 1.0.1'],
          error: null,
        },
      ],
    });
    const update = await runCli(['update', 'pkg', '--yes'], env);
    expect(update.code, update.stderr).toBe(0);
    expect(update.stdout).toContain('Changed since the approved version:\n  sb-store-dep 1.0.0 → 1.0.1\n');
    expect((await runCli(['outdated'], env)).stdout).toContain('Every stored package is the newest');

    // Installed at the next start (none ran here): the store holds what is approved, prune keeps it.
    const serve = await startHeadless({
      home: t.home,
      keychain: new MemoryKeychain(),
      env,
      port: 0,
      editorSync: false,
    });
    headless = serve;
    expect(await greet(serve, 'pkg')).toBe('hello ada (sb-store-pkg 1.0.0, sb-store-dep 1.0.1)');
    const usage = JSON.parse((await runCli(['store', '--json'], env)).stdout) as {
      installs: { servers: string[] }[];
    };
    expect(usage.installs.map((i) => i.servers)).toEqual([['pkg']]);
    expect((await runCli(['store', 'prune'], env)).stdout).toBe('Nothing to remove.\n');
  });

  it('outdated and update agree on a newer in-range release that npm would not pick (its engines exclude the node npm runs on), and on one it would', async () => {
    // The node the server's npm runs on: the system's when there is one (it may be older than the
    // node running Switchboard, whose version npm must then not use), else the first on PATH.
    const path =
      existsSync('/usr/bin/node') && existsSync('/usr/bin/npx')
        ? `/usr/bin:${process.env.PATH ?? ''}`
        : (process.env.PATH ?? '');
    const env = { ...t.env, ...registry.npmEnv(cache), PATH: path };
    const node = execFileSync('node', ['--version'], { env, encoding: 'utf8' }).trim();
    const major = Number(/^v(\d+)/.exec(node)?.[1]);
    t.writeServers({ mcpServers: { pkg: { command: 'npx', args: ['-y', 'sb-store-pkg'] } } });
    const approved = await runCli(['approve', 'pkg', '--yes'], env);
    expect(approved.code, approved.stderr).toBe(0);

    // 1.0.1 needs a newer node than npm runs on: npm keeps 1.0.0, so there is nothing to update.
    await registry.publishAs(join(FIXTURES, 'sb-store-dep'), '1.0.1', {
      engines: { node: `>=${major + 1}` },
    });
    const outdated = await runCli(['outdated'], env);
    expect(outdated.code, outdated.stderr).toBe(0);
    expect(outdated.stdout).toBe('Every stored package is the newest its servers.json entry allows.\n');
    const update = await runCli(['update', 'pkg', '--yes'], env);
    expect(update.code, update.stderr).toBe(0);
    expect(update.stdout).toContain('pkg is up to date: nothing to update.');

    // 1.0.2 runs anywhere: both name it, and the update takes it.
    await registry.publishAs(join(FIXTURES, 'sb-store-dep'), '1.0.2');
    const found = JSON.parse((await runCli(['outdated', '--json'], env)).stdout) as {
      servers: { changes: string[] }[];
    };
    expect(found.servers.map((s) => s.changes)).toEqual([['sb-store-dep 1.0.0 → 1.0.2']]);
    const updated = await runCli(['update', 'pkg', '--yes'], env);
    expect(updated.stdout).toContain('sb-store-dep 1.0.0 → 1.0.2');
    expect((await runCli(['outdated'], env)).stdout).toContain('Every stored package is the newest');
  });

  it('outdated and update agree: a lockfile that differs only beside the versions (another registry address) is no update', async () => {
    t.writeServers({ mcpServers: { pkg: { command: 'npx', args: ['-y', 'sb-store-pkg'] } } });
    // As a person's npm does (the helper's registries omit them), lockfiles record `resolved` URLs.
    const resolved = { npm_config_omit_lockfile_registry_resolved: 'false' };
    const approved = await runCli(['approve', 'pkg', '--yes'], {
      ...t.env,
      ...registry.npmEnv(cache),
      ...resolved,
    });
    expect(approved.code, approved.stderr).toBe(0);
    // The same packages, byte for byte, at another address (a mirror, another port): npm's lockfile
    // records other `resolved` URLs, so its hash differs, while every version and integrity is the same.
    const mirror = await startNpmRegistry();
    try {
      await mirror.publish(join(FIXTURES, 'sb-store-dep'));
      await mirror.publish(join(FIXTURES, 'sb-store-pkg'));
      const env = { ...t.env, ...mirror.npmEnv(join(t.dir, 'mirror-cache')), ...resolved };
      const outdated = await runCli(['outdated'], env);
      expect(outdated.code, outdated.stderr).toBe(0);
      expect(outdated.stdout).toBe('Every stored package is the newest its servers.json entry allows.\n');
      const update = await runCli(['update', 'pkg', '--yes'], env);
      expect(update.code, update.stderr).toBe(0);
      expect(update.stdout).toContain('pkg is up to date: nothing to update.');
      // A real change is still found, by both.
      await mirror.publishAs(join(FIXTURES, 'sb-store-dep'), '1.0.1');
      const found = JSON.parse((await runCli(['outdated', '--json'], env)).stdout) as {
        servers: { changes: string[] }[];
      };
      expect(found.servers.map((s) => s.changes)).toEqual([['sb-store-dep 1.0.0 → 1.0.1']]);
      expect((await runCli(['update', 'pkg', '--yes'], env)).stdout).toContain('sb-store-dep 1.0.0 → 1.0.1');
    } finally {
      await mirror.close();
    }
  });
});
