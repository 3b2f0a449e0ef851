import { watch, type FSWatcher } from 'chokidar';
import { logToStderr, watchProblem } from '../fs/watch-problem.ts';

export interface FolderWatchOptions {
  /** whether a path matters: a file followed, or a folder on the way down to one */
  wanted: (path: string) => boolean;
  /** a followed file was created, changed, replaced or removed */
  changed: (path: string) => void;
  /**
   * A folder newly followed is now watched. A file changed after the caller last read it and before
   * this moment raised no event (chokidar reports no file already there), so the caller reads again.
   */
  ready: () => void;
  /** where a watcher error is said (default: serve's log, stderr) */
  log?: (line: string) => void;
}

/**
 * Follows a set of folders, one chokidar watcher each, so that each folder's readiness is known:
 * one watcher's `add` after its first "ready" says nothing when the new folder is watched, and a
 * change made before then was lost for good.
 */
export class FolderWatch {
  readonly #options: FolderWatchOptions;
  /** each folder's watcher, and how to stop waiting for its "ready" (closed before it came) */
  readonly #watchers = new Map<string, { watcher: FSWatcher; settle: () => void }>();
  #closed = false;

  constructor(options: FolderWatchOptions) {
    this.#options = options;
  }

  /**
   * Watches exactly these folders from now on; resolves when the ones new here are watched (and
   * `ready` was called for them).
   */
  async follow(folders: readonly string[]): Promise<void> {
    if (this.#closed) return;
    const keep = new Set(folders);
    for (const [folder, one] of this.#watchers)
      if (!keep.has(folder)) {
        this.#watchers.delete(folder);
        one.settle();
        void one.watcher.close();
      }
    const added = [...keep].filter((f) => !this.#watchers.has(f)).map((f) => this.#watch(f));
    if (added.length === 0) return;
    await Promise.all(added);
    if (!this.#closed) this.#options.ready();
  }

  #watch(folder: string): Promise<void> {
    const { wanted, changed, log = logToStderr } = this.#options;
    const watcher = watch(folder, {
      ignoreInitial: true,
      depth: 8,
      ignored: (path: string) => !wanted(path),
      awaitWriteFinish: { stabilityThreshold: 30, pollInterval: 10 },
    });
    watcher.on('all', (_event, path) => changed(path));
    watcher.on('error', (err) => log(watchProblem(`the folder ${folder}`, err)));
    return new Promise<void>((resolve) => {
      watcher.once('ready', () => resolve());
      this.#watchers.set(folder, { watcher, settle: resolve });
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#watchers.values()];
    this.#watchers.clear();
    for (const one of all) one.settle();
    await Promise.all(all.map((one) => one.watcher.close()));
  }
}
