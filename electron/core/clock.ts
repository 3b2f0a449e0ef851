/** Time enters the core through this, so tests can drive backoff and timeouts without waiting. */
export interface Clock {
  now(): number;
  /** Calls fn after ms; returns a function that cancels it. Timers never keep the process alive. */
  setTimeout(fn: () => void, ms: number): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** Resolves when p is fulfilled or ms pass on the clock, whichever comes first. */
export function within(clock: Clock, p: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const cancel = clock.setTimeout(resolve, ms);
    void p.then(() => {
      cancel();
      resolve();
    });
  });
}
