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
  /** when the idle time started counting (the last hold let go) */
  #since = 0;

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
    // The timer stays armed through a run of calls (one per call was a timer per call): fired while
    // held it does nothing, and the release arms it again.
    this.#holds += 1;
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
    const ms = this.#options.timeoutMs();
    if (ms <= 0 || !this.#options.running() || this.#holds > 0) return this.clear();
    this.#since = this.#options.clock.now();
    if (this.#cancel === null) this.#after(ms);
  }

  /** Goes idle `ms` from now unless the server was used meanwhile (then it waits out the rest). */
  #after(ms: number): void {
    const { clock } = this.#options;
    this.#cancel = clock.setTimeout(() => {
      this.#cancel = null;
      const timeoutMs = this.#options.timeoutMs();
      if (timeoutMs <= 0 || this.#holds > 0) return; // released later: armed again then
      const left = this.#since + timeoutMs - clock.now();
      if (left > 0) this.#after(left);
      else this.#options.onIdle(timeoutMs);
    }, ms);
  }

  clear(): void {
    this.#cancel?.();
    this.#cancel = null;
  }
}
