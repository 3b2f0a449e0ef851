import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../../shared/logs.ts';
import { LogStore, MAX_LINES } from '../../../renderer/src/api/log-store.ts';

/** A store whose "animation frames" run when the test says so. */
function manualStore() {
  const frames: (() => void)[] = [];
  const store = new LogStore((flush) => frames.push(flush));
  const runFrames = () => {
    for (const flush of frames.splice(0)) flush();
  };
  return { store, frames, runFrames };
}

let ts = 1_000;
function line(text: string, extra: Partial<LogLine> = {}): LogLine {
  return { server: 'a', ts: ts++, source: 'stderr', level: 'info', text, ...extra };
}

describe('LogStore', () => {
  it('takes a burst of lines with one re-render per frame, only for the servers that changed', () => {
    const { store, frames, runFrames } = manualStore();
    let renders = 0;
    let otherRenders = 0;
    store.subscribe('a', () => renders++);
    store.subscribe('b', () => otherRenders++);
    for (let i = 0; i < 5_000; i++) store.append(line(`line ${i}`));
    expect(frames).toHaveLength(1);
    expect(store.version('a')).toBe(0);
    runFrames();
    expect(renders).toBe(1);
    expect(otherRenders).toBe(0);
    expect(store.version('a')).toBe(1);
    expect(store.lines('a')).toHaveLength(5_000);
  });

  it('keeps the newest lines, dropping the oldest tenth at once past the limit', () => {
    const { store } = manualStore();
    for (let i = 0; i <= MAX_LINES; i++) store.append(line(`line ${i}`));
    const kept = store.lines('a');
    // One line over the limit drops that line and a tenth more, in one go.
    expect(kept.length).toBe(MAX_LINES - MAX_LINES / 10);
    expect(kept[kept.length - 1]?.text).toBe(`line ${MAX_LINES}`);
    expect(kept[0]?.text).toBe(`line ${MAX_LINES / 10 + 1}`);
    expect(store.generation('a')).toBe(1);
  });

  it('puts the fetched history before the lines that streamed in meanwhile, without doubles', () => {
    const { store } = manualStore();
    const h1 = line('history 1');
    const h2 = line('history 2');
    const same = { ...line('same instant, streamed'), ts: h2.ts };
    const later = line('streamed later');
    // h2 arrived live too (the stream opened before the history answer was made).
    store.append(h2);
    store.append(same);
    store.append(later);
    expect(store.isSeeded('a')).toBe(false);
    store.seed('a', [h1, h2]);
    expect(store.isSeeded('a')).toBe(true);
    expect(store.lines('a').map((l) => l.text)).toEqual([
      'history 1',
      'history 2',
      'same instant, streamed',
      'streamed later',
    ]);
  });

  it('filters by text and level incrementally, and starts over when the filter changes', () => {
    const { store } = manualStore();
    store.append(line('Connected to DB'));
    store.append(line('disk almost full', { level: 'warn' }));
    store.append(line('DB connection lost', { level: 'error' }));
    expect(store.filtered('a', '', 'all')).toBeUndefined();
    expect(store.filtered('a', 'db', 'all')).toEqual([0, 2]);
    expect(store.filtered('a', '', 'warn')).toEqual([1, 2]);
    const before = store.filtered('a', 'db', 'error');
    expect(before).toEqual([2]);
    // Unchanged log: the same array (React can skip work); a new matching line: a new array.
    expect(store.filtered('a', 'db', 'error')).toBe(before);
    store.append(line('db gone again', { level: 'error' }));
    store.append(line('db fine', { level: 'info' }));
    const after = store.filtered('a', 'db', 'error');
    expect(after).toEqual([2, 3]);
    expect(after).not.toBe(before);
  });

  it('rebuilds the filter after old lines were dropped (indexes moved)', () => {
    const { store } = manualStore();
    for (let i = 0; i < MAX_LINES; i++) store.append(line(i === 5 ? 'needle early' : `line ${i}`));
    expect(store.filtered('a', 'needle', 'all')).toEqual([5]);
    store.append(line('needle late'));
    // The oldest tenth (with "needle early") is gone; the late one is at its new index.
    expect(store.filtered('a', 'needle', 'all')).toEqual([store.lines('a').length - 1]);
  });

  it('knows its longest line (the rows scroll sideways that far) until the view is cleared', () => {
    const { store, runFrames } = manualStore();
    store.append(line('short'));
    store.append(line('x'.repeat(300)));
    store.append(line('medium length'));
    expect(store.longest('a')).toBe(300);
    store.seed('a', [line('y'.repeat(400))]);
    expect(store.longest('a')).toBe(400);
    store.clear('a');
    runFrames();
    expect(store.lines('a')).toEqual([]);
    expect(store.longest('a')).toBe(0);
  });

  it('still delivers updates with no animation frames (a hidden tab, or Node): on a timer', async () => {
    const store = new LogStore();
    let renders = 0;
    store.subscribe('a', () => renders++);
    store.append(line('hello'));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(renders).toBe(1);
    expect(store.version('a')).toBe(1);
  });
});
