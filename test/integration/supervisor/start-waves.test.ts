import { afterEach, describe, expect, it } from 'vitest';
import { Supervisor } from '../../../electron/core/supervisor/supervisor.ts';
import { fixture, nodeServer, waitFor } from './helpers.ts';

describe('starting many servers', () => {
  let supervisor: Supervisor | undefined;

  afterEach(async () => {
    await supervisor?.shutdown();
    supervisor = undefined;
  });

  it('starts them in waves of startConcurrency real processes, and every one comes up', async () => {
    supervisor = new Supervisor({ startConcurrency: 2 });
    // A process that is spawned but has not answered initialize yet is "mid-start".
    let mostMidStart = 0;
    supervisor.on('status', () => {
      const midStart = supervisor?.status().filter((s) => s.state === 'starting' && s.pid !== null).length;
      mostMidStart = Math.max(mostMidStart, midStart ?? 0);
    });
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    await supervisor.reconcile(names.map((name) => nodeServer(name, fixture('env-echo-server.mjs'))));
    await waitFor(
      () => supervisor?.status().every((s) => s.state === 'running') === true,
      'all six running',
      45_000,
    );
    expect(supervisor.status().map((s) => s.name)).toEqual(names);
    expect(mostMidStart).toBe(2);
  });
});
