/**
 * A fixed-capacity FIFO: pushing beyond capacity drops the oldest item. O(1) push. Its storage grows
 * with what it holds, up to the capacity: each server has one (5,000 lines), and most servers log a
 * dozen lines, so a preallocated array would cost ~40 KB per server for nothing (4 MB at 100 servers).
 */
export class RingBuffer<T> {
  readonly capacity: number;
  #items: T[] = [];
  /** index of the oldest item once the buffer is full (before that, items[0] is the oldest) */
  #start = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`capacity must be a positive integer`);
    this.capacity = capacity;
  }

  get size(): number {
    return this.#items.length;
  }

  push(item: T): void {
    if (this.#items.length < this.capacity) {
      this.#items.push(item);
      return;
    }
    this.#items[this.#start] = item;
    this.#start = (this.#start + 1) % this.capacity;
  }

  /** Oldest first. */
  toArray(): T[] {
    return this.#start === 0
      ? this.#items.slice()
      : [...this.#items.slice(this.#start), ...this.#items.slice(0, this.#start)];
  }

  /** The newest item, if any. */
  last(): T | undefined {
    const size = this.#items.length;
    if (size === 0) return undefined;
    return this.#items[(this.#start + size - 1) % size];
  }

  clear(): void {
    this.#items = [];
    this.#start = 0;
  }
}
