import { mkdir, open, rename, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface RotatingFileOptions {
  /** rotate when the file would grow past this many bytes (default 1 MiB) */
  maxBytes?: number;
  /** old files kept as <path>.1 … <path>.N (default 3) */
  keep?: number;
  /** called once per failure (disk full, permissions); the lines of that batch are dropped */
  onError?: (err: unknown) => void;
}

/** Largest batch written at once, so a burst still rotates close to maxBytes. */
const BATCH_BYTES = 64 * 1024;

/**
 * An append-only log file with size-based rotation. write() only queues: the bytes go to disk in
 * batches on an async chain, so logging a line never blocks the event loop.
 */
export class RotatingFile {
  readonly path: string;
  readonly #maxBytes: number;
  readonly #keep: number;
  readonly #onError: (err: unknown) => void;
  #queue: Buffer[] = [];
  #handle: FileHandle | null = null;
  #size = 0;
  #pump: Promise<void> | null = null;
  #closed = false;
  #rotations = 0;

  constructor(path: string, options: RotatingFileOptions = {}) {
    this.path = path;
    this.#maxBytes = options.maxBytes ?? 1024 * 1024;
    this.#keep = options.keep ?? 3;
    this.#onError = options.onError ?? (() => {});
  }

  /** How often this object rotated the file (what it found there is then in `<path>.N`). */
  get rotations(): number {
    return this.#rotations;
  }

  /** Queues text (include the trailing newline). */
  write(text: string): void {
    if (this.#closed) return;
    this.#queue.push(Buffer.from(text, 'utf8'));
    this.#pump ??= this.#drain().finally(() => {
      this.#pump = null;
    });
  }

  /** Resolves when everything written so far is on disk. */
  async flush(): Promise<void> {
    while (this.#pump !== null) await this.#pump;
  }

  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
    const handle = this.#handle;
    this.#handle = null;
    await handle?.close().catch(() => {});
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#takeBatch();
      try {
        const handle = await this.#open();
        if (this.#size > 0 && this.#size + batch.length > this.#maxBytes) await this.#rotate();
        await (this.#handle ?? handle).write(batch);
        this.#size += batch.length;
      } catch (err) {
        this.#onError(err);
        await this.#handle?.close().catch(() => {});
        this.#handle = null;
      }
    }
  }

  #takeBatch(): Buffer {
    const parts: Buffer[] = [];
    let bytes = 0;
    while (this.#queue.length > 0 && bytes < BATCH_BYTES) {
      const next = this.#queue.shift() as Buffer;
      parts.push(next);
      bytes += next.length;
    }
    return Buffer.concat(parts, bytes);
  }

  async #open(): Promise<FileHandle> {
    if (this.#handle !== null) return this.#handle;
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const handle = await open(this.path, 'a', 0o600);
    this.#size = (await handle.stat()).size;
    this.#handle = handle;
    return handle;
  }

  async #rotate(): Promise<void> {
    await this.#handle?.close();
    this.#handle = null;
    for (let i = this.#keep - 1; i >= 1; i--) {
      await rename(`${this.path}.${i}`, `${this.path}.${i + 1}`).catch(ignoreMissing);
    }
    if (this.#keep >= 1) await rename(this.path, `${this.path}.1`).catch(ignoreMissing);
    // keep = 0: truncate instead of keeping history.
    this.#handle = await open(this.path, this.#keep >= 1 ? 'a' : 'w', 0o600);
    this.#size = 0;
    this.#rotations += 1;
  }
}

function ignoreMissing(err: unknown): void {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
}
