import { StringDecoder } from 'node:string_decoder';

export const REDACTED = '[redacted]';
/** Shorter values would blank out ordinary words ("on", "yes"); they are not scrubbed. */
export const MIN_SECRET_LENGTH = 4;
/** Encoded forms shorter than this are not scrubbed: short base64/hex runs occur in ordinary text. */
const MIN_ENCODED_LENGTH = 8;
/**
 * A line that ends with this much of the start of a secret (or begins with this much of its end) is
 * taken to hold a secret cut across two lines: shorter parts are too likely in ordinary text.
 */
export const MIN_SPLIT_PART = 6;

/**
 * Replaces every occurrence of each known secret value in a text with `[redacted]`: the value and the
 * forms a program may print it in (encodedForms), in any letter case.
 */
export class Redactor {
  /** the values added, and what is matched: each value and its encoded forms */
  #values = new Set<string>();
  #secrets = new Set<string>();
  #pattern: RegExp | null = null;
  #longest = 0;
  /**
   * For secrets cut across two lines: the forms looked for (lower-cased), and patterns matching a
   * start of one at a text's end, and an end of one at a text's start (at least MIN_SPLIT_PART long).
   */
  #splittable: string[] = [];
  #cutStart: RegExp | null = null;
  #cutEnd: RegExp | null = null;
  #longestSplittable = 0;

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
        const forms = encodedForms(value);
        for (const form of forms) this.#secrets.add(form);
        // A cut is looked for in the value as it is and in its compact encodings (not in the escaped
        // ones, several times its length: that would cost memory for a case nobody prints).
        for (const form of [value, ...forms.filter((f) => f.length <= 2 * value.length + 4)])
          if (form.length > MIN_SPLIT_PART) this.#splittable.push(form.toLowerCase());
        changed = true;
      }
    }
    if (!changed) return;
    this.#longestSplittable = Math.max(0, ...this.#splittable.map((f) => f.length));
    this.#cutStart = new RegExp(`(?:${this.#splittable.map(startsOf).join('|')})$`, 'i');
    // An end of a form at a text's start is a start of the reversed form at the reversed text's end:
    // patterns anchored at the end run far faster here than nested optional groups anchored at the start.
    this.#cutEnd = new RegExp(`(?:${this.#splittable.map((f) => startsOf(reverse(f))).join('|')})$`, 'i');
    // Longest first, so a secret that contains another is replaced whole.
    const sorted = [...this.#secrets].sort((a, b) => b.length - a.length);
    this.#longest = sorted[0]?.length ?? 0;
    this.#pattern = new RegExp(sorted.map(escapeRegExp).join('|'), 'gi');
  }

  /** Length of the longest secret (0 when none): how much text may hold an incomplete secret. */
  get longest(): number {
    return this.#longest;
  }

  redact(text: string): string {
    if (this.#pattern === null) return text;
    return text.replace(this.#pattern, REDACTED);
  }

  /**
   * A line's end that is the start of a secret, redacted (the secret may go on in the next line), and
   * what the next line would then start with.
   */
  redactCutEnd(line: string): { text: string; rest: string[] } {
    // Only the last word can hold a cut secret's start (it runs to the line's end).
    const word = lastWord(line, this.#longestSplittable - 1);
    const match = word.length >= MIN_SPLIT_PART ? this.#cutStart?.exec(word) : undefined;
    if (!match) return { text: line, rest: [] };
    const cut = match[0].toLowerCase();
    const rest = this.#splittable.filter((f) => f.startsWith(cut)).map((f) => f.slice(cut.length));
    return { text: line.slice(0, line.length - cut.length) + REDACTED, rest };
  }

  /**
   * A line's start that ends a secret: the rest of one cut at the last line's end (`rest`, any
   * length), or a long enough end of any secret.
   */
  redactCutStart(line: string, rest: readonly string[]): string {
    const word = firstWord(line, this.#longestSplittable - 1);
    const lower = rest.length ? word.toLowerCase() : '';
    let cut = 0;
    for (const r of rest) if (r.length > cut && lower.startsWith(r)) cut = r.length;
    if (cut === 0 && word.length >= MIN_SPLIT_PART) cut = this.#cutEnd?.exec(reverse(word))?.[0].length ?? 0;
    return cut === 0 ? line : REDACTED + line.slice(cut);
  }
}

/**
 * How a secret shows up encoded: base64 and base64url (also inside a longer encoded value, such as
 * `Basic base64(user:password)`, where it can start at any of three byte alignments: only the
 * characters that depend on the secret alone are matched), hex (also byte by byte: `ab:cd`, `ab cd`,
 * `\xab\xcd`), JSON string escapes (JSON.stringify's, and every character as `\uXXXX`) and
 * URL-encoding (encodeURIComponent's, and form encoding's with a space as + or %20). Letter case does
 * not matter (the match ignores it). Forms equal to the value or shorter than 8 characters are left out.
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
  // hex (matched in any case), also byte by byte as `ab:cd`, `ab cd` and `\xab\xcd`
  const hex = bytes.toString('hex');
  forms.add(hex);
  const pairs = hex.match(/../g) ?? [];
  forms.add(pairs.join(':'));
  forms.add(pairs.join(' '));
  forms.add(pairs.map((p) => `\\x${p}`).join(''));
  // JSON: as JSON.stringify writes it, and with every character \u-escaped
  forms.add(JSON.stringify(value).slice(1, -1));
  forms.add(
    Array.from(
      { length: value.length },
      (_, i) => `\\u${value.charCodeAt(i).toString(16).padStart(4, '0')}`,
    ).join(''),
  );
  // encodeURIComponent, and HTML form encoding (which also escapes ~!'()*, and writes a space as +)
  const formEncoded = new URLSearchParams([['', value]]).toString().slice(1);
  for (const url of [encodeURIComponent(value), formEncoded, formEncoded.replace(/\+/g, '%20')]) {
    forms.add(url);
  }
  return [...forms].filter((form) => form !== value && form.length >= MIN_ENCODED_LENGTH);
}

/** A pattern for the proper starts of `form` of at least MIN_SPLIT_PART characters: `abcdef(?:g(?:h)?)?`. */
function startsOf(form: string): string {
  const chars = form
    .slice(0, form.length - 1)
    .split('')
    .map(escapeRegExp);
  let tail = '';
  for (let i = chars.length - 1; i >= MIN_SPLIT_PART; i--) tail = `(?:${chars[i]}${tail})?`;
  return chars.slice(0, MIN_SPLIT_PART).join('') + tail;
}

const reverse = (text: string) => text.split('').reverse().join('');

/** The line's last run of non-space characters, at most `max` of them. */
function lastWord(line: string, max: number): string {
  let i = line.length;
  while (i > 0 && line.length - i < max && !isSpace(line.charCodeAt(i - 1))) i--;
  return line.slice(i);
}

/** The line's first run of non-space characters, at most `max` of them. */
function firstWord(line: string, max: number): string {
  let i = 0;
  while (i < line.length && i < max && !isSpace(line.charCodeAt(i))) i++;
  return line.slice(0, i);
}

const isSpace = (c: number) => c === 32 || c === 9;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Turns a byte stream (a child's stderr) into redacted lines. Redaction happens per complete line,
 * so a secret split across two chunks is still caught, and so is one cut across two lines. A line longer than maxLineLength is emitted
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

  /** what the next line starts with if it completes a secret cut at the end of the last one */
  #cutRest: string[] = [];

  #emit(line: string): void {
    const whole = this.#redactor.redact(line.endsWith('\r') ? line.slice(0, -1) : line);
    // A secret cut across two lines (a program wrapping its output): the end of this line is
    // redacted at once, as the next one may not come for a while.
    const start = this.#redactor.redactCutStart(whole, this.#cutRest);
    const { text, rest } = this.#redactor.redactCutEnd(start);
    this.#cutRest = rest;
    this.#onLine(text);
  }
}
