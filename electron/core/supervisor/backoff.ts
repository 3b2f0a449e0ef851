import type { SupervisorTimings } from './types.ts';

/** A source of numbers in [0, 1), like Math.random; injected so tests can pin the jitter. */
export type Random = () => number;

type BackoffTimings = Pick<
  SupervisorTimings,
  'backoffInitialMs' | 'backoffMaxMs' | 'backoffJitter' | 'crashLoopFailures' | 'crashLoopWindowMs'
>;

/**
 * Delay before restart number `attempt` (1-based): initial doubling up to max, then ±jitter
 * (design.md: 1 s doubling to 60 s with ±20 % jitter).
 */
export function backoffDelay(attempt: number, timings: BackoffTimings, random: Random = Math.random): number {
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  // 2 ** 1024 is Infinity; Math.min keeps it finite.
  const base = Math.min(timings.backoffMaxMs, timings.backoffInitialMs * 2 ** Math.min(exponent, 64));
  const factor = 1 + timings.backoffJitter * (2 * random() - 1);
  return Math.max(0, Math.round(base * factor));
}

/** Failures within a sliding window: `limit` of them inside `windowMs` is a crash loop. */
export class FailureWindow {
  readonly #limit: number;
  readonly #windowMs: number;
  #failures: number[] = [];

  constructor(limit: number, windowMs: number) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  /** Records a failure at `at` (epoch ms); returns how many failures fall inside the window. */
  record(at: number): number {
    this.#failures = this.#failures.filter((t) => at - t < this.#windowMs);
    this.#failures.push(at);
    return this.#failures.length;
  }

  isCrashLoop(at: number): boolean {
    return this.#failures.filter((t) => at - t < this.#windowMs).length >= this.#limit;
  }

  clear(): void {
    this.#failures = [];
  }
}

export type FailureDecision =
  | { kind: 'retry'; attempt: number; delayMs: number; failuresInWindow: number }
  | { kind: 'crash-loop'; failuresInWindow: number };

/**
 * The restart policy of one server: what to do after a failure. The attempt counter (which picks
 * the delay) resets after a stable run; the failure window does not, it only slides.
 */
export class BackoffPolicy {
  readonly #timings: BackoffTimings;
  readonly #random: Random;
  readonly #window: FailureWindow;
  #attempt = 0;

  constructor(timings: BackoffTimings, random: Random = Math.random) {
    this.#timings = timings;
    this.#random = random;
    this.#window = new FailureWindow(timings.crashLoopFailures, timings.crashLoopWindowMs);
  }

  recordFailure(at: number): FailureDecision {
    const failuresInWindow = this.#window.record(at);
    if (failuresInWindow >= this.#timings.crashLoopFailures) return { kind: 'crash-loop', failuresInWindow };
    this.#attempt += 1;
    return {
      kind: 'retry',
      attempt: this.#attempt,
      delayMs: backoffDelay(this.#attempt, this.#timings, this.#random),
      failuresInWindow,
    };
  }

  /** The server ran long enough (stableResetMs): the next crash starts again at the initial delay. */
  recordStable(): void {
    this.#attempt = 0;
  }

  /** The person acted (start, restart, config change): forget everything. */
  reset(): void {
    this.#attempt = 0;
    this.#window.clear();
  }
}
