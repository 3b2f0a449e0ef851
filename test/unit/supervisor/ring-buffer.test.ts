import { describe, expect, it } from 'vitest';
import { RingBuffer } from '../../../electron/core/logs/ring-buffer.ts';

describe('RingBuffer', () => {
  it('keeps the newest items up to its capacity, oldest first', () => {
    const r = new RingBuffer<number>(3);
    expect(r.toArray()).toEqual([]);
    expect(r.last()).toBeUndefined();
    for (let i = 1; i <= 7; i++) r.push(i);
    expect(r.toArray()).toEqual([5, 6, 7]);
    expect(r.size).toBe(3);
    expect(r.last()).toBe(7);
    r.clear();
    expect(r.toArray()).toEqual([]);
    r.push(8);
    expect(r.toArray()).toEqual([8]);
  });

  it('holds 5,000 lines of a chatty server and no more', () => {
    const r = new RingBuffer<string>(5_000);
    for (let i = 0; i < 12_345; i++) r.push(`line ${i}`);
    const all = r.toArray();
    expect(all).toHaveLength(5_000);
    expect(all[0]).toBe('line 7345');
    expect(all.at(-1)).toBe('line 12344');
  });

  it('wraps around any number of times and keeps the order', () => {
    const r = new RingBuffer<number>(4);
    for (let n = 1; n <= 11; n++) {
      r.push(n);
      const want = Array.from({ length: Math.min(n, 4) }, (_, i) => n - Math.min(n, 4) + 1 + i);
      expect(r.toArray()).toEqual(want);
      expect(r.last()).toBe(n);
      expect(r.size).toBe(want.length);
    }
  });

  it('keeps what its items weigh under maxWeight, dropping the oldest, always keeping the newest', () => {
    const r = new RingBuffer<string>(100, { maxWeight: 10, weigh: (s) => s.length });
    for (const s of ['aaaa', 'bbbb', 'cc', 'ddddd']) r.push(s);
    expect(r.toArray()).toEqual(['cc', 'ddddd']);
    expect(r.weight).toBe(7);
    r.push('e'.repeat(50));
    expect(r.toArray()).toEqual(['e'.repeat(50)]);
    // many pushes: order and weight stay right through the compaction of dropped slots
    for (let i = 0; i < 5_000; i++) r.push(String(i % 10));
    expect(r.toArray()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(r.weight).toBe(10);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new RingBuffer(0)).toThrow(RangeError);
    expect(() => new RingBuffer(1.5)).toThrow(RangeError);
  });
});
