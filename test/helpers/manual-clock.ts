import type { Clock } from '../../electron/core/clock.ts';

/** A clock the test moves by hand: timers fire only inside advance(). */
export class ManualClock implements Clock {
  #now: number;
  #timers: { at: number; seq: number; fn: () => void }[] = [];
  #seq = 0;

  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): () => void {
    const timer = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
  }

  /** Delay of the earliest pending timer, or undefined when none is pending. */
  nextDelay(): number | undefined {
    const next = this.#sorted()[0];
    return next === undefined ? undefined : next.at - this.#now;
  }

  pendingTimers(): number {
    return this.#timers.length;
  }

  /** Moves time forward by ms, firing due timers in order. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      const next = this.#sorted()[0];
      if (next === undefined || next.at > target) break;
      this.#timers = this.#timers.filter((t) => t !== next);
      this.#now = next.at;
      next.fn();
    }
    this.#now = target;
  }

  #sorted() {
    return [...this.#timers].sort((a, b) => a.at - b.at || a.seq - b.seq);
  }
}
