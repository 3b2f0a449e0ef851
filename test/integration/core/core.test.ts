import { readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Core } from '../../../electron/core/core.ts';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import type { ServerStatus } from '../../../shared/status.ts';
import { defined, everythingServer, fixtureServer, isAlive, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

let t: TempHome;
let core: Core;

function statusOf(name: string): ServerStatus | undefined {
  return core.status.report().servers.find((s) => s.name === name);
}

async function running(name: string): Promise<ServerStatus> {
  return waitFor(
    () => {
      const s = statusOf(name);
      return s?.state === 'running' ? s : undefined;
    },
    45_000,
    `${name} running (last: ${JSON.stringify(statusOf(name))})`,
  );
}

beforeEach(() => {
  t = tempHome();
});

afterEach(async () => {
  await core?.lifecycle.shutdown();
  t.cleanup();
});

function startCore(): Promise<void> {
  core = new Core({ home: t.home, keychain: new OsKeychain(), env: t.env, watch: true });
  return core.lifecycle.start();
}

describe('core: trust and supervision with real servers', () => {
  it('keeps a new server pending until approved, then runs it with its tools listed', async () => {
    t.writeServers({ mcpServers: { everything: everythingServer() } });
    await startCore();
    expect(statusOf('everything')).toMatchObject({ state: 'pending-approval', pid: null });
    // A hand-written servers.json gets completion from "$schema": "./servers.schema.json".
    expect(JSON.parse(readFileSync(join(t.home.root, 'servers.schema.json'), 'utf8'))).toMatchObject({
      title: 'Switchboard servers.json',
    });
    // Pending means never spawned: nothing has been started for it at all.
    await new Promise((r) => setTimeout(r, 300));
    expect(statusOf('everything')?.pid).toBeNull();
    expect(core.lifecycle.supervisor()?.statusOf('everything')).toBeUndefined();

    const approval = core.approvals.approve('everything', core.approvals.review('everything').fingerprint);
    expect(approval.launch[0]).toBe(
      `command: ${everythingServer().command} ${everythingServer().args.join(' ')}`,
    );
    const s = await running('everything');
    expect(s.pid).toBeGreaterThan(0);
    const tools = await waitFor(() => statusOf('everything')?.toolCount, 10_000, 'tool count');
    expect(tools).toBeGreaterThan(3);
    // The approval lives in app state, never in the user's servers.json.
    expect(readFileSync(t.home.serversFile, 'utf8')).not.toContain(approval.fingerprint);
    expect(readFileSync(t.home.stateFile, 'utf8')).toContain(approval.fingerprint);
  });

  it.runIf(process.platform === 'linux')(
    'runs a server without "cwd" in its own folder (data/<name>, 0700), never in the home, and says which',
    async () => {
      const own = fixtureServer('mini-server.mjs');
      t.writeServers({ mcpServers: { own, here: { ...own, cwd: t.dir } } });
      await startCore();
      const folder = join(t.home.data, 'own');
      // The approval and the status say where it runs.
      expect(core.approvals.review('own').lines).toContain(`runs in: ${folder} (its own folder)`);
      expect(core.approvals.review('here').lines).toContain(`cwd: ${t.dir}`);
      expect(statusOf('own')?.folder).toBe(folder);
      expect(statusOf('here')?.folder).toBe(t.dir);
      for (const name of ['own', 'here'])
        core.approvals.approve(name, core.approvals.review(name).fingerprint);
      const pid = defined((await running('own')).pid, 'pid');
      // where the process really is (Linux: /proc/<pid>/cwd)
      expect(readlinkSync(`/proc/${pid}/cwd`)).toBe(folder);
      expect(statSync(folder).mode & 0o777).toBe(0o700);
      expect(readlinkSync(`/proc/${defined((await running('here')).pid, 'pid')}/cwd`)).toBe(t.dir);
      expect(statusOf('own')?.folder).toBe(folder);
    },
  );

  it('cannot be approved by editing servers.json', async () => {
    t.writeServers({ mcpServers: { everything: { ...everythingServer(), approved: true } } });
    await startCore();
    expect(core.status.report().configError).toContain('unknown field "approved"');
    expect(core.status.report().servers).toEqual([]);
  });

  it('hot reload restarts only the server whose config changed', async () => {
    const a = fixtureServer('env-echo-server.mjs', 'A_VALUE');
    const b = fixtureServer('env-echo-server.mjs', 'B_VALUE');
    t.writeServers({ mcpServers: { a: { ...a, env: { A_VALUE: '1' } }, b } });
    await startCore();
    core.approvals.approve('a', core.approvals.review('a').fingerprint);
    core.approvals.approve('b', core.approvals.review('b').fingerprint);
    const pidA = (await running('a')).pid;
    const pidB = (await running('b')).pid;

    // Change a: it goes back to pending (config changed), b keeps running untouched.
    t.writeServers({ mcpServers: { a: { ...a, env: { A_VALUE: '2' } }, b } });
    await waitFor(() => statusOf('a')?.state === 'pending-approval', 10_000, 'a pending after edit');
    await waitFor(() => !isAlive(defined(pidA, 'pid of a')), 10_000, 'old a process gone');
    expect(statusOf('b')).toMatchObject({ state: 'running', pid: pidB });
    core.approvals.approve('a', core.approvals.review('a').fingerprint);
    const newA = await running('a');
    expect(newA.pid).not.toBe(pidA);
    expect(statusOf('b')?.pid).toBe(pidB);

    // Adding a server does not restart the others.
    t.writeServers({ mcpServers: { a: { ...a, env: { A_VALUE: '2' } }, b, c: everythingServer() } });
    await waitFor(() => statusOf('c')?.state === 'pending-approval', 10_000, 'c appears');
    expect(statusOf('a')?.pid).toBe(newA.pid);
    expect(statusOf('b')?.pid).toBe(pidB);

    // Removing a server stops it.
    t.writeServers({ mcpServers: { a: { ...a, env: { A_VALUE: '2' } } } });
    await waitFor(() => !isAlive(defined(pidB, 'pid of b')), 10_000, 'b stopped after removal');
    expect(statusOf('b')).toBeUndefined();
    expect(statusOf('a')?.pid).toBe(newA.pid);
  });

  it('keeps the last good config running when servers.json becomes invalid', async () => {
    t.writeServers({ mcpServers: { a: fixtureServer('env-echo-server.mjs') } });
    await startCore();
    core.approvals.approve('a', core.approvals.review('a').fingerprint);
    const pid = (await running('a')).pid;
    writeFileSync(t.home.serversFile, '{ "mcpServers": { "a": { "command": "node", "args": [ } }');
    await waitFor(() => core.status.report().configError, 10_000, 'config error reported');
    expect(core.status.report().configError).toMatch(/^servers\.json:1:\d+: not valid JSON/);
    expect(statusOf('a')).toMatchObject({ state: 'running', pid });
    expect(isAlive(defined(pid, 'pid of a'))).toBe(true);
  });

  it('deny keeps a server from running until its config changes', async () => {
    const server = fixtureServer('env-echo-server.mjs');
    t.writeServers({ mcpServers: { a: server } });
    await startCore();
    core.approvals.deny('a');
    expect(statusOf('a')?.state).toBe('denied');
    await expect(core.lifecycle.startServer('a')).rejects.toThrow('was denied');
    t.writeServers({ mcpServers: { a: { ...server, env: { X: '1' } } } });
    await waitFor(() => statusOf('a')?.state === 'pending-approval', 10_000, 'pending again after change');
  });

  it('asks again for a server that was removed and added back, even with the identical config', async () => {
    const a = fixtureServer('env-echo-server.mjs');
    const b = fixtureServer('env-echo-server.mjs', 'B_VALUE');
    t.writeServers({ mcpServers: { a, b } });
    await startCore();
    core.approvals.approve('a', core.approvals.review('a').fingerprint);
    core.approvals.approve('b', core.approvals.review('b').fingerprint);
    const pidA = (await running('a')).pid;

    t.writeServers({ mcpServers: { b } });
    await waitFor(() => !isAlive(defined(pidA, 'pid of a')), 10_000, 'a stopped after removal');
    t.writeServers({ mcpServers: { a, b } });
    await waitFor(() => statusOf('a')?.state === 'pending-approval', 10_000, 'a pending again');
    await new Promise((r) => setTimeout(r, 300));
    expect(core.lifecycle.supervisor()?.statusOf('a')).toBeUndefined();
    expect(statusOf('b')?.state).toBe('running');
    expect(readFileSync(t.home.stateFile, 'utf8')).not.toContain('"a"');
  });

  it('refuses a literal secret in env with the one-step fix, and never starts it', async () => {
    t.writeServers({
      mcpServers: {
        gh: {
          ...fixtureServer('env-echo-server.mjs'),
          env: { GITHUB_TOKEN: 'ghp_8fK2mQ9xLr4TzW7bN1vC5yH3jD6sA0pE2uRt' },
        },
      },
    });
    await startCore();
    const s = statusOf('gh');
    expect(s?.state).toBe('error');
    expect(s?.lastError).toContain('switchboard secret move gh GITHUB_TOKEN');
    expect(s?.lastError).not.toContain('ghp_8fK2');
    expect(() => core.approvals.approve('gh', core.approvals.review('gh').fingerprint)).toThrow(
      'cannot be approved',
    );
  });

  it('reports a missing command as an error a person can act on', async () => {
    t.writeServers({ mcpServers: { ghost: { command: 'definitely-not-installed-xyz' } } });
    await startCore();
    core.approvals.approve('ghost', core.approvals.review('ghost').fingerprint);
    const s = await waitFor(
      () => (statusOf('ghost')?.state === 'error' ? statusOf('ghost') : undefined),
      10_000,
      'error state',
    );
    expect(s.lastError).toContain('command "definitely-not-installed-xyz" was not found');
  });
});
