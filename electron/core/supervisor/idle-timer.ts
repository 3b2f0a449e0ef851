import type { Clock } from '../clock.ts';

export interface IdleTimerOptions {
  /** the runner's injected clock (a test moves it by hand) */
  clock: Clock;
  /** the idle timeout now; 0: never idle */
  timeoutMs(): number;
  /** whether the server runs now (only a running server counts idle time) */
  running(): boolean;
  /** the server went without a request for `ms` */
  onIdle(ms: number): void;
}

/**
 * The idle timeout of one server: counts from the last moment nothing held the server (a request in
 * flight, a resource subscription) and says when it ran out.
 */
export class IdleTimer {
  readonly #options: IdleTimerOptions;
  #holds = 0;
  #cancel: (() => void) | null = null;

  constructor(options: IdleTimerOptions) {
    this.#options = options;
  }

  /** Something holds the server: it does not go idle. */
  get held(): boolean {
    return this.#holds > 0;
  }

  /**
   * Holds the server until the returned function is called; `onFree` runs when that leaves nothing
   * holding it (it usually arms the timer again).
   */
  hold(onFree: () => void): () => void {
    this.#holds += 1;
    this.clear();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds -= 1;
      if (this.#holds > 0) return;
      onFree();
    };
  }

  /** Counts the idle time from now, if the server is running and nothing holds it. */
  arm(): void {
    this.clear();
    const ms = this.#options.timeoutMs();
    if (ms <= 0 || !this.#options.running() || this.#holds > 0) return;
    this.#cancel = this.#options.clock.setTimeout(() => {
      this.#cancel = null;
      this.#options.onIdle(ms);
    }, ms);
  }

  clear(): void {
    this.#cancel?.();
    this.#cancel = null;
  }
}
