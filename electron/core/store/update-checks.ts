import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { OutdatedEntrySchema, type OutdatedEntry, type UpdatesReport } from '../../../shared/store.ts';
import type { Clock } from '../clock.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';

/** No automatic check in the first minutes after a start: servers and editors come first. */
export const FIRST_CHECK_DELAY_MS = 10 * 60_000;
/** Automatic checks: at most one a day… */
export const CHECK_EVERY_MS = 24 * 60 * 60_000;
/** …or one an hour while the last one could not reach a registry for some server (offline). */
export const RETRY_AFTER_MS = 60 * 60_000;

export interface UpdateChecksDeps {
  clock: Clock;
  /** where what the last check found is kept across restarts (a cache: losing it loses nothing) */
  file: string;
  /** checks every approved package-run server at its registry now */
  outdated(): Promise<OutdatedEntry[]>;
  /**
   * the lock (shared/store.ts PackagePin.lock) of the server's approved package now, or undefined: what
   * was found for another lock (the server was updated or approved again since) is no longer shown
   */
  pinnedLock(server: string): string | undefined;
  /** how many approved servers run a package that can be checked (bundles cannot) */
  packages(): number;
  /** whether the daily check is on (Settings) */
  daily(): boolean;
  /** a check started or ended */
  changed(): void;
}

const CacheSchema = z.object({
  checkedAt: z.number(),
  found: z.array(z.object({ lock: z.string(), entry: OutdatedEntrySchema })),
});
type Found = z.infer<typeof CacheSchema>['found'];

/**
 * Checks for newer releases of approved packages: when asked (the UI's Check for updates, `outdated`),
 * and, while started (by `serve` and the desktop app), once a day on its own (Settings can turn that
 * off). It only looks: each finding is what `update NAME` would offer, and nothing is installed or
 * approved without the person. What a check found is kept with the lock it was checked against, so an
 * update approved since is not offered again.
 */
export class UpdateChecks {
  readonly #deps: UpdateChecksDeps;
  #checkedAt: number | null = null;
  #found: Found = [];
  #running: Promise<UpdatesReport> | undefined;
  #startedAt: number | undefined;
  #cancel: (() => void) | undefined;
  #nextAt: number | null = null;
  /** when the last check failed as a whole */
  #failedAt: number | undefined;

  constructor(deps: UpdateChecksDeps) {
    this.#deps = deps;
    try {
      const cached = CacheSchema.safeParse(JSON.parse(readFileSync(deps.file, 'utf8')));
      if (cached.success) {
        this.#checkedAt = cached.data.checkedAt;
        this.#found = cached.data.found;
      }
    } catch {
      // none yet, or unreadable: as if never checked
    }
  }

  /** What the last check found that still applies; asks no registry. */
  report(): UpdatesReport {
    return {
      checkedAt: this.#checkedAt,
      checking: this.#running !== undefined,
      nextCheckAt: this.#nextAt,
      packages: this.#deps.packages(),
      servers: this.#found
        .filter((f) => this.#deps.pinnedLock(f.entry.server) === f.lock)
        .map((f) => f.entry),
    };
  }

  /** Checks now (a check already running is joined, not repeated). */
  check(): Promise<UpdatesReport> {
    if (this.#running) return this.#running;
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
      this.#schedule();
      this.#deps.changed();
    });
    this.#deps.changed();
    return this.#running;
  }

  async #run(): Promise<UpdatesReport> {
    let entries: OutdatedEntry[];
    try {
      entries = await this.#deps.outdated();
    } catch (err) {
      // Not one server's registry (those are findings with an error) but the check itself: try again
      // in an hour rather than at once.
      this.#failedAt = this.#deps.clock.now();
      throw err;
    }
    this.#failedAt = undefined;
    this.#checkedAt = this.#deps.clock.now();
    this.#found = entries.flatMap((entry) => {
      const lock = this.#deps.pinnedLock(entry.server);
      return lock === undefined ? [] : [{ lock, entry }];
    });
    try {
      writeFileAtomic(
        this.#deps.file,
        JSON.stringify({ checkedAt: this.#checkedAt, found: this.#found }) + '\n',
        { mode: 0o600 },
      );
    } catch {
      // a cache: the next check writes it again
    }
    return { ...this.report(), checking: false };
  }

  /** Starts the daily checks (the first one not before FIRST_CHECK_DELAY_MS from now). */
  start(): void {
    this.#startedAt = this.#deps.clock.now();
    this.#schedule();
  }

  stop(): void {
    this.#startedAt = undefined;
    this.#schedule();
  }

  /** The daily check was turned on or off. */
  settingsChanged(): void {
    this.#schedule();
    this.#deps.changed();
  }

  #schedule(): void {
    this.#cancel?.();
    this.#cancel = undefined;
    this.#nextAt = null;
    if (this.#startedAt === undefined || !this.#deps.daily()) return;
    const failed = this.#found.some((f) => f.entry.error !== null);
    const due = this.#checkedAt === null ? 0 : this.#checkedAt + (failed ? RETRY_AFTER_MS : CHECK_EVERY_MS);
    const at = Math.max(
      due,
      this.#failedAt === undefined ? 0 : this.#failedAt + RETRY_AFTER_MS,
      this.#startedAt + FIRST_CHECK_DELAY_MS,
      this.#deps.clock.now(),
    );
    this.#nextAt = at;
    this.#cancel = this.#deps.clock.setTimeout(() => {
      this.#cancel = undefined;
      void this.check().catch(() => undefined);
    }, at - this.#deps.clock.now());
  }
}
