import { describe, expect, it } from 'vitest';
import type { Notification } from '@modelcontextprotocol/sdk/types.js';
import { ListRefresh, QUIET_MAX_MS, type Refetched } from '../../../electron/core/supervisor/list-refresh.ts';
import type { ListKind } from '../../../electron/core/lists/server-lists.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

const TOOLS: Notification = { method: 'notifications/tools/list_changed' };

/** A refresher whose fetches the test answers one by one. */
function harness() {
  const clock = new ManualClock();
  const fetches: { kind: ListKind; answer: (r: Refetched) => void }[] = [];
  const announced: string[] = [];
  const notes: string[] = [];
  const refresh = new ListRefresh({
    clock,
    fetch: (kind) => new Promise<Refetched>((answer) => fetches.push({ kind, answer })),
    announce: (n) => announced.push(n.method),
    note: (text) => notes.push(text),
  });
  const settle = () => new Promise((r) => setImmediate(r));
  return { clock, fetches, announced, notes, refresh, settle };
}

describe('list refreshes after a server announces a change', () => {
  it('never lists again for an announcement on the answer to its own request, and says so once', () => {
    const h = harness();
    for (let i = 0; i < 3; i++) h.refresh.changed(TOOLS, ['tools'], true);
    expect(h.fetches).toEqual([]);
    expect(h.notes).toHaveLength(1);
    expect(h.notes[0]).toContain('seems to start anew for each request');
  });

  it('coalesces announcements into one fetch at a time, tells editors only of a real change', async () => {
    const h = harness();
    h.refresh.changed(TOOLS, ['tools'], false);
    h.refresh.changed(TOOLS, ['tools'], false);
    h.refresh.changed(TOOLS, ['tools'], false);
    expect(h.fetches).toHaveLength(1);
    h.fetches[0]?.answer('changed');
    await h.settle();
    expect(h.announced).toEqual(['notifications/tools/list_changed']);
    // One more for the announcements that came meanwhile, at once (the last fetch found a change).
    expect(h.fetches).toHaveLength(2);
    h.fetches[1]?.answer('same');
    await h.settle();
    expect(h.announced).toHaveLength(1);
  });

  it('spaces fetches out while they find nothing new, up to a minute, and comes back once a change is real', async () => {
    const h = harness();
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      const before = h.fetches.length;
      const start = h.clock.now();
      h.refresh.changed(TOOLS, ['tools'], false);
      while (h.fetches.length === before) h.clock.advance(h.clock.nextDelay() ?? 0);
      waits.push(h.clock.now() - start);
      h.fetches.at(-1)?.answer('same');
      await h.settle();
    }
    expect(waits).toEqual([0, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, QUIET_MAX_MS, QUIET_MAX_MS]);
    expect(h.notes.some((n) => n.includes('keeps announcing tools/list_changed'))).toBe(true);
    expect(h.announced).toEqual([]);

    h.refresh.changed(TOOLS, ['tools'], false);
    h.clock.advance(QUIET_MAX_MS);
    h.fetches.at(-1)?.answer('changed');
    await h.settle();
    expect(h.announced).toEqual(['notifications/tools/list_changed']);
    const before = h.fetches.length;
    h.refresh.changed(TOOLS, ['tools'], false);
    expect(h.fetches).toHaveLength(before + 1); // at once again
  });

  it('fetches nothing once its connection ended', () => {
    const h = harness();
    h.refresh.changed(TOOLS, ['tools'], false);
    h.fetches[0]?.answer('same');
    h.refresh.close();
    h.refresh.changed(TOOLS, ['tools'], false);
    h.clock.advance(QUIET_MAX_MS);
    expect(h.fetches).toHaveLength(1);
  });
});
