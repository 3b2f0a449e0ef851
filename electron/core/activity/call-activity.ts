import type { ActivityMinute, CallStats, NamedCallStats, ServerActivity } from '../../../shared/activity.ts';
import type { Clock } from '../clock.ts';

const MINUTE_MS = 60_000;
/** The window: the last hour, minute by minute. */
const MINUTES = 60;
/** Latencies go into log-scale buckets 10 % wide from 10 µs: percentiles within ±5 %, in bounded memory. */
const BUCKET_BASE_MS = 0.01;
const BUCKET_GROWTH = 1.1;
const LOG_GROWTH = Math.log(BUCKET_GROWTH);
/** How often at most listeners hear which servers had calls. */
const NOTIFY_MS = 1_000;

interface Cell {
  calls: number;
  errors: number;
  /** bucket index → calls */
  latency: Map<number, number>;
}

interface Minute {
  /** the minute's start, epoch ms */
  at: number;
  /** by server, then `tool\0editor` */
  servers: Map<string, Map<string, Cell>>;
}

/**
 * Every tools/call an editor made through the bridge, per server, tool and editor, minute by minute
 * for the last hour, in memory only: what `status --json` and the server view show. Recording is a
 * few map lookups; everything else is done when a snapshot is asked for.
 */
export class CallActivity {
  readonly #clock: Clock;
  /** oldest first; only minutes that had calls */
  #minutes: Minute[] = [];
  readonly #dirty = new Set<string>();
  #notifyPending = false;
  readonly #listeners = new Set<(servers: string[]) => void>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** One answered call: how long the editor waited for it, and whether it failed. */
  record(server: string, tool: string, editor: string, ms: number, error: boolean): void {
    const now = this.#clock.now();
    const at = now - (now % MINUTE_MS);
    let minute = this.#minutes.at(-1);
    if (minute?.at !== at) {
      minute = { at, servers: new Map() };
      this.#minutes.push(minute);
      this.#prune(at);
    }
    let cells = minute.servers.get(server);
    if (!cells) minute.servers.set(server, (cells = new Map()));
    const key = `${tool}\0${editor}`;
    let cell = cells.get(key);
    if (!cell) cells.set(key, (cell = { calls: 0, errors: 0, latency: new Map() }));
    cell.calls += 1;
    if (error) cell.errors += 1;
    const bucket = bucketOf(ms);
    cell.latency.set(bucket, (cell.latency.get(bucket) ?? 0) + 1);
    this.#dirty.add(server);
    if (!this.#notifyPending && this.#listeners.size > 0) {
      this.#notifyPending = true;
      this.#clock.setTimeout(() => this.#notify(), NOTIFY_MS);
    }
  }

