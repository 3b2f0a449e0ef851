import { describe, expect, it } from 'vitest';
import { CallActivity } from '../../../electron/core/activity/call-activity.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

describe('call activity', () => {
  it('gives counts, errors and percentiles per server, tool and editor, minute by minute', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
    const activity = new CallActivity(clock);
    for (let i = 1; i <= 100; i++) activity.record('gh', 'search', 'zed', i, i > 95);
    clock.advance(60_000);
    activity.record('gh', 'create', 'cursor', 1_000, false);
    activity.record('other', 'x', 'zed', 5, false);

    const gh = activity.of('gh');
    expect(gh).toMatchObject({ calls: 101, errors: 5 });
    // 1…100 ms and one of 1 s: within the histogram's 5 %.
    expect(gh?.p50Ms).toBeGreaterThanOrEqual(50 * 0.95);
    expect(gh?.p50Ms).toBeLessThanOrEqual(51 * 1.05);
    expect(gh?.p99Ms).toBeGreaterThanOrEqual(100 * 0.95);
    expect(gh?.p99Ms).toBeLessThanOrEqual(100 * 1.05);
    expect(gh?.tools.map((t) => [t.name, t.calls, t.errors])).toEqual([
      ['search', 100, 5],
      ['create', 1, 0],
    ]);
    expect(gh?.editors.map((e) => [e.name, e.calls])).toEqual([
      ['zed', 100],
      ['cursor', 1],
    ]);
    expect(gh?.minutes).toHaveLength(60);
    expect(gh?.minutes.slice(-2).map((m) => m.calls)).toEqual([100, 1]);
    expect(gh?.minutes.at(-1)?.p50Ms).toBeGreaterThanOrEqual(950);
    expect(gh?.minutes.at(-3)).toMatchObject({ calls: 0, p50Ms: null });
    expect(Object.keys(activity.all())).toEqual(['gh', 'other']);
  });

  it('keeps only the last hour, and nothing of a server that was removed', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 30));
    const activity = new CallActivity(clock);
    activity.record('gh', 'search', 'zed', 3, false);
    clock.advance(59 * 60_000);
    expect(activity.of('gh')?.calls).toBe(1);
    clock.advance(60_000);
    expect(activity.of('gh')).toBeNull();
    activity.record('gh', 'search', 'zed', 3, false);
    activity.forget('gh');
    expect(activity.all()).toEqual({});
  });

  it('tells listeners at most once a second which servers had calls', () => {
    const clock = new ManualClock();
    const activity = new CallActivity(clock);
    const heard: string[][] = [];
    activity.onCalls((servers) => heard.push(servers));
    activity.record('a', 't', 'zed', 1, false);
    activity.record('b', 't', 'zed', 1, false);
    activity.record('a', 't', 'zed', 1, false);
    expect(heard).toEqual([]);
    clock.advance(1_000);
    expect(heard).toEqual([['a', 'b']]);
  });
});
