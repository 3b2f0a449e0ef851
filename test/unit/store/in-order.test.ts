import { describe, expect, it } from 'vitest';
import { inOrder } from '../../../electron/core/store/in-order.ts';

describe('inOrder', () => {
  it('runs at most atOnce at a time, overlapping them, and answers in the items’ order', async () => {
    let running = 0;
    let most = 0;
    const out = await inOrder([50, 10, 30, 20, 40, 5], 3, async (ms) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      return ms * 2;
    });
    expect(out).toEqual([100, 20, 60, 40, 80, 10]);
    expect(most).toBe(3);
  });
});
