import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Supervisor } from '../../../electron/core/supervisor/supervisor.ts';
import type { DesiredServer } from '../../../electron/core/supervisor/types.ts';
import { childEnv, everythingEntry, isRunning, killHard, waitForState } from './helpers.ts';

function everything(fingerprint = 'fp-1'): DesiredServer {
  return {
    name: 'everything',
    fingerprint,
    transport: 'stdio',
    prepare: async () => ({
      transport: 'stdio',
      command: process.execPath,
      args: [everythingEntry(), 'stdio'],
      cwd: undefined,
      env: childEnv(),
      redact: [],
    }),
  };
}

describe('supervising the real @modelcontextprotocol/server-everything', () => {
  let home: string;
  let supervisor: Supervisor;
  const pids: number[] = [];

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'switchboard-sup-'));
    supervisor = new Supervisor({ runDir: join(home, 'run'), logsDir: join(home, 'logs') });
  });

  afterEach(async () => {
    await supervisor.shutdown();
    for (const pid of pids.splice(0)) killHard(pid);
    rmSync(home, { recursive: true, force: true });
  });

  it('reaches running, lists its tools (echo among them) and answers a tool call', async () => {
    await supervisor.reconcile([everything()]);
    await waitForState(supervisor, 'everything', 'running', 30_000);
    const runner = supervisor.runner('everything');
    await expect
      .poll(() => supervisor.statusOf('everything')?.toolCount ?? 0, { timeout: 10_000 })
      .toBeGreaterThan(0);

    const status = supervisor.statusOf('everything');
    expect(status?.pid).toEqual(expect.any(Number));
    pids.push(status?.pid as number);
    expect(isRunning(status?.pid as number)).toBe(true);
    expect(status?.since).toEqual(expect.any(Number));
    expect(runner?.tools.map((t) => t.name)).toContain('echo');
    expect(status?.toolCount).toBe(runner?.tools.length);

    const result = await runner?.client?.callTool({
      name: 'echo',
      arguments: { message: 'hello switchboard' },
    });
    expect(JSON.stringify(result?.content)).toContain('hello switchboard');

    // The pid file describes the running process; the log says what was spawned.
    const pidFile = JSON.parse(readFileSync(join(home, 'run', 'everything.pid'), 'utf8')) as { pid: number };
    expect(pidFile.pid).toBe(status?.pid);
    expect(supervisor.logs('everything').map((l) => l.text)).toContainEqual(
      expect.stringMatching(new RegExp(`^spawned pid ${status?.pid}: .*server-everything.* stdio$`)),
    );
  });

  it('leaves an unchanged server alone, restarts a changed one, stops a removed one', async () => {
    await supervisor.reconcile([everything('fp-1')]);
    await waitForState(supervisor, 'everything', 'running', 30_000);
    const first = supervisor.statusOf('everything')?.pid as number;
    pids.push(first);

    await supervisor.reconcile([everything('fp-1')]);
    expect(supervisor.statusOf('everything')?.state).toBe('running');
    expect(supervisor.statusOf('everything')?.pid).toBe(first);

    await supervisor.reconcile([everything('fp-2')]);
    expect(isRunning(first)).toBe(false);
    await waitForState(supervisor, 'everything', 'running', 30_000);
    const second = supervisor.statusOf('everything')?.pid as number;
    pids.push(second);
    expect(second).not.toBe(first);
    expect(supervisor.statusOf('everything')?.restarts).toBe(1);
    expect(supervisor.statusOf('everything')?.fingerprint).toBe('fp-2');

    await supervisor.reconcile([]);
    expect(supervisor.statusOf('everything')).toBeUndefined();
    expect(isRunning(second)).toBe(false);
    expect(readdirSync(join(home, 'run'))).toEqual([]);
  });

  it('shutdown stops it and writes its log file', async () => {
    await supervisor.reconcile([everything()]);
    await waitForState(supervisor, 'everything', 'running', 30_000);
    const pid = supervisor.statusOf('everything')?.pid as number;
    pids.push(pid);
    await supervisor.shutdown();
    expect(isRunning(pid)).toBe(false);
    const file = readFileSync(join(home, 'logs', 'everything.log'), 'utf8');
    expect(file).toContain(`spawned pid ${pid}`);
    expect(file).toMatch(/lifecycle\/info +running: initialize answered/);
    expect(file).toMatch(/exited (with code|on signal)/);
  });
});
