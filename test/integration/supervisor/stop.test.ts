import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Supervisor } from '../../../electron/core/supervisor/supervisor.ts';
import { fixture, isRunning, killHard, nodeServer, readPids, waitFor, waitForState } from './helpers.ts';

describe('stopping leaves no process of the server behind', () => {
  let home: string;
  let supervisor: Supervisor;
  const cleanup: number[] = [];

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'switchboard-stop-'));
  });

  afterEach(async () => {
    await supervisor?.shutdown();
    for (const pid of cleanup.splice(0)) {
      killHard(pid);
      killHard(pid, false);
    }
    rmSync(home, { recursive: true, force: true });
  });

  async function startWithGrandchild(name: string, extra: string[] = [], timings = {}) {
    supervisor = new Supervisor({ runDir: join(home, 'run'), timings });
    const pidsFile = join(home, `${name}.json`);
    await supervisor.reconcile([
      nodeServer(name, fixture('mini-server.mjs'), ['--grandchild', `--pids-file=${pidsFile}`, ...extra]),
    ]);
    await waitForState(supervisor, name, 'running');
    const pids = readPids(pidsFile);
    cleanup.push(pids.pid, pids.grandchild as number);
    expect(isRunning(pids.pid)).toBe(true);
    expect(isRunning(pids.grandchild as number)).toBe(true);
    return pids;
  }

  it('stop() ends the server and its grandchild, and removes the pid file', async () => {
    const { pid, grandchild } = await startWithGrandchild('tree');
    expect(existsSync(join(home, 'run', 'tree.pid'))).toBe(true);

    await supervisor.stop('tree');
    expect(supervisor.statusOf('tree')?.state).toBe('stopped');
    expect(supervisor.statusOf('tree')?.pid).toBeNull();
    expect(isRunning(pid)).toBe(false);
    expect(isRunning(grandchild as number)).toBe(false);
    expect(readdirSync(join(home, 'run'))).toEqual([]);
    // The leader left on stdin EOF; the grandchild needed the SIGTERM to the group.
    expect(supervisor.logs('tree').map((l) => l.text)).toEqual(
      expect.arrayContaining([
        'stopping',
        'exited with code 0',
        expect.stringMatching(/^stop: SIGTERM to process group \d+$/),
        'stopped',
      ]),
    );

    // A stopped server stays stopped until asked.
    await new Promise((r) => setTimeout(r, 300));
    expect(supervisor.statusOf('tree')?.state).toBe('stopped');
    await supervisor.start('tree');
    await waitForState(supervisor, 'tree', 'running');
  });

  it('shutdown() ends every server and grandchild, in parallel', async () => {
    supervisor = new Supervisor({ runDir: join(home, 'run') });
    const names = ['a', 'b', 'c'];
    await supervisor.reconcile(
      names.map((n) =>
        nodeServer(n, fixture('mini-server.mjs'), ['--grandchild', `--pids-file=${join(home, `${n}.json`)}`]),
      ),
    );
    for (const n of names) await waitForState(supervisor, n, 'running');
    const all = names.flatMap((n) => {
      const { pid, grandchild } = readPids(join(home, `${n}.json`));
      return [pid, grandchild as number];
    });
    cleanup.push(...all);
    for (const pid of all) expect(isRunning(pid)).toBe(true);

    await supervisor.shutdown();
    for (const pid of all) expect(isRunning(pid)).toBe(false);
    expect(readdirSync(join(home, 'run'))).toEqual([]);
  });

  it('escalates to SIGKILL when the server ignores stdin EOF and SIGTERM', async () => {
    const timings = { stopStdinGraceMs: 300, stopTermGraceMs: 400 };
    const { pid, grandchild } = await startWithGrandchild(
      'stubborn',
      ['--ignore-eof', '--ignore-sigterm'],
      timings,
    );

    const started = Date.now();
    await supervisor.stop('stubborn');
    const took = Date.now() - started;
    expect(isRunning(pid)).toBe(false);
    expect(isRunning(grandchild as number)).toBe(false);
    // Waited out both graces, in order.
    expect(took).toBeGreaterThanOrEqual(700);
    const texts = supervisor.logs('stubborn').map((l) => l.text);
    const term = texts.findIndex((t) => /^stop: SIGTERM to process group \d+$/.test(t));
    const kill = texts.findIndex((t) => /^stop: SIGKILL to process group \d+$/.test(t));
    expect(term).toBeGreaterThan(-1);
    expect(kill).toBeGreaterThan(term);
    expect(texts).toContain('exited on signal SIGKILL');
  });

  it('a leader that crashes leaves no grandchild behind either', async () => {
    const { pid, grandchild } = await startWithGrandchild('crasher');
    await supervisor
      .runner('crasher')
      ?.client?.callTool({ name: 'crash', arguments: {} })
      .catch(() => {});
    await waitForState(supervisor, 'crasher', 'backoff');
    await waitFor(() => !isRunning(grandchild as number), 'the orphaned grandchild to be killed');
    expect(isRunning(pid)).toBe(false);
  });
});
