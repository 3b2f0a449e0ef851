import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reapOrphans, writePidFile } from '../../../electron/core/supervisor/pid-files.ts';
import { processStartToken } from '../../../electron/core/supervisor/process-table.ts';
import { Supervisor } from '../../../electron/core/supervisor/supervisor.ts';
import { fixture, isRunning, killHard, readPids, sleep, waitFor } from './helpers.ts';

describe.skipIf(process.platform === 'win32')('orphans after the host is killed with SIGKILL', () => {
  let home: string;
  const cleanup: number[] = [];
  const hosts: ChildProcess[] = [];

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'switchboard-orphans-'));
  });

  afterEach(() => {
    for (const host of hosts.splice(0)) host.kill('SIGKILL');
    for (const pid of cleanup.splice(0)) {
      killHard(pid);
      killHard(pid, false);
    }
    rmSync(home, { recursive: true, force: true });
  });

  /** Runs a Supervisor in a separate host process, waits for its server to run, then kill -9s the host. */
  async function orphanAServer(): Promise<{ pid: number; grandchild: number; runDir: string }> {
    const runDir = join(home, 'run');
    const pidsFile = join(home, 'pids.json');
    const host = spawn(process.execPath, [fixture('supervisor-host.ts'), runDir, pidsFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    hosts.push(host);
    let out = '';
    let err = '';
    host.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    host.stderr?.on('data', (c: Buffer) => (err += c.toString()));
    await waitFor(() => out.includes('running ') || host.exitCode !== null, 'the host to report running');
    expect(host.exitCode, err).toBeNull();
    const { pid, grandchild } = readPids(pidsFile);
    cleanup.push(pid, grandchild as number);
    await waitFor(() => existsSync(join(runDir, 'orphan-maker.pid')), 'the pid file');

    host.kill('SIGKILL');
    await once(host, 'exit');
    await sleep(200);
    // The server's group outlived its host: exactly the leftovers the next start must clean up.
    expect(isRunning(pid)).toBe(true);
    expect(isRunning(grandchild as number)).toBe(true);
    return { pid, grandchild: grandchild as number, runDir };
  }

  it('reapOrphans() kills the leftover process group, grandchildren included, and reports it', async () => {
    const { pid, grandchild, runDir } = await orphanAServer();
    const record = JSON.parse(readFileSync(join(runDir, 'orphan-maker.pid'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(record).toMatchObject({ name: 'orphan-maker', pid, pgid: pid });
    expect(record.command).toContain('mini-server.mjs');

    const reaped = await reapOrphans(runDir);
    expect(reaped).toEqual([
      expect.objectContaining({
        name: 'orphan-maker',
        pid,
        pgid: pid,
        killed: expect.arrayContaining([pid, grandchild]),
      }),
    ]);
    expect(isRunning(pid)).toBe(false);
    expect(isRunning(grandchild)).toBe(false);
    expect(readdirSync(runDir)).toEqual([]);
  });

  it('a new Supervisor reaps them before starting anything, and logs it', async () => {
    const { pid, grandchild, runDir } = await orphanAServer();
    const supervisor = new Supervisor({ runDir });
    try {
      await supervisor.reconcile([]);
      expect(isRunning(pid)).toBe(false);
      expect(isRunning(grandchild)).toBe(false);
      expect(supervisor.logs('orphan-maker').map((l) => l.text)).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^reaped process group ${pid} left by a previous run \\(pids .*${grandchild}.*\\): .*mini-server`,
          ),
        ),
      );
    } finally {
      await supervisor.shutdown();
    }
  });

  it('leaves alone a process that merely got a recorded pid (pid reuse)', async () => {
    const runDir = join(home, 'run');
    // An unrelated process, leading its own group, like a server would.
    const bystander = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      detached: true,
      stdio: 'ignore',
    });
    await once(bystander, 'spawn');
    const pid = bystander.pid as number;
    cleanup.push(pid);
    const realToken = await processStartToken(pid);
    expect(realToken).not.toBeNull();
    // A stale record for that pid from "another" process: the start time does not match.
    await writePidFile(runDir, {
      name: 'stale',
      pid,
      pgid: pid,
      command: 'node old-server.js',
      startedAt: Date.now() - 86_400_000,
      startToken: `${realToken}-not-this-one`,
    });
    // And a record of our own test process, which must never be signalled.
    writeFileSync(
      join(runDir, 'self.pid'),
      JSON.stringify({
        name: 'self',
        pid: process.pid,
        pgid: process.pid,
        command: 'x',
        startedAt: 0,
        startToken: await processStartToken(process.pid),
      }),
    );

    const reaped = await reapOrphans(runDir);
    expect(reaped).toEqual([]);
    expect(isRunning(pid)).toBe(true);
    expect(readdirSync(runDir)).toEqual([]);
  });
});
