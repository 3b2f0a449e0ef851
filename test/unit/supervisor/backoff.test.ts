import { describe, expect, it } from 'vitest';
import { BackoffPolicy, backoffDelay, FailureWindow } from '../../../electron/core/supervisor/backoff.ts';
import { DEFAULT_TIMINGS } from '../../../electron/core/supervisor/types.ts';

const T = DEFAULT_TIMINGS;
const noJitter = () => 0.5;

describe('backoffDelay', () => {
  it('starts at 1 s and doubles up to 60 s', () => {
    const delays = Array.from({ length: 10 }, (_, i) => backoffDelay(i + 1, T, noJitter));
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000, 60_000]);
  });

  it('jitters by at most ±20 %, reaching both ends', () => {
    expect(backoffDelay(1, T, () => 0)).toBe(800);
    expect(backoffDelay(1, T, () => 0.999_999)).toBe(1_200);
    expect(backoffDelay(8, T, () => 0)).toBe(48_000);
    expect(backoffDelay(8, T, () => 0.999_999)).toBe(72_000);
    for (let attempt = 1; attempt <= 12; attempt++) {
      const base = Math.min(60_000, 1_000 * 2 ** (attempt - 1));
      for (let i = 0; i < 200; i++) {
        const d = backoffDelay(attempt, T);
        expect(d).toBeGreaterThanOrEqual(base * 0.8);
        expect(d).toBeLessThanOrEqual(base * 1.2);
      }
    }
  });

  it('stays finite for absurd attempt numbers', () => {
    expect(backoffDelay(10_000, T, noJitter)).toBe(60_000);
  });
});

describe('FailureWindow', () => {
  it('counts only failures inside the window', () => {
    const w = new FailureWindow(5, 300_000);
    expect([0, 10_000, 20_000, 30_000].map((t) => w.record(t))).toEqual([1, 2, 3, 4]);
    expect(w.isCrashLoop(30_000)).toBe(false);
    expect(w.record(299_999)).toBe(5);
    expect(w.isCrashLoop(299_999)).toBe(true);
    // The first failure slides out of the window.
    expect(w.isCrashLoop(300_000)).toBe(false);
    expect(w.record(300_000)).toBe(5);
  });
});

describe('BackoffPolicy', () => {
  it('retries with growing delays and calls the 5th failure within 5 minutes a crash-loop', () => {
    const p = new BackoffPolicy(T, noJitter);
    const decisions = [0, 1_000, 3_000, 7_000, 15_000].map((t) => p.recordFailure(t));
    expect(decisions.slice(0, 4)).toEqual([
      { kind: 'retry', attempt: 1, delayMs: 1_000, failuresInWindow: 1 },
      { kind: 'retry', attempt: 2, delayMs: 2_000, failuresInWindow: 2 },
      { kind: 'retry', attempt: 3, delayMs: 4_000, failuresInWindow: 3 },
      { kind: 'retry', attempt: 4, delayMs: 8_000, failuresInWindow: 4 },
    ]);
    expect(decisions[4]).toEqual({ kind: 'crash-loop', failuresInWindow: 5 });
  });

  it('resets the delay after a stable run but keeps counting failures in the window', () => {
    const p = new BackoffPolicy(T, noJitter);
    p.recordFailure(0);
    p.recordFailure(1_000);
    p.recordStable();
    expect(p.recordFailure(70_000)).toMatchObject({ kind: 'retry', attempt: 1, delayMs: 1_000 });
  });

  it('forgets everything when the person acts', () => {
    const p = new BackoffPolicy(T, noJitter);
    for (let i = 0; i < 5; i++) p.recordFailure(i);
    p.reset();
    expect(p.recordFailure(10)).toEqual({ kind: 'retry', attempt: 1, delayMs: 1_000, failuresInWindow: 1 });
  });
});
