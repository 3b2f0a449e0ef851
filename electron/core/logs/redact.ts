import { StringDecoder } from 'node:string_decoder';

export const REDACTED = '[redacted]';
/** Shorter values would blank out ordinary words ("on", "yes"); they are not scrubbed. */
export const MIN_SECRET_LENGTH = 4;
/** Encoded forms shorter than this are not scrubbed: short base64/hex runs occur in ordinary text. */
const MIN_ENCODED_LENGTH = 8;

/** Replaces every occurrence of each known secret value in a text with `[redacted]`. */
export class Redactor {
  /** the values added, and what is matched: each value and its encoded forms */
  #values = new Set<string>();
  #secrets = new Set<string>();
  #pattern: RegExp | null = null;
  #longest = 0;

  constructor(secrets: Iterable<string> = []) {
    this.add(secrets);
  }

  /**
   * Adds values to scrub, each also in the forms a program may print it in (encodedForms). A
   * multi-line value is also scrubbed line by line, since logs are per line.
   */
  add(secrets: Iterable<string>): void {
    let changed = false;
    for (const secret of secrets) {
      for (const value of [secret, ...secret.split(/\r?\n/)]) {
        if (value.length < MIN_SECRET_LENGTH || this.#values.has(value)) continue;
        this.#values.add(value);
        this.#secrets.add(value);
        for (const form of encodedForms(value)) this.#secrets.add(form);
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

/**
 * How a secret shows up encoded: base64 and base64url (also inside a longer encoded value, such as
 * `Basic base64(user:password)`, where it can start at any of three byte alignments: only the
 * characters that depend on the secret alone are matched), hex (either case) and URL-encoding
 * (%XX in either case; encodeURIComponent's, and form encoding's with a space as + or %20). Forms
 * equal to the value or shorter than 8 characters are left out.
 */
export function encodedForms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms = new Set<string>();
  const base64 = (b64: string) => {
    forms.add(b64);
    forms.add(b64.replace(/\+/g, '-').replace(/\//g, '_'));
  };
  base64(bytes.toString('base64'));
  base64(bytes.toString('base64').replace(/=+$/, ''));
  for (let shift = 0; shift < 3; shift++) {
    // Six-bit characters wholly inside the secret's bits when it starts `shift` bytes into a group.
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    base64(encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6)));
  }
  const hex = bytes.toString('hex');
  forms.add(hex);
  forms.add(hex.toUpperCase());
  // encodeURIComponent, and HTML form encoding (which also escapes ~!'()*, and writes a space as +)
  const formEncoded = new URLSearchParams([['', value]]).toString().slice(1);
  for (const url of [encodeURIComponent(value), formEncoded, formEncoded.replace(/\+/g, '%20')]) {
    forms.add(url);
    forms.add(url.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()));
  }
  return [...forms].filter((form) => form !== value && form.length >= MIN_ENCODED_LENGTH);
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
