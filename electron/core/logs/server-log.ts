import type { Clock } from '../clock.ts';
import type { LogLine } from '../../../shared/logs.ts';
import { RedactingLineSplitter, Redactor } from './redact.ts';
import { RingBuffer } from './ring-buffer.ts';
import { stderrLevel } from './stderr-level.ts';
import type { RotatingFile } from './rotating-file.ts';

export const DEFAULT_RING_CAPACITY = 5_000;
/**
 * What one server's live-view lines may take in memory, text and all: long lines (a server that
 * dumps 60 KB JSON lines) push the oldest out long before 5,000 lines. The file keeps everything.
 */
export const DEFAULT_RING_BYTES = 2 * 1024 * 1024;
/** A line's weight: its text as UTF-16 (2 bytes a character at most), plus the object around it. */
const lineBytes = (line: LogLine) => line.text.length * 2 + 64;

export interface ServerLogOptions {
  server: string;
  clock: Clock;
  /** where lines are persisted; null keeps them in memory only */
  file: Pick<RotatingFile, 'write' | 'flush' | 'close'> | null;
  /** lines kept for the live view (default 5,000) */
  capacity?: number;
  /** bytes those lines may take (default 2 MiB) */
  capacityBytes?: number;
  /** every line, already redacted, as it is recorded */
  onLine?: (line: LogLine) => void;
  /**
   * What the log held before this process (the file's lines from an earlier run, oldest first): read
   * once, the first time the lines are asked for, so a server nobody looks at costs nothing.
   */
  history?: (max: number) => LogLine[];
}

/** A stream of bytes from one process (its stderr), turned into log lines. */
export interface LogStream {
  push(chunk: Buffer | string): void;
  end(): void;
  /** the last non-empty line of this stream (redacted): often the reason a server died */
  readonly lastLine: string | null;
}

/**
 * One server's log: its stderr and Switchboard's lifecycle events. Every text passes the redactor
 * before it reaches the ring buffer, the file or the listener.
 */
export class ServerLog {
  readonly server: string;
  readonly #clock: Clock;
  readonly #file: ServerLogOptions['file'];
  readonly #ring: RingBuffer<LogLine>;
  readonly #onLine: ((line: LogLine) => void) | undefined;
  readonly #redactor = new Redactor();
  #history: ((max: number) => LogLine[]) | undefined;

  constructor(options: ServerLogOptions) {
    this.server = options.server;
    this.#clock = options.clock;
    this.#file = options.file;
    this.#ring = new RingBuffer(options.capacity ?? DEFAULT_RING_CAPACITY, {
      maxWeight: options.capacityBytes ?? DEFAULT_RING_BYTES,
      weigh: lineBytes,
    });
    this.#onLine = options.onLine;
    this.#history = options.history;
  }

  /** Values to scrub from now on (kept for the life of this log, so rotated-out secrets stay hidden). */
  addSecrets(values: Iterable<string>): void {
    this.#redactor.add(values);
  }

  redact(text: string): string {
    return this.#redactor.redact(text);
  }

  /**
   * A line splitter for one process's stderr; call end() when the stream closes. `onLine` sees each
   * line after it was recorded (redacted), e.g. to explain what a sandbox refused.
   */
  stderrStream(onLine?: (text: string) => void): LogStream {
    let lastLine: string | null = null;
    const splitter = new RedactingLineSplitter(this.#redactor, (text) => {
      if (text.trim() !== '') lastLine = text;
      this.#record('stderr', stderrLevel(text), text, false);
      onLine?.(text);
    });
    return {
      push: (chunk) => splitter.push(chunk),
      end: () => splitter.end(),
      get lastLine() {
        return lastLine;
      },
    };
  }

  lifecycle(text: string, level: LogLine['level'] = 'info'): void {
    for (const line of text.split(/\r?\n/)) this.#record('lifecycle', level, line, true);
  }

  /** Oldest first: the history from earlier runs, then this run's lines (the newest `capacity`). */
  lines(): LogLine[] {
    const history = this.#history;
    if (history) {
      this.#history = undefined;
      const now = this.#ring.toArray();
      const before = history(this.#ring.capacity - now.length);
      if (before.length) {
        this.#ring.clear();
        for (const line of [...before, ...now]) this.#ring.push(line);
      }
    }
    return this.#ring.toArray();
  }

  async flush(): Promise<void> {
    await this.#file?.flush();
  }

  async close(): Promise<void> {
    await this.#file?.close();
  }

  #record(source: LogLine['source'], level: LogLine['level'], text: string, redact: boolean): void {
    const line: LogLine = {
      server: this.server,
      ts: this.#clock.now(),
      source,
      level,
      text: redact ? this.#redactor.redact(text) : text,
    };
    this.#ring.push(line);
    this.#file?.write(formatLogLine(line));
    this.#onLine?.(line);
  }
}

const LEVEL_WIDTH = 'lifecycle/error'.length;

/** One line of logs/<server>.log: `<ISO time> <source>/<level> <text>\n`. */
export function formatLogLine(line: LogLine): string {
  const tag = `${line.source}/${line.level}`.padEnd(LEVEL_WIDTH);
  return `${new Date(line.ts).toISOString()} ${tag} ${line.text}\n`;
}

const FILE_LINE = new RegExp(`^(\\S+) (.{${LEVEL_WIDTH}}) (.*)$`);
const TAG = /^(stderr|lifecycle)\/(info|warn|error) *$/;

/** Reads a line written by formatLogLine back (for `switchboard logs`); null for anything else. */
export function parseLogLine(server: string, text: string): LogLine | null {
  const match = FILE_LINE.exec(text.replace(/\r?\n$/, ''));
  const tag = match ? TAG.exec(match[2] as string) : null;
  if (!match || !tag) return null;
  const ts = Date.parse(match[1] as string);
  if (Number.isNaN(ts)) return null;
  return {
    server,
    ts,
    source: tag[1] as LogLine['source'],
    level: tag[2] as LogLine['level'],
    text: match[3] as string,
  };
}
