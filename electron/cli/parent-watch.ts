import { pidExists } from '../core/pid-exists.ts';

/**
 * Notices that the process which started `switchboard serve` in the foreground has exited, so serve
 * can stop as on Ctrl+C. Process managers and containers stop `npx switchboard serve` with SIGTERM to
 * the pid they started: npm, which passes it to its `sh -c` wrapper, which dies without passing it
 * on — serve and every server would keep running, re-parented to init.
 *
 * Checked once a second: the parent pid changed (Linux and macOS re-parent orphans), or the original
 * parent is gone (Windows keeps the old parent pid). A serve started by init or a container runtime
 * (parent pid 0 or 1 at start), or detached by a wrapper that exited before serve was up, has no
 * parent to lose and is never stopped this way.
 */
export interface ParentWatchOptions {
  /** the current parent pid (default process.ppid, which Node reads afresh each time) */
  ppid?: () => number;
  /** whether a pid still runs (default: signal 0) */
  alive?: (pid: number) => boolean;
  intervalMs?: number;
}

/** Calls `onGone` once, with the pid of the parent that went away. Returns the stop function. */
export function watchParent(onGone: (parent: number) => void, options: ParentWatchOptions = {}): () => void {
  const ppid = options.ppid ?? (() => process.ppid);
  const alive = options.alive ?? pidExists;
  const parent = ppid();
  if (parent <= 1) return () => undefined;
  const timer = setInterval(() => {
    if (ppid() === parent && alive(parent)) return;
    clearInterval(timer);
    onGone(parent);
  }, options.intervalMs ?? 1_000);
  timer.unref();
  return () => clearInterval(timer);
}
