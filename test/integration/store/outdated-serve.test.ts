import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startServe, stopProcess } from '../../helpers/cli.ts';
import { lockResolvers, watchLockResolvers } from '../../helpers/lock-resolvers.ts';
import { startNpmRegistry, type NpmRegistry } from '../../helpers/npm-registry.ts';
import { defined, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// `outdated` and `update` while a real `switchboard serve` runs: the CLI asks serve's control API and
// serve resolves, each batch in one short-lived child of its own (npm-batch-child.ts) with the
// person's npm's resolver, not an npm process per server and not npm loaded into serve. A real npm,
// the real local registry (packages in only through `npm publish`), real CLI processes.

const FIXTURES = join(import.meta.dirname, '../../fixtures/store');
const NEWEST = 'Every stored package is the newest its servers.json entry allows.\n';

let t: TempHome;
let registry: NpmRegistry;
let serve: ChildProcess | undefined;

beforeEach(async () => {
  t = tempHome();
  registry = await startNpmRegistry();
  await registry.publish(join(FIXTURES, 'sb-store-dep'));
  await registry.publish(join(FIXTURES, 'sb-store-pkg'));
});

afterEach(async () => {
  if (serve) await stopProcess(serve);
  serve = undefined;
  await registry.close();
  t.cleanup();
});

describe('outdated while serve runs', { timeout: 240_000 }, () => {
  it('serve resolves a batch in one child of its own, and outdated and update agree on a release npm skips for its engines and on one it takes', async () => {
    // The node the servers' npm runs on: the system's when there is one (it may be older than the
    // node running Switchboard, whose version npm must then not use), else the first on PATH.
    const path =
      existsSync('/usr/bin/node') && existsSync('/usr/bin/npx')
        ? `/usr/bin:${process.env.PATH ?? ''}`
        : (process.env.PATH ?? '');
    const env = { ...t.env, ...registry.npmEnv(join(t.dir, 'npm-cache')), PATH: path };
    const node = execFileSync('node', ['--version'], { env, encoding: 'utf8' }).trim();
    const major = Number(/^v(\d+)/.exec(node)?.[1]);
    const server = { command: 'npx', args: ['-y', 'sb-store-pkg'] };
    t.writeServers({ mcpServers: { alpha: server, beta: server } });
    for (const name of ['alpha', 'beta']) {
      const approved = await runCli(['approve', name, '--yes'], env);
      expect(approved.code, approved.stderr).toBe(0);
    }
    const started = await startServe(env);
    serve = started.child;
    const servePid = defined(serve.pid, "serve's pid");
    /**
     * A CLI command run while watching which processes under serve resolve locks, once the last
     * batch's child is gone (it exits a moment after its batch is answered).
     */
    const cli = async (args: string[]) => {
      await waitFor(
        () => lockResolvers(servePid).batch.length === 0,
        10_000,
        "the last batch's child to exit",
      );
      return watchLockResolvers(servePid, () => runCli(args, env));
    };

    // 1.0.1 needs a newer node than npm runs on: npm keeps 1.0.0, so there is nothing to update.
    await registry.publishAs(join(FIXTURES, 'sb-store-dep'), '1.0.1', {
      engines: { node: `>=${major + 1}` },
    });
    const skipped = await cli(['outdated']);
    expect(skipped.value.code, skipped.value.stderr).toBe(0);
    expect(skipped.value.stdout).toBe(NEWEST);
    // Both servers' locks in one child of serve; no npm process per server.
    expect(skipped.batch.size).toBe(1);
    expect(skipped.npm.size).toBe(0);
    const upToDate = await cli(['update', 'alpha', '--yes']);
    expect(upToDate.value.code, upToDate.value.stderr).toBe(0);
    expect(upToDate.value.stdout).toContain('alpha is up to date: nothing to update.');
    expect(upToDate.batch.size).toBe(1);
    expect(upToDate.npm.size).toBe(0);

    // 1.0.2 runs anywhere: both name it for both servers, and the update takes it.
    await registry.publishAs(join(FIXTURES, 'sb-store-dep'), '1.0.2');
    const found = await cli(['outdated', '--json']);
    expect(found.value.code, found.value.stderr).toBe(0);
    const servers = (JSON.parse(found.value.stdout) as { servers: { server: string; changes: string[] }[] })
      .servers;
    expect(servers.map((s) => [s.server, s.changes])).toEqual([
      ['alpha', ['sb-store-dep 1.0.0 → 1.0.2']],
      ['beta', ['sb-store-dep 1.0.0 → 1.0.2']],
    ]);
    expect(found.batch.size).toBe(1);
    expect(found.npm.size).toBe(0);
    // Each batch has a child of its own, gone once answered.
    expect([...found.batch].some((pid) => skipped.batch.has(pid))).toBe(false);

    const updated = await cli(['update', 'alpha', '--yes']);
    expect(updated.value.code, updated.value.stderr).toBe(0);
    expect(updated.value.stdout).toContain('sb-store-dep 1.0.0 → 1.0.2');
    const after = JSON.parse((await runCli(['outdated', '--json'], env)).stdout) as {
      servers: { server: string }[];
    };
    expect(after.servers.map((s) => s.server)).toEqual(['beta']);
  });
});
