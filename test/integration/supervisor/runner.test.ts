import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../electron/core/clock.ts';
import { ServerLog } from '../../../electron/core/logs/server-log.ts';
import { ServerRunner } from '../../../electron/core/supervisor/server-runner.ts';
import { DEFAULT_TIMINGS } from '../../../electron/core/supervisor/types.ts';
import type { ServerState } from '../../../shared/status.ts';
import { fixture, isRunning, nodeServer, waitFor } from './helpers.ts';

describe('ServerRunner on its own', () => {
  let runner: ServerRunner | undefined;

  afterEach(async () => {
    await runner?.dispose();
    runner = undefined;
  });

  function make(args: string[] = []): { runner: ServerRunner; states: ServerState[] } {
    const log = new ServerLog({ server: 'mini', clock: systemClock, file: null });
    runner = new ServerRunner({
      desired: nodeServer('mini', fixture('mini-server.mjs'), args),
      clock: systemClock,
      timings: DEFAULT_TIMINGS,
      log,
      runDir: null,
    });
    const states: ServerState[] = [];
    runner.on('status', (s) => {
      if (states.at(-1) !== s.state) states.push(s.state);
    });
    return { runner, states };
  }

  it('follows tools/list pagination to the end', async () => {
    const { runner } = make(['--tools=7', '--page-size=3']);
    const heard: string[][] = [];
    runner.on('tools', (tools) => heard.push(tools.map((t) => t.name)));
    runner.start();
    await waitFor(() => runner.status.toolCount !== null, 'the tool count');
    expect(runner.status.toolCount).toBe(7);
    expect(runner.tools.map((t) => t.name)).toEqual([
      'crash',
      'tool-1',
      'tool-2',
      'tool-3',
      'tool-4',
      'tool-5',
      'tool-6',
    ]);
    expect(heard).toEqual([runner.tools.map((t) => t.name)]);
  });

  it('walks stopped → starting → running → stopped, and restart() replaces the process', async () => {
    const { runner, states } = make();
    expect(runner.status).toMatchObject({ state: 'stopped', pid: null, restarts: 0 });
    runner.start();
    await waitFor(() => runner.state === 'running', 'running');
    expect(runner.client).not.toBeNull();
    const first = runner.status.pid as number;

    await runner.restart();
    expect(isRunning(first)).toBe(false);
    await waitFor(() => runner.state === 'running', 'running again');
    expect(runner.status.pid).not.toBe(first);
    expect(runner.status.restarts).toBe(1);

    const second = runner.status.pid as number;
    await runner.stop();
    expect(isRunning(second)).toBe(false);
    expect(runner.client).toBeNull();
    expect(runner.status).toMatchObject({ state: 'stopped', pid: null, toolCount: null, since: null });
    expect(states).toEqual(['starting', 'running', 'starting', 'running', 'stopped']);
  });

  it('stop() while prepare() is still resolving secrets spawns nothing', async () => {
    const { runner } = make();
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const real = runner.desired;
    const log: string[] = [];
    await runner.update({ ...real, prepare: async () => (await gate, real.prepare()) });
    runner.on('status', (s) => log.push(s.state));
    runner.start();
    const stopping = runner.stop();
    release();
    await stopping;
    await new Promise((r) => setTimeout(r, 200));
    expect(runner.state).toBe('stopped');
    expect(runner.status.pid).toBeNull();
    expect(log).toEqual(['starting', 'stopped']);
  });

  it('stop() during startup leaves nothing running', async () => {
    const { runner } = make(['--grandchild']);
    runner.start();
    await waitFor(() => runner.status.pid !== null, 'a pid');
    const pid = runner.status.pid as number;
    await runner.stop();
    expect(runner.state).toBe('stopped');
    expect(isRunning(pid)).toBe(false);
  });
});
