import { afterEach, describe, expect, it } from 'vitest';
import { Supervisor } from '../../../electron/core/supervisor/supervisor.ts';
import { DEFAULT_TIMINGS, type SupervisorTimings } from '../../../electron/core/supervisor/types.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { fixture, isRunning, killHard, nodeServer, sleep, waitFor, waitForState } from './helpers.ts';

// Real processes, virtual time: the ManualClock decides when backoff timers, pings and timeouts fire.

function spawnedPids(supervisor: Supervisor, name: string): number[] {
  return supervisor
    .logs(name)
    .map((l) => /^spawned pid (\d+):/.exec(l.text)?.[1])
    .filter((pid): pid is string => pid !== undefined)
    .map(Number);
}

describe('backoff and crash-loop (ManualClock)', () => {
  let supervisor: Supervisor | undefined;

  afterEach(async () => {
    const s = supervisor;
    supervisor = undefined;
    if (!s) return;
    for (const status of s.status()) killHard(status.pid);
    await s.shutdown();
  });

  function make(timings: Partial<SupervisorTimings> = {}): { clock: ManualClock; sup: Supervisor } {
    const clock = new ManualClock();
    supervisor = new Supervisor({ clock, timings });
    return { clock, sup: supervisor };
  }

  it('a server that crashes at once backs off 1, 2, 4, 8 s (±20 %), then crash-loops and stays down', async () => {
    const { clock, sup } = make();
    await sup.reconcile([nodeServer('crashy', fixture('crash-on-start.mjs'))]);

    const expected = [1_000, 2_000, 4_000, 8_000];
    for (const [i, base] of expected.entries()) {
      await waitForState(sup, 'crashy', 'backoff');
      const status = sup.statusOf('crashy');
      const delay = (status?.nextRetryAt as number) - clock.now();
      expect(delay).toBeGreaterThanOrEqual(base * 0.8);
      expect(delay).toBeLessThanOrEqual(base * 1.2);
      expect(status?.lastError).toBe(
        'exited with code 1 before initialize answered: fatal: crash-on-start fixture refuses to start',
      );
      expect(spawnedPids(sup, 'crashy')).toHaveLength(i + 1);
      // Nothing happens before the retry time...
      clock.advance(delay - 1);
      await sleep(50);
      expect(sup.statusOf('crashy')?.state).toBe('backoff');
      // ...and the retry happens at it.
      clock.advance(1);
      await waitFor(() => spawnedPids(sup, 'crashy').length === i + 2, `spawn #${i + 2}`);
    }

    // The 5th failure within 5 minutes: crash-loop, no retry scheduled.
    await waitForState(sup, 'crashy', 'crash-loop');
    const status = sup.statusOf('crashy');
    expect(status?.nextRetryAt).toBeNull();
    expect(clock.pendingTimers()).toBe(0);
    expect(status?.restarts).toBe(4);
    expect(sup.logs('crashy').map((l) => l.text)).toContain(
      'crash-loop: 5 failures in 5 min; not restarting until you restart it or change its config',
    );
    const texts = sup.logs('crashy').map((l) => l.text);
    expect(texts.filter((t) => t.startsWith('backoff: next start at '))).toHaveLength(4);

    clock.advance(30 * 60_000);
    await sleep(300);
    expect(sup.statusOf('crashy')?.state).toBe('crash-loop');
    expect(spawnedPids(sup, 'crashy')).toHaveLength(5);
    for (const pid of spawnedPids(sup, 'crashy')) expect(isRunning(pid)).toBe(false);

    // A person's start() gets it going again (and it crashes again: backoff from 1 s).
    await sup.start('crashy');
    await waitForState(sup, 'crashy', 'backoff');
    expect(spawnedPids(sup, 'crashy')).toHaveLength(6);
    const delay = (sup.statusOf('crashy')?.nextRetryAt as number) - clock.now();
    expect(delay).toBeGreaterThanOrEqual(800);
    expect(delay).toBeLessThanOrEqual(1_200);
  });

  it('failures spread over more than 5 minutes never crash-loop', async () => {
    const { clock, sup } = make({ backoffInitialMs: 100_000, backoffMaxMs: 100_000, backoffJitter: 0 });
    await sup.reconcile([nodeServer('slow-crashy', fixture('crash-on-start.mjs'))]);
    for (let i = 1; i <= 7; i++) {
      await waitForState(sup, 'slow-crashy', 'backoff');
      expect(spawnedPids(sup, 'slow-crashy')).toHaveLength(i);
      clock.advance(100_000);
      await waitFor(() => spawnedPids(sup, 'slow-crashy').length === i + 1, `spawn #${i + 1}`);
    }
    await waitForState(sup, 'slow-crashy', 'backoff');
    expect(sup.statusOf('slow-crashy')?.state).toBe('backoff');
  });

  it('60 s of stable running resets the delay to 1 s', async () => {
    // Pings are pushed out of the way: this test is about the backoff counter.
    const { clock, sup } = make({ pingIntervalMs: 3_600_000 });
    await sup.reconcile([nodeServer('flaky', fixture('mini-server.mjs'))]);
    const crash = async () => {
      await waitForState(sup, 'flaky', 'running');
      await sup
        .runner('flaky')
        ?.client?.callTool({ name: 'crash', arguments: {} })
        .catch(() => {});
      await waitForState(sup, 'flaky', 'backoff');
      return (sup.statusOf('flaky')?.nextRetryAt as number) - clock.now();
    };

    const first = await crash();
    expect(first).toBeGreaterThanOrEqual(800);
    expect(first).toBeLessThanOrEqual(1_200);
    clock.advance(first);
    const second = await crash(); // right after a restart: the delay doubles
    expect(second).toBeGreaterThanOrEqual(1_600);
    expect(second).toBeLessThanOrEqual(2_400);
    expect(sup.statusOf('flaky')?.lastError).toBe('exited with code 3');

    clock.advance(second);
    await waitForState(sup, 'flaky', 'running');
    clock.advance(DEFAULT_TIMINGS.stableResetMs);
    const third = await crash(); // after 60 s of stable running: back to 1 s
    expect(third).toBeGreaterThanOrEqual(800);
    expect(third).toBeLessThanOrEqual(1_200);
  });

  it('three missed pings restart the server', async () => {
    const { clock, sup } = make();
    await sup.reconcile([nodeServer('deaf', fixture('mini-server.mjs'), ['--no-ping'])]);
    await waitForState(sup, 'deaf', 'running');
    const pid = sup.statusOf('deaf')?.pid as number;

    for (let miss = 1; miss <= 3; miss++) {
      clock.advance(DEFAULT_TIMINGS.pingIntervalMs);
      await sleep(20);
      expect(sup.statusOf('deaf')?.state).toBe('running');
      clock.advance(DEFAULT_TIMINGS.pingTimeoutMs);
      await waitFor(
        () => sup.logs('deaf').some((l) => l.text === `health: ping missed (${miss}/3)`),
        `ping miss ${miss}`,
      );
    }
    await waitForState(sup, 'deaf', 'backoff');
    expect(sup.statusOf('deaf')?.lastError).toBe('stopped answering ping (3 missed in a row); restarting');
    await waitFor(() => !isRunning(pid), 'the deaf process to be stopped');

    clock.advance(1_200);
    await waitForState(sup, 'deaf', 'running');
    expect(sup.statusOf('deaf')?.pid).not.toBe(pid);
    expect(sup.statusOf('deaf')?.restarts).toBe(1);
  });

  it('a server that answers pings keeps running', async () => {
    const { clock, sup } = make();
    await sup.reconcile([nodeServer('healthy', fixture('mini-server.mjs'))]);
    await waitForState(sup, 'healthy', 'running');
    const pid = sup.statusOf('healthy')?.pid;
    for (let i = 0; i < 5; i++) {
      // Each step fires one ping; its answer arrives (real time) before the clock moves on.
      clock.advance(DEFAULT_TIMINGS.pingIntervalMs);
      await sleep(100);
    }
    expect(sup.statusOf('healthy')?.state).toBe('running');
    expect(sup.statusOf('healthy')?.pid).toBe(pid);
    expect(sup.logs('healthy').some((l) => l.text.startsWith('health:'))).toBe(false);
  });
});

describe('initialize timeout (ManualClock)', () => {
  it('a server that never answers initialize goes to error after 60 s, and its process is stopped', async () => {
    const clock = new ManualClock();
    const sup = new Supervisor({ clock });
    try {
      await sup.reconcile([nodeServer('silent', fixture('silent-server.mjs'))]);
      await waitFor(() => typeof sup.statusOf('silent')?.pid === 'number', 'the silent server to spawn');
      const pid = sup.statusOf('silent')?.pid as number;

      clock.advance(59_999);
      await sleep(200);
      expect(sup.statusOf('silent')?.state).toBe('starting');

      clock.advance(1);
      await waitForState(sup, 'silent', 'error');
      const status = sup.statusOf('silent');
      expect(status?.lastError).toBe('initialize did not answer within 60 s');
      expect(status?.nextRetryAt).toBeNull();
      expect(sup.logs('silent').map((l) => l.text)).toContain('initialize timed out: no answer within 60 s');
      await waitFor(() => !isRunning(pid), 'the silent process to be stopped');

      // error is final until a person acts: no timer brings it back.
      clock.advance(3_600_000);
      await sleep(100);
      expect(sup.statusOf('silent')?.state).toBe('error');
    } finally {
      await sup.shutdown();
    }
  });
});
