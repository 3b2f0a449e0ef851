import type { Clock } from '../clock.ts';

export interface StartGateOptions {
  /** servers that may be starting at once */
  limit: number;
  /** a slot frees itself after this long, so one slow start (an `npx` download) never blocks the rest */
  maxHoldMs: number;
  clock: Clock;
}

/**
 * Bounds how many servers start at once. Spawning is synchronous (fork/exec) and a starting server
 * burns CPU; 100 of them at once on 2 cores froze the event loop for seconds, so the bridge and UI
 * answered nothing until all had spawned. With a gate, servers start in waves and Switchboard stays
 * responsive; each slot is held until the server is running or has failed (or maxHoldMs passed).
 */
export class StartGate {
  readonly #options: StartGateOptions;
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(options: StartGateOptions) {
    this.#options = options;
  }

  /** Waits for a slot. The returned release() is idempotent and also runs on its own after maxHoldMs. */
  async acquire(): Promise<() => void> {
    if (this.#active < this.#options.limit) this.#active += 1;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve)); // slot handed over on release
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      cancelTimer();
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active -= 1;
    };
    const cancelTimer = this.#options.clock.setTimeout(release, this.#options.maxHoldMs);
    return release;
  }

  /** servers holding a slot now, and servers waiting for one */
  get load(): { active: number; waiting: number } {
    return { active: this.#active, waiting: this.#waiting.length };
  }
}
