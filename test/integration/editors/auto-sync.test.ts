import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exited, runCli, startServe } from '../../helpers/cli.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { editorFile, install } from './helpers.ts';

// Automatic editor sync is the product, but it is said at start which editors it writes, and one
// switch (Settings) turns it off: then editors change only on an explicit sync (issue 11).

let t: TempHome;
let serve: { child: ChildProcess; output: () => string } | undefined;

beforeEach(() => {
  t = tempHome();
});
afterEach(async () => {
  serve?.child.kill('SIGTERM');
  if (serve) await exited(serve.child);
  serve = undefined;
  t.cleanup();
});

async function settings(body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const port = Number(/127\.0\.0\.1:(\d+)/.exec(serve?.output() ?? '')?.[1]);
  const control = readFileSync(join(t.home.tokens, 'control'), 'utf8').trim();
  const res = await fetch(`http://127.0.0.1:${port}/api/settings`, {
    method: body === undefined ? 'GET' : 'PUT',
    headers: { authorization: `Bearer ${control}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const zedServers = (): string[] => {
  const file = editorFile(t, 'zed');
  if (!existsSync(file)) return [];
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { context_servers?: Record<string, unknown> };
  return Object.keys(parsed.context_servers ?? {}).sort();
};

describe('automatic editor sync', () => {
  it('says at start which editors it keeps in sync, and when turned off writes them only on `sync`', async () => {
    install(t, 'zed', '{}\n');
    t.writeServers({ mcpServers: { first: fixtureServer('mini-server.mjs') } });
    serve = await startServe(t.env);
    expect(serve.output()).toMatch(/Editors kept in sync: Zed — each gets every server you approve/);
    expect((await settings()).body.autoSync).toBe(true);

    expect((await settings({ autoSync: false })).body.autoSync).toBe(false);
    expect(JSON.parse(readFileSync(t.home.stateFile, 'utf8'))).toMatchObject({
      settings: { autoSync: false },
    });
    expect((await runCli(['approve', 'first', '--yes'], t.env)).code).toBe(0);
    await waitFor(
      async () => (await runCli(['status', '--json'], t.env)).stdout.includes('"running"'),
      30_000,
      'first running',
    );
    await new Promise((r) => setTimeout(r, 500)); // past the service's debounce
    expect(zedServers()).toEqual([]);

    const sync = await runCli(['sync'], t.env);
    expect(sync.code, sync.stdout + sync.stderr).toBe(0);
    expect(zedServers()).toEqual(['first']);

    // Off across a restart, and said so.
    serve.child.kill('SIGTERM');
    await exited(serve.child);
    serve = await startServe(t.env);
    expect(serve.output()).toContain('Automatic editor sync is off (Settings)');

    // Back on: the editors catch up at once.
    t.writeServers({
      mcpServers: { first: fixtureServer('mini-server.mjs'), second: fixtureServer('mini-server.mjs') },
    });
    expect((await runCli(['approve', 'second', '--yes'], t.env)).code).toBe(0);
    await new Promise((r) => setTimeout(r, 500));
    expect(zedServers()).toEqual(['first']);
    expect((await settings({ autoSync: true })).body.autoSync).toBe(true);
    expect(zedServers()).toEqual(['first', 'second']);
  }, 120_000);
});
