import type { LogLine } from '../../../shared/logs.ts';

/** Lines kept per server in the page (the newest); the view stays smooth with all of them. */
export const MAX_LINES = 120_000;

export type LevelFilter = 'all' | 'warn' | 'error';
const RANK: Record<LogLine['level'], number> = { info: 0, warn: 1, error: 2 };
const MIN_RANK: Record<LevelFilter, number> = { all: 0, warn: 1, error: 2 };

interface FilterCache {
  key: string;
  scanned: number;
  matches: number[];
}

interface ServerLog {
  lines: LogLine[];
  /** characters in the longest line seen since the last clear: the rows' scroll width, kept stable */
  longest: number;
  version: number;
  /** bumps whenever lines are replaced or dropped (not on append), so derived indexes know to rebuild */
  generation: number;
  /** history fetched from the core (once per server per page load) */
  seeded: boolean;
  filter: FilterCache | undefined;
}

/** Runs `flush` soon, once: before the next frame is painted. */
export type Schedule = (flush: () => void) => void;

/**
 * The next animation frame, or a timer when there will be none (a hidden tab gets no frames, and
 * neither does Node in the unit tests). Typed from globalThis so this file needs no DOM types.
 */
const nextFrame: Schedule = (flush) => {
  const g = globalThis as {
    requestAnimationFrame?: (callback: () => void) => number;
    document?: { visibilityState: string };
  };
  if (g.requestAnimationFrame && g.document?.visibilityState === 'visible') g.requestAnimationFrame(flush);
  else setTimeout(flush, 100);
};

/**
 * Every server's log lines as they stream in over the subscription, outside React state: a burst of
 * thousands of lines costs one array push each and at most one re-render per animation frame.
 */
export class LogStore {
  readonly #logs = new Map<string, ServerLog>();
  readonly #listeners = new Map<string, Set<() => void>>();
  readonly #dirty = new Set<string>();
  readonly #schedule: Schedule;
  #scheduled = false;

  constructor(schedule: Schedule = nextFrame) {
    this.#schedule = schedule;
  }

  #log(server: string): ServerLog {
    let log = this.#logs.get(server);
    if (!log) {
      log = { lines: [], longest: 0, version: 0, generation: 0, seeded: false, filter: undefined };
      this.#logs.set(server, log);
    }
    return log;
  }

  lines(server: string): readonly LogLine[] {
    return this.#log(server).lines;
  }

  version(server: string): number {
    return this.#log(server).version;
  }

  generation(server: string): number {
    return this.#log(server).generation;
  }

  /** Characters in the longest line since the last clear (for a scroll width that does not jump). */
  longest(server: string): number {
    return this.#log(server).longest;
  }

  isSeeded(server: string): boolean {
    return this.#log(server).seeded;
  }

  /**
   * Indexes of the lines that pass a search and level filter (undefined when nothing filters),
   * extended incrementally as lines arrive: a 120,000-line log is scanned once per filter change,
   * then only its new lines. Returns a new array whenever the result changed.
   */
  filtered(server: string, query: string, level: LevelFilter): number[] | undefined {
    if (query === '' && level === 'all') return undefined;
    const log = this.#log(server);
    const key = `${log.generation}\u0000${level}\u0000${query}`;
    let cache = log.filter;
    if (!cache || cache.key !== key || cache.scanned > log.lines.length) {
      cache = { key, scanned: 0, matches: [] };
      log.filter = cache;
    }
    if (cache.scanned === log.lines.length) return cache.matches;
    const needle = query.toLowerCase();
    const min = MIN_RANK[level];
    const matches = cache.matches.slice();
    for (let i = cache.scanned; i < log.lines.length; i++) {
      const line = log.lines[i] as LogLine;
      if (RANK[line.level] < min) continue;
      if (needle && !line.text.toLowerCase().includes(needle)) continue;
      matches.push(i);
    }
    cache.scanned = log.lines.length;
    cache.matches = matches;
    return matches;
  }

  append(line: LogLine): void {
    const log = this.#log(line.server);
    log.lines.push(line);
    if (line.text.length > log.longest) log.longest = line.text.length;
    // Drop the oldest tenth at once rather than one line per push.
    if (log.lines.length > MAX_LINES) {
      log.lines.splice(0, log.lines.length - MAX_LINES + MAX_LINES / 10);
      log.generation++;
    }
    this.#changed(line.server);
  }

  /**
   * Puts the history fetched from the core in front of the lines that streamed in meanwhile, without
   * doubling the lines both contain.
   */
  seed(server: string, history: readonly LogLine[]): void {
    const log = this.#log(server);
    const live = log.lines;
    const last = history[history.length - 1];
    let merged: LogLine[];
    if (!last) merged = live;
    else {
      const atLast = new Set(history.filter((l) => l.ts === last.ts).map((l) => l.text));
      const newer = live.filter((l) => l.ts > last.ts || (l.ts === last.ts && !atLast.has(l.text)));
      merged = [...history, ...newer];
    }
    log.lines = merged.length > MAX_LINES ? merged.slice(merged.length - MAX_LINES) : merged;
    for (const line of history) if (line.text.length > log.longest) log.longest = line.text.length;
    log.seeded = true;
    log.generation++;
    this.#changed(server);
  }

  /** Forgets what the page shows (the core keeps its own log). */
  clear(server: string): void {
    const log = this.#log(server);
    log.lines = [];
    log.longest = 0;
    log.generation++;
    this.#changed(server);
  }

  subscribe(server: string, listener: () => void): () => void {
    let set = this.#listeners.get(server);
    if (!set) {
      set = new Set();
      this.#listeners.set(server, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  #changed(server: string): void {
    this.#dirty.add(server);
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#schedule(() => {
      this.#scheduled = false;
      const dirty = [...this.#dirty];
      this.#dirty.clear();
      for (const name of dirty) {
        this.#log(name).version++;
        for (const listener of this.#listeners.get(name) ?? []) listener();
      }
    });
  }
}
