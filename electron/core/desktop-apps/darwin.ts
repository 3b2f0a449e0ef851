import { basename } from 'node:path';
import { UserError } from '../errors.ts';
import { execCommand, waitUntil } from './run.ts';
import type { AppControl, AppProcess, DesktopApp, Exec, RestartResult } from './types.ts';

export interface DarwinDeps {
  exec: Exec;
  uid: number | undefined;
  now: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** how long the app may take to quit after being asked */
  quitTimeoutMs: number;
  /** how long to watch for it to come back after `open` */
  startTimeoutMs: number;
}

const DEFAULTS: DarwinDeps = {
  exec: execCommand,
  uid: process.getuid?.(),
  now: Date.now,
  quitTimeoutMs: 15_000,
  startTimeoutMs: 10_000,
};

/** `ps -o etime`: [[dd-]hh:]mm:ss, in seconds. */
export function parseElapsed(text: string): number | undefined {
  const m = /^(?:(?:(\d+)-)?(\d+):)?(\d+):(\d+)$/.exec(text.trim());
  if (!m) return undefined;
  const [, days, hours, minutes, seconds] = m;
  return ((Number(days ?? 0) * 24 + Number(hours ?? 0)) * 60 + Number(minutes)) * 60 + Number(seconds);
}

/**
 * Claude Desktop on macOS. Listing: `ps -axo pid=,ppid=,uid=,etime=,comm=` (comm is the executable's
 * path; its name must be one of the app's exactly, so "Claude Helper (Renderer)" is not the app);
 * etime has whole seconds, hence a precision of one second. Restart: ask it to quit as the Dock's
 * Quit does (`osascript -e 'quit app "Claude"'`, so it saves and closes cleanly), wait until it is
 * gone, then `open -a Claude`. Untested on a Mac: the command sequence is covered by unit tests with
 * an injected exec only.
 */
export function darwinApps(overrides: Partial<DarwinDeps> = {}): AppControl {
  const deps: DarwinDeps = { ...DEFAULTS, ...overrides };

  async function list(app: DesktopApp): Promise<AppProcess[] | undefined> {
    let out;
    try {
      out = await deps.exec('ps', ['-axo', 'pid=,ppid=,uid=,etime=,comm=']);
    } catch {
      return undefined;
    }
    if (out.code !== 0) return undefined;
    const now = deps.now();
    const wanted = new Set(app.processNames.darwin);
    const found: AppProcess[] = [];
    for (const line of out.stdout.split('\n')) {
      const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.+)$/.exec(line);
      if (!m) continue;
      const [, pid, ppid, uid, etime, comm] = m;
      if (!wanted.has(basename((comm ?? '').trim()))) continue;
      if (deps.uid !== undefined && Number(uid) !== deps.uid) continue;
      const elapsed = parseElapsed(etime ?? '');
      if (elapsed === undefined) continue;
      found.push({
        pid: Number(pid),
        ppid: Number(ppid),
        startedAt: now - elapsed * 1000,
        precisionMs: 1000,
        exe: (comm ?? '').trim(),
      });
    }
    return found;
  }

  async function restart(app: DesktopApp): Promise<RestartResult> {
    const before = (await list(app)) ?? [];
    if (before.length === 0) return { outcome: 'not-running' };
    const waitOptions = { now: deps.now, ...(deps.sleep ? { sleep: deps.sleep } : {}) };
    const quit = await deps.exec('osascript', ['-e', `quit app "${app.macAppName}"`]);
    if (quit.code !== 0)
      throw new UserError(
        `could not quit ${app.label}: ${quit.stderr.trim() || `osascript exited with ${quit.code}`}`,
        {
          hint: `quit it from its menu and open it again`,
        },
      );
    const old = new Set(before.map((p) => p.pid));
    const gone = await waitUntil(
      async () => !((await list(app)) ?? []).some((p) => old.has(p.pid)),
      deps.quitTimeoutMs,
      waitOptions,
    );
    if (!gone)
      throw new UserError(
        `could not quit ${app.label}: still running ${Math.round(deps.quitTimeoutMs / 1000)} s after it was asked to quit (it may be asking something in a window)`,
        { hint: `quit it from its menu and open it again` },
      );
    const open = await deps.exec('open', ['-a', app.macAppName]);
    if (open.code !== 0)
      throw new UserError(
        `${app.label} quit, but could not be opened again: ${open.stderr.trim() || `open exited with ${open.code}`}`,
        { hint: `open it from your Applications folder` },
      );
    let pids: number[] = [];
    await waitUntil(
      async () => {
        pids = ((await list(app)) ?? []).map((p) => p.pid);
        return pids.length > 0;
      },
      deps.startTimeoutMs,
      waitOptions,
    );
    return { outcome: 'restarted', pids };
  }

  return { list, restart };
}
