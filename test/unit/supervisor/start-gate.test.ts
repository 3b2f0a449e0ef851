import { describe, expect, it } from 'vitest';
import { StartGate } from '../../../electron/core/supervisor/start-gate.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('StartGate', () => {
  it('lets `limit` servers start at once and hands each freed slot to the next in line', async () => {
    const gate = new StartGate({ limit: 2, maxHoldMs: 5_000, clock: new ManualClock() });
    const first = await gate.acquire();
    await gate.acquire();
    const order: string[] = [];
    void gate.acquire().then(() => order.push('third'));
    void gate.acquire().then(() => order.push('fourth'));
    await tick();
    expect(order).toEqual([]);
    expect(gate.load).toEqual({ active: 2, waiting: 2 });

    first();
    first(); // a second release of the same slot frees nothing more
    await tick();
    expect(order).toEqual(['third']);
    expect(gate.load).toEqual({ active: 2, waiting: 1 });
  });

  it('frees a slot by itself after maxHoldMs, so one slow start never blocks the rest', async () => {
    const clock = new ManualClock();
    const gate = new StartGate({ limit: 1, maxHoldMs: 5_000, clock });
    await gate.acquire(); // never released: an `npx` download that takes minutes
    let started = false;
    void gate.acquire().then(() => (started = true));
    await clock.advance(4_999);
    await tick();
    expect(started).toBe(false);
    await clock.advance(1);
    await tick();
    expect(started).toBe(true);
  });

  it('gives back the slot when the last holder releases, so the next acquire is immediate', async () => {
    const gate = new StartGate({ limit: 1, maxHoldMs: 5_000, clock: new ManualClock() });
    (await gate.acquire())();
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
    await gate.acquire();
    expect(gate.load).toEqual({ active: 1, waiting: 0 });
  });
});
