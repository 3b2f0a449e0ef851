/**
 * Work a runner must see finished before it may start its server again: the teardowns of earlier
 * attempts (their process groups going away).
 */
export class Drain {
  #draining: Promise<void> = Promise.resolve();

  /** Adds work to wait for; its failure does not matter here (it was noted where it happened). */
  track(work: Promise<unknown>): void {
    this.#draining = Promise.all([this.#draining, work.catch(() => {})]).then(() => {});
  }

  /** Resolves once all tracked work is done, including work added while waiting. */
  async settled(): Promise<void> {
    for (;;) {
      const draining = this.#draining;
      await draining;
      if (draining === this.#draining) return;
    }
  }
}
