import { StringDecoder } from 'node:string_decoder';

export const REDACTED = '[redacted]';
/** Shorter values would blank out ordinary words ("on", "yes"); they are not scrubbed. */
export const MIN_SECRET_LENGTH = 4;

/** Replaces every occurrence of each known secret value in a text with `[redacted]`. */
export class Redactor {
  #secrets = new Set<string>();
  #pattern: RegExp | null = null;
  #longest = 0;

  constructor(secrets: Iterable<string> = []) {
    this.add(secrets);
  }

  /** Adds values to scrub. A multi-line value is also scrubbed line by line, since logs are per line. */
  add(secrets: Iterable<string>): void {
    let changed = false;
    for (const secret of secrets) {
      for (const value of [secret, ...secret.split(/\r?\n/)]) {
        if (value.length < MIN_SECRET_LENGTH || this.#secrets.has(value)) continue;
        this.#secrets.add(value);
        changed = true;
      }
    }
    if (!changed) return;
    // Longest first, so a secret that contains another is replaced whole.
    const sorted = [...this.#secrets].sort((a, b) => b.length - a.length);
    this.#longest = sorted[0]?.length ?? 0;
    this.#pattern = new RegExp(sorted.map(escapeRegExp).join('|'), 'g');
  }

  /** Length of the longest secret (0 when none): how much text may hold an incomplete secret. */
  get longest(): number {
    return this.#longest;
  }

  redact(text: string): string {
    if (this.#pattern === null) return text;
    return text.replace(this.#pattern, REDACTED);
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Turns a byte stream (a child's stderr) into redacted lines. Redaction happens per complete line,
 * so a secret split across two chunks is still caught. A line longer than maxLineLength is emitted
 * in pieces; the piece boundary never cuts through a secret (the possible start of one is held back).
 */
export class RedactingLineSplitter {
  readonly #redactor: Redactor;
  readonly #onLine: (line: string) => void;
  readonly #maxLineLength: number;
  readonly #decoder = new StringDecoder('utf8');
  #pending = '';

  constructor(redactor: Redactor, onLine: (line: string) => void, maxLineLength = 16 * 1024) {
    this.#redactor = redactor;
    this.#onLine = onLine;
    this.#maxLineLength = maxLineLength;
  }

  push(chunk: Buffer | string): void {
    this.#pending += typeof chunk === 'string' ? chunk : this.#decoder.write(chunk);
    let newline = this.#pending.indexOf('\n');
    while (newline !== -1) {
      this.#emit(this.#pending.slice(0, newline));
      this.#pending = this.#pending.slice(newline + 1);
      newline = this.#pending.indexOf('\n');
    }
    if (this.#pending.length > this.#maxLineLength) {
      const redacted = this.#redactor.redact(this.#pending);
      const keep = Math.max(0, this.#redactor.longest - 1);
      const cut = Math.max(1, redacted.length - keep);
      this.#onLine(redacted.slice(0, cut));
      this.#pending = redacted.slice(cut);
    }
  }

  /** The stream ended: a last line without a newline is still emitted. */
  end(): void {
    this.#pending += this.#decoder.end();
    if (this.#pending.length > 0) this.#emit(this.#pending);
    this.#pending = '';
  }

  #emit(line: string): void {
    this.#onLine(this.#redactor.redact(line.endsWith('\r') ? line.slice(0, -1) : line));
  }
}
