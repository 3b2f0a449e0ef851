import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatusReportSchema, type ServerStatus } from '../../../shared/status.ts';
import { UiRoutes } from '../../../shared/ui-api.ts';
import { BIN, exited, runCli, startServe, stopAll } from '../../helpers/cli.ts';
import {
  defined,
  everythingServer,
  fixtureServer,
  HANG_MS,
  isAlive,
  NODE,
  waitFor,
} from '../../helpers/servers.ts';
import { filesUnder, tempHome, type TempHome } from '../../helpers/temp-home.ts';

let t: TempHome;
const children: ChildProcess[] = [];
/** processes a failing test may leave behind (not children of this one) */
const strays: number[] = [];

beforeEach(() => {
  t = tempHome();
});

afterEach(async () => {
  await stopAll(children);
  for (const pid of strays.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  t.cleanup();
});

async function status(): Promise<{ live: boolean; servers: ServerStatus[] }> {
  const result = await runCli(['status', '--json'], t.env);
  expect(result.code, result.stderr).toBe(0);
  return StatusReportSchema.parse(JSON.parse(result.stdout));
}

async function serverState(
  name: string,
  wanted: (s: ServerStatus) => boolean,
  what: string,
): Promise<ServerStatus> {
  return waitFor(
    async () => (await status()).servers.find((s) => s.name === name && wanted(s)),
    45_000,
    what,
  );
}

describe('switchboard CLI against a real `switchboard serve`', () => {
  // Tests that start serve more than once are bounded by HANG_MS: each step waits on an event, and a
  // busy machine takes many seconds per serve start.
  it(
    'after serve restarts, logs NAME (the UI reads the same) shows the history from logs/NAME.log',
    { timeout: HANG_MS },
    async () => {
      const mini = fixtureServer('mini-server.mjs');
      expect((await runCli(['add', 'mini', '--', mini.command, ...mini.args], t.env)).code).toBe(0);
      expect((await runCli(['approve', 'mini', '--yes'], t.env)).code).toBe(0);
      const first = await startServe(t.env);
      children.push(first.child);
      const running = await serverState('mini', (s) => s.state === 'running', 'mini running');
      const pid = defined(running.pid, 'pid');
      first.child.kill('SIGTERM');
      await exited(first.child);

      const second = await startServe(t.env);
      children.push(second.child);
      await serverState('mini', (s) => s.state === 'idle' || s.state === 'running', 'mini up again');
      const logs = await runCli(['logs', 'mini', '--json'], t.env);
      expect(logs.code, logs.stderr).toBe(0);
      const lines = (JSON.parse(logs.stdout) as { lines: { text: string; ts: number }[] }).lines;
      const texts = lines.map((l) => l.text);
      expect(texts.some((text) => text.startsWith(`spawned pid ${pid}: `))).toBe(true);
      expect(texts).toContain('running: initialize answered by mini-server 1.0.0');
      // Oldest first, the earlier run's lines before this run's.
      expect(lines.map((l) => l.ts)).toEqual([...lines.map((l) => l.ts)].sort((a, b) => a - b));
      const plain = await runCli(['logs', 'mini'], t.env);
      expect(plain.stdout).toContain(`spawned pid ${pid}: `);
    },
  );

  it(
    'a server the person stopped stays stopped across restarts of serve until they start it',
    { timeout: HANG_MS },
    async () => {
      const mini = fixtureServer('mini-server.mjs');
      for (const name of ['keep', 'halt']) {
        const add = await runCli(['add', name, '--', mini.command, ...mini.args], t.env);
        expect(add.code, add.stderr).toBe(0);
        expect((await runCli(['approve', name, '--yes'], t.env)).code).toBe(0);
      }
      const up = (s: ServerStatus) => s.state === 'running' || s.state === 'idle';
      const restartServe = async (serve?: ChildProcess): Promise<ChildProcess> => {
        if (serve) {
          serve.kill('SIGTERM');
          await exited(serve);
        }
        const next = await startServe(t.env);
        children.push(next.child);
        return next.child;
      };
      let serve = await restartServe();
      await serverState('halt', (s) => s.state === 'running', 'halt running');
      const stop = await runCli(['stop', 'halt'], t.env);
      expect(stop.code, stop.stderr).toBe(0);
      await serverState('halt', (s) => s.state === 'stopped' && s.pid === null, 'halt stopped');

      serve = await restartServe(serve);
      // Once "keep" came up, "halt" was decided too (one pass over the servers): it waits for the person.
      await serverState('keep', up, 'keep up again');
      expect((await status()).servers.find((s) => s.name === 'halt')).toMatchObject({
        state: 'stopped',
        pid: null,
      });

      expect((await runCli(['start', 'halt'], t.env)).code).toBe(0);
      await serverState('halt', (s) => s.state === 'running', 'halt started by the person');
      serve = await restartServe(serve);
      await serverState('halt', up, 'halt up after a restart, as before the stop');

      // Stopped while Switchboard is not running: kept for its next start.
      serve.kill('SIGTERM');
      await exited(serve);
      const offline = await runCli(['stop', 'keep'], t.env);
      expect(offline.code, offline.stderr).toBe(0);
      expect(offline.stdout).toContain('"keep" stays stopped when it starts');
      await restartServe(); // stopped in afterEach
      await serverState('halt', up, 'halt up');
      expect((await status()).servers.find((s) => s.name === 'keep')).toMatchObject({ state: 'stopped' });
    },
  );

  it('adds, approves and runs server-everything, restarts it after kill -9, and stops it on SIGTERM', async () => {
    const { command, args } = everythingServer();
    const add = await runCli(['add', 'everything', '--', command, ...args], t.env);
    expect(add.code, add.stderr).toBe(0);

    const offline = await status();
    expect(offline.live).toBe(false);
    expect(offline.servers).toMatchObject([{ name: 'everything', state: 'pending-approval', pid: null }]);

    const serve = await startServe(t.env);
    children.push(serve.child);
    await waitFor(() => serve.output().includes('Waiting for approval: everything'), 5_000, 'pending notice');
    expect((await status()).live).toBe(true);

    const approve = await runCli(['approve', 'everything', '--yes'], t.env);
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.stdout).toContain(`command: ${command} ${args.join(' ')}`);

    // running is reported as soon as initialize answered; its tools come right after
    const first = await serverState(
      'everything',
      (s) => s.state === 'running' && s.toolCount !== null,
      'running',
    );
    expect(first.toolCount).toBeGreaterThan(3);
    process.kill(defined(first.pid, 'first pid'), 'SIGKILL');
    const second = await serverState(
      'everything',
      (s) => s.state === 'running' && s.pid !== first.pid,
      'restarted',
    );
    expect(second.restarts).toBe(1);

    const logs = await runCli(['logs', 'everything'], t.env);
    expect(logs.stdout).toMatch(/exited .*SIGKILL/);

    serve.child.kill('SIGTERM');
    expect(await exited(serve.child)).toBe(0);
    expect(isAlive(defined(second.pid, 'second pid'))).toBe(false);
    expect((await status()).live).toBe(false);
  });

  it('reaps the servers a killed `serve` left behind when it starts again', async () => {
    // Like `npx` → node: a server that outlives its parent (ignores stdin EOF) and has a grandchild.
    const pidsFile = join(t.dir, 'pids.json');
    t.writeServers({
      mcpServers: {
        // always running: the second serve starts it at once (instead of when first used)
        a: {
          ...fixtureServer('mini-server.mjs', '--ignore-eof', '--grandchild', `--pids-file=${pidsFile}`),
          idleTimeout: 0,
          // Unsandboxed: a sandboxed server dies with serve (bubblewrap's --die-with-parent) and its
          // pids are its own namespace's; test/integration/sandbox covers that case.
          sandbox: false,
        },
      },
    });
    await runCli(['approve', 'a', '--yes'], t.env);
    const serve = await startServe(t.env);
    children.push(serve.child);
    const orphan = await serverState('a', (s) => s.state === 'running', 'running');
    const { grandchild } = JSON.parse(readFileSync(pidsFile, 'utf8')) as { grandchild: number };
    serve.child.kill('SIGKILL');
    await exited(serve.child);
    const orphanPid = defined(orphan.pid, 'orphan pid');
    expect(isAlive(orphanPid)).toBe(true);
    expect(isAlive(grandchild)).toBe(true);

    const again = await startServe(t.env);
    children.push(again.child);
    await waitFor(() => !isAlive(orphanPid) && !isAlive(grandchild), 10_000, 'orphan and grandchild reaped');
    const fresh = await serverState('a', (s) => s.state === 'running', 'running again');
    expect(fresh.pid).not.toBe(orphan.pid);
  });

  it("stops every server when what started it exits (a process manager's SIGTERM to npm's sh -c)", async () => {
    const pidsFile = join(t.dir, 'pids.json');
    t.writeServers({
      // Host pids from inside the server: unsandboxed (test/integration/sandbox stops sandboxed ones).
      mcpServers: {
        a: { ...fixtureServer('mini-server.mjs', '--grandchild', `--pids-file=${pidsFile}`), sandbox: false },
      },
    });
    await runCli(['approve', 'a', '--yes'], t.env);
    // As `npx switchboard serve` runs it: npm → sh -c "switchboard serve" → node. (`; exit` keeps a
    // shell that would exec a lone command from doing so; Debian's dash does not exec it either.)
    const sh = spawn('sh', ['-c', `'${NODE}' '${BIN}' serve --port 0; exit $?`], {
      env: t.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(sh);
    let output = '';
    sh.stdout.on('data', (d: Buffer) => (output += d.toString()));
    sh.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const server = await serverState('a', (s) => s.state === 'running', 'running');
    const serve = (JSON.parse(readFileSync(join(t.home.run, 'serve.json'), 'utf8')) as { pid: number }).pid;
    const { pid, grandchild } = JSON.parse(readFileSync(pidsFile, 'utf8')) as {
      pid: number;
      grandchild: number;
    };
    strays.push(serve, pid, grandchild);
    expect(server.pid).toBe(pid);
    expect(serve).not.toBe(sh.pid);

    sh.kill('SIGTERM');
    await exited(sh);
    await waitFor(
      () => !isAlive(serve) && !isAlive(pid) && !isAlive(grandchild),
      10_000,
      'serve, the server and its grandchild gone',
    );
    expect(output).toContain(
      `the process that started Switchboard (pid ${sh.pid}) exited: stopping every server`,
    );
    expect(output).toContain('Stopped.');
    expect((await status()).live).toBe(false);
  });

  it('keeps a secret in the keychain: resolved at spawn, redacted from logs, absent from every file', async () => {
    const canary = `canary-${Math.random().toString(36).slice(2)}-value`;
    const set = await runCli(['secret', 'set', 'sb-test-canary'], t.env, canary + '\n');
    expect(set.code, set.stderr).toBe(0);
    const list = await runCli(['secret', 'list'], t.env);
    expect(list.stdout).toContain('sb-test-canary');
    expect(list.stdout).not.toContain(canary);

    t.writeServers({
      mcpServers: {
        env: {
          ...fixtureServer('env-echo-server.mjs', 'CANARY'),
          env: { CANARY: '${secret:sb-test-canary}' },
        },
      },
    });
    await runCli(['approve', 'env', '--yes'], t.env);
    const serve = await startServe(t.env);
    children.push(serve.child);
    await serverState('env', (s) => s.state === 'running', 'running');
    const logs = await runCli(['logs', 'env'], t.env);
    expect(logs.stdout).toContain('env-echo starting with CANARY=[redacted]');
    serve.child.kill('SIGTERM');
    await exited(serve.child);

    for (const file of filesUnder(t.dir)) {
      if (statSync(file).size > 5_000_000) continue;
      expect(readFileSync(file, 'utf8'), file).not.toContain(canary);
    }
    expect(serve.output()).not.toContain(canary);
    const rm = await runCli(['secret', 'rm', 'sb-test-canary', '--force'], t.env);
    expect(rm.code).toBe(0);
  });

  it('`ui` prints a fresh sign-in link; `ui --sign-out` signs every browser out, running or not', async () => {
    const serve = await startServe(t.env);
    children.push(serve.child);
    const origin = new URL(/Open the UI: (\S+)/.exec(serve.output())?.[1] ?? '').origin;
    /** What the sign-in page does with a link: trades its code for the browser's session secret. */
    const signIn = async (link: string): Promise<string> => {
      const res = await fetch(`${new URL(link).origin}${UiRoutes.session}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: new URL(link).searchParams.get('code') }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { session: string }).session;
    };
    const newLink = async (): Promise<string> => {
      const ui = await runCli(['ui'], t.env);
      expect(ui.code, ui.stderr).toBe(0);
      expect(ui.stdout).toContain('stays signed in for 30 days');
      return /Open the UI: (\S+)/.exec(ui.stdout)?.[1] ?? '';
    };
    const statusWith = async (session: string, at = origin) =>
      (await fetch(`${at}/api/status`, { headers: { authorization: `Bearer ${session}` } })).status;

    const first = await signIn(/Open the UI: (\S+)/.exec(serve.output())?.[1] ?? '');
    const second = await signIn(await newLink());
    expect([await statusWith(first), await statusWith(second)]).toEqual([200, 200]);
    const out = await runCli(['ui', '--sign-out'], t.env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('Signed out 2 browsers.');
    expect([await statusWith(first), await statusWith(second)]).toEqual([401, 401]);

    // Not running: the next start finds nobody signed in.
    const third = await signIn(await newLink());
    serve.child.kill('SIGTERM');
    await exited(serve.child);
    const offline = await runCli(['ui', '--sign-out'], t.env);
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stdout).toContain('Signed out every browser.');
    const again = await startServe(t.env);
    children.push(again.child);
    const newOrigin = new URL(/Open the UI: (\S+)/.exec(again.output())?.[1] ?? '').origin;
    expect(await statusWith(third, newOrigin)).toBe(401);
    expect((await runCli(['ui', '--sign-in'], t.env)).code).toBe(2);
  });

  it('answers bad input with clear errors and the documented exit codes', async () => {
    expect((await runCli(['frobnicate'], t.env)).code).toBe(2);
    const unknown = await runCli(['approve', 'nope'], t.env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no server named "nope"');
    const shell = await runCli(['add', 'gh', '--', 'npx -y server-github'], t.env);
    expect(shell.code).toBe(1);
    expect(shell.stderr).toContain('put arguments in "args"');
    t.writeServers('{ "mcpServers": { "x": { "command": 42 } } }');
    const st = await runCli(['status'], t.env);
    expect(st.stdout).toContain('servers.json:1:');
    expect(st.stdout).toContain('server "x", field "command"');
    expect(st.stdout).not.toContain('No servers configured');
    // The server is in the file; the file is what is wrong, and the error says so.
    const approveBroken = await runCli(['approve', 'x'], t.env);
    expect(approveBroken.code).toBe(1);
    expect(approveBroken.stderr).toContain('servers.json has errors, so server "x" cannot be read from it');
    expect(approveBroken.stderr).toContain('server "x", field "command"');
  });
});
