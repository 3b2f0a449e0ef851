import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { QuietCompaction } from '../../../electron/core/memory/quiet-compaction.ts';

// The full GC after a burst of server starts (issue 24 item 18): once per burst, after it settled,
// never for a trickle. The memory it gives back is bench/serve-startup.ts's figure.

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('QuietCompaction', () => {
  it('collects once, after a burst has been quiet for a while', () => {
    const gc = vi.fn();
    const compaction = new QuietCompaction({ gc, quietMs: 2_000, minEvents: 20 });
    for (let i = 0; i < 100; i++) {
      compaction.note();
      vi.advanceTimersByTime(100); // events keep coming: not yet
    }
    expect(gc).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2_000);
    expect(gc).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(60_000);
    expect(gc).toHaveBeenCalledTimes(1);
  });

  it('does nothing for a few state changes, and nothing once closed', () => {
    const gc = vi.fn();
    const compaction = new QuietCompaction({ gc, quietMs: 2_000, minEvents: 20 });
    for (let i = 0; i < 5; i++) compaction.note();
    vi.advanceTimersByTime(10_000);
    expect(gc).not.toHaveBeenCalled();
    for (let i = 0; i < 30; i++) compaction.note();
    compaction.close();
    vi.advanceTimersByTime(10_000);
    expect(gc).not.toHaveBeenCalled();
  });
});
