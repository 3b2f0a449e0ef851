import { chmodSync, lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exited, runCli, startServe, useHomePerTest } from '../../helpers/cli.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';

/**
 * The Switchboard home is its user's alone (issue 21): every folder 0700, every file without group or
 * other bits, whatever made them (serve, the CLI, the compile cache, logs, pins, lists) and however
 * loose a home from before was. What a server writes in its own folder (data/<name>/) is its own.
 */

const { t, children } = useHomePerTest();

/** Everything in the home that another user could list or read: "path mode" for each. */
function loose(root: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    const mode = stat.mode & 0o777;
    const where = relative(root, path) || '.';
    if (stat.isDirectory() ? mode !== 0o700 : (mode & 0o077) !== 0)
      found.push(`${where} ${mode.toString(8)}`);
    if (!stat.isDirectory()) return;
    // inside a server's own folder, what it writes is its own
    if (relative(root, join(path, '..')) === 'data') return;
    for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(root);
  return found;
}

/** The environment of a person's own terminal: the home's compile cache, the usual umask. */
function env(): NodeJS.ProcessEnv {
  const e = { ...t.env };
  delete e.NODE_COMPILE_CACHE;
  return e;
}

describe("the Switchboard home's permissions", () => {
  it('a home made from nothing by the CLI and serve: folders 0700, files 0600', async () => {
    rmSync(t.home.root, { recursive: true, force: true });
    const added = await runCli(
      ['add', 'mini', '--', ...Object.values(fixtureServer('mini-server.mjs')).flat()],
      env(),
    );
    expect(added.code, added.stderr).toBe(0);
    // the CLI alone, before serve ever ran, made it private
    expect(loose(t.home.root)).toEqual([]);
    const serve = await startServe(env());
    children.push(serve.child);
    const approved = await runCli(['approve', 'mini', '--yes'], env());
    expect(approved.code, approved.stderr).toBe(0);
    await waitFor(
      async () => (await runCli(['status', '--json'], env())).stdout.includes('"running"'),
      30_000,
      'mini running',
    );
    expect((await runCli(['token', 'create', 'other-client'], env())).code).toBe(0);
    serve.child.kill('SIGTERM');
    await exited(serve.child);
    // what there is to check: the servers file, state, tokens, logs, pins, lists, the compile cache
    for (const made of [
      'servers.json',
      'state.json',
      'tokens',
      'logs',
      'pins',
      'cache',
      'cache/node-compile',
    ])
      expect(() => lstatSync(join(t.home.root, made)), made).not.toThrow();
    expect(loose(t.home.root)).toEqual([]);
  }, 120_000);

  it('an existing home made with the umask (0755 folders, 0644 files) is tightened at the next start', async () => {
    const files = ['servers.json', 'state.json', 'logs/mini.log', 'pins/mini.json', 'cache/lists/mini.json'];
    for (const dir of ['logs', 'pins', 'cache/lists', 'cache/node-compile/v24', 'data/mini'])
      mkdirSync(join(t.home.root, dir), { recursive: true, mode: 0o755 });
    for (const file of files)
      writeFileSync(join(t.home.root, file), file.endsWith('servers.json') ? '{"mcpServers": {}}' : '{}');
    writeFileSync(join(t.home.root, 'data/mini/its-own.txt'), 'a server file');
    for (const path of [t.home.root, ...files.map((f) => join(t.home.root, f))])
      chmodSync(path, path === t.home.root ? 0o755 : 0o644);
    expect(loose(t.home.root).length).toBeGreaterThan(5);

    const status = await runCli(['status'], env());
    expect(status.code, status.stderr).toBe(0);
    expect(loose(t.home.root)).toEqual([]);
    // a server's own files are left as it made them
    expect(lstatSync(join(t.home.root, 'data/mini/its-own.txt')).mode & 0o777).toBe(0o644);
  });
});
