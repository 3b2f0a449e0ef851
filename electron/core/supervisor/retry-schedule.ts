import type { Clock } from '../clock.ts';
import { BackoffPolicy, type FailureDecision, type Random } from './backoff.ts';
import type { SupervisorTimings } from './types.ts';

/**
 * When a failed server starts again: the backoff policy (delays, crash-loop) with its one retry
 * timer, and the timer that counts a run as stable. Both run on the runner's injected clock.
 */
export class RetrySchedule {
  readonly #clock: Clock;
  readonly #stableResetMs: number;
  readonly #backoff: BackoffPolicy;
  #cancelRetry: (() => void) | null = null;

  constructor(clock: Clock, timings: SupervisorTimings, random?: Random) {
    this.#clock = clock;
    this.#stableResetMs = timings.stableResetMs;
    this.#backoff = new BackoffPolicy(timings, random);
  }

  /** A failure at `at` (epoch ms): retry after a delay, or crash-loop. */
  recordFailure(at: number): FailureDecision {
    return this.#backoff.recordFailure(at);
  }

  /** Runs `retry` after `ms`, unless cancelled first. */
  retryAfter(ms: number, retry: () => void): void {
    this.#cancelRetry = this.#clock.setTimeout(() => {
      this.#cancelRetry = null;
      retry();
    }, ms);
  }

  cancelRetry(): void {
    this.#cancelRetry?.();
    this.#cancelRetry = null;
  }

  /** The person acted (start, restart, config change): forget every failure. */
  reset(): void {
    this.#backoff.reset();
  }

  /** A run began: once it lasts stableResetMs, the next crash starts at the initial delay again. */
  countStable(): () => void {
    return this.#clock.setTimeout(() => this.#backoff.recordStable(), this.#stableResetMs);
  }
}
