/**
 * One full garbage collection once a burst of work has settled: serve's first start runs every
 * server once to learn its lists, and V8 keeps the garbage of those hundred runs (SDK clients, pipes,
 * parsed lists) in old space for good: it did one mark-compact in a whole first start, at start-up,
 * and the memory reducer did not act later. A full GC then gives those pages back (~10 MB of 100
 * servers' first runs, docs/performance.md). `note()` each event of such work (a server changing
 * state); after `quietMs` without one, and if at least `minEvents` came since the last collection,
 * `gc` runs. Costs one GC (tens of ms) per burst; nothing while nothing happens.
 */
export class QuietCompaction {
  readonly #gc: () => void;
  readonly #quietMs: number;
  readonly #minEvents: number;
  #events = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: { gc: () => void; quietMs?: number; minEvents?: number }) {
    this.#gc = options.gc;
    this.#quietMs = options.quietMs ?? 2_000;
    this.#minEvents = options.minEvents ?? 20;
  }

  note(): void {
    this.#events++;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#settled(), this.#quietMs);
    this.#timer.unref();
  }

  close(): void {
    clearTimeout(this.#timer);
  }

  #settled(): void {
    if (this.#events < this.#minEvents) return;
    this.#events = 0;
    this.#gc();
  }
}
