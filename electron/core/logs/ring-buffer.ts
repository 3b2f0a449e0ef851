/** A fixed-capacity FIFO: pushing beyond capacity drops the oldest item. O(1) push. */
export class RingBuffer<T> {
  readonly capacity: number;
  readonly #items: (T | undefined)[];
  #start = 0;
  #size = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`capacity must be a positive integer`);
    this.capacity = capacity;
    this.#items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.#size;
  }

  push(item: T): void {
    const end = (this.#start + this.#size) % this.capacity;
    this.#items[end] = item;
    if (this.#size < this.capacity) this.#size += 1;
    else this.#start = (this.#start + 1) % this.capacity;
  }

  /** Oldest first. */
  toArray(): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.#size; i++) out.push(this.#items[(this.#start + i) % this.capacity] as T);
    return out;
  }

  /** The newest item, if any. */
  last(): T | undefined {
    return this.#size === 0 ? undefined : this.#items[(this.#start + this.#size - 1) % this.capacity];
  }

  clear(): void {
    this.#items.fill(undefined);
    this.#start = 0;
    this.#size = 0;
  }
}
