export interface RingBufferOptions<T> {
  /** the most the items may weigh together (with `weigh`): older items go first to stay under it */
  maxWeight?: number;
  /** an item's weight (for a log line: the bytes its text takes) */
  weigh?: (item: T) => number;
}

/**
 * A bounded FIFO: pushing beyond its capacity (a count, and optionally a total weight) drops the
 * oldest items. O(1) amortized push. Its storage grows with what it holds, up to the capacity: each
 * server has one (5,000 lines), and most servers log a dozen lines, so a preallocated array would
 * cost ~40 KB per server for nothing (4 MB at 100 servers). The newest item is always kept, however
 * heavy.
 */
export class RingBuffer<T> {
  readonly capacity: number;
  readonly maxWeight: number;
  readonly #weigh: ((item: T) => number) | undefined;
  #items: (T | undefined)[] = [];
  /** index of the oldest item still held (slots before it are dropped, compacted away later) */
  #start = 0;
  #weight = 0;

  constructor(capacity: number, options: RingBufferOptions<T> = {}) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`capacity must be a positive integer`);
    this.capacity = capacity;
    this.maxWeight = options.maxWeight ?? Infinity;
    this.#weigh = options.weigh;
  }

  get size(): number {
    return this.#items.length - this.#start;
  }

  /** what the items held weigh together (0 without `weigh`) */
  get weight(): number {
    return this.#weight;
  }

  push(item: T): void {
    this.#items.push(item);
    if (this.#weigh) this.#weight += this.#weigh(item);
    while (this.size > this.capacity || (this.#weight > this.maxWeight && this.size > 1)) this.#dropOldest();
    // Dropped slots are given back once they are half of the array (amortized O(1)).
    if (this.#start > 1024 && this.#start * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#start);
      this.#start = 0;
    }
  }

  /** Oldest first. */
  toArray(): T[] {
    return this.#items.slice(this.#start) as T[];
  }

  /** The newest item, if any. */
  last(): T | undefined {
    return this.size === 0 ? undefined : this.#items[this.#items.length - 1];
  }

  clear(): void {
    this.#items = [];
    this.#start = 0;
    this.#weight = 0;
  }

  #dropOldest(): void {
    const oldest = this.#items[this.#start] as T;
    if (this.#weigh) this.#weight -= this.#weigh(oldest);
    // The slot no longer keeps the item alive.
    this.#items[this.#start] = undefined;
    this.#start++;
  }
}