  /** Hears, at most once a second, which servers had calls since it last heard. */
  onCalls(listener: (servers: string[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The server's last hour, or null when it had no calls in it. */
  of(server: string): ServerActivity | null {
    const now = this.#clock.now();
    const current = now - (now % MINUTE_MS);
    const since = current - (MINUTES - 1) * MINUTE_MS;
    this.#prune(current);
    const total = newCell();
    const byTool = new Map<string, Cell>();
    const byEditor = new Map<string, Cell>();
    const perMinute = new Map<number, Cell>();
    for (const minute of this.#minutes) {
      const cells = minute.servers.get(server);
      if (!cells) continue;
      const thisMinute = newCell();
      for (const [key, cell] of cells) {
        const split = key.indexOf('\0');
        add(byTool, key.slice(0, split), cell);
        add(byEditor, key.slice(split + 1), cell);
        merge(thisMinute, cell);
        merge(total, cell);
      }
      perMinute.set(minute.at, thisMinute);
    }
    if (total.calls === 0) return null;
    const minutes: ActivityMinute[] = [];
    for (let at = since; at <= current; at += MINUTE_MS)
      minutes.push({ at, ...stats(perMinute.get(at) ?? newCell()) });
    return {
      since,
      ...stats(total),
      tools: named(byTool),
      editors: named(byEditor),
      minutes,
    };
  }

  /** Every server with calls in the last hour. */
  all(): Record<string, ServerActivity> {
    const servers = new Set<string>();
    for (const minute of this.#minutes) for (const server of minute.servers.keys()) servers.add(server);
    const out: Record<string, ServerActivity> = {};
    for (const server of [...servers].sort()) {
      const activity = this.of(server);
      if (activity) out[server] = activity;
    }
    return out;
  }

  /**
   * The tools (own names) an editor (a bridge token's name) called in the last hour, by server: what
   * it really uses of what it gets.
   */
  calledBy(editor: string): Map<string, Set<string>> {
    const now = this.#clock.now();
    this.#prune(now - (now % MINUTE_MS));
    const out = new Map<string, Set<string>>();
    const suffix = `\0${editor}`;
    for (const minute of this.#minutes) {
      for (const [server, cells] of minute.servers) {
        for (const key of cells.keys()) {
          if (!key.endsWith(suffix)) continue;
          let tools = out.get(server);
          if (!tools) out.set(server, (tools = new Set()));
          tools.add(key.slice(0, -suffix.length));
        }
      }
    }
    return out;
  }

  /** The server was removed: its calls go with it. */
  forget(server: string): void {
    for (const minute of this.#minutes) minute.servers.delete(server);
  }

  #prune(current: number): void {
    const oldest = current - (MINUTES - 1) * MINUTE_MS;
    if (this.#minutes[0] !== undefined && this.#minutes[0].at < oldest)
      this.#minutes = this.#minutes.filter((m) => m.at >= oldest);
  }

  #notify(): void {
    this.#notifyPending = false;
    const servers = [...this.#dirty];
    this.#dirty.clear();
    if (servers.length === 0) return;
    for (const listener of this.#listeners) listener(servers);
  }
}

function bucketOf(ms: number): number {
  if (!(ms > BUCKET_BASE_MS)) return 0;
  return Math.ceil(Math.log(ms / BUCKET_BASE_MS) / LOG_GROWTH);
}

/** The middle of a bucket (geometric), in ms with 3 significant digits. */
function bucketValue(bucket: number): number {
  const ms = BUCKET_BASE_MS * BUCKET_GROWTH ** (bucket - 0.5);
  return Number(ms.toPrecision(3));
}

function newCell(): Cell {
  return { calls: 0, errors: 0, latency: new Map() };
}

function merge(into: Cell, from: Cell): void {
  into.calls += from.calls;
  into.errors += from.errors;
  for (const [bucket, n] of from.latency) into.latency.set(bucket, (into.latency.get(bucket) ?? 0) + n);
}

function add(map: Map<string, Cell>, key: string, cell: Cell): void {
  let into = map.get(key);
  if (!into) map.set(key, (into = newCell()));
  merge(into, cell);
}

function stats(cell: Cell): CallStats {
  if (cell.calls === 0) return { calls: 0, errors: 0, p50Ms: null, p99Ms: null };
  const buckets = [...cell.latency].sort((a, b) => a[0] - b[0]);
  const at = (p: number): number => {
    const rank = Math.max(1, Math.ceil(p * cell.calls));
    let seen = 0;
    for (const [bucket, n] of buckets) {
      seen += n;
      if (seen >= rank) return bucketValue(bucket);
    }
    return bucketValue(buckets.at(-1)?.[0] ?? 0);
  };
  return { calls: cell.calls, errors: cell.errors, p50Ms: at(0.5), p99Ms: at(0.99) };
}

function named(map: Map<string, Cell>): NamedCallStats[] {
  return [...map]
    .map(([name, cell]) => ({ name, ...stats(cell) }))
    .sort((a, b) => b.calls - a.calls || (a.name < b.name ? -1 : 1));
}
