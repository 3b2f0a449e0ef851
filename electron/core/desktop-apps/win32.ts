import { UserError } from '../errors.ts';
import { execCommand, spawnDetached, waitUntil, type Launch } from './run.ts';
import type { AppControl, AppProcess, DesktopApp, Exec, RestartResult } from './types.ts';

export interface Win32Deps {
  exec: Exec;
  spawn: (launch: Launch) => Promise<number>;
  now: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** how long to wait after asking it to close before ending it */
  closeTimeoutMs: number;
  /** how long to wait after ending it */
  killTimeoutMs: number;
  /** how long to watch for it to come back */
  startTimeoutMs: number;
}

const DEFAULTS: Win32Deps = {
  exec: execCommand,
  spawn: spawnDetached,
  now: Date.now,
  closeTimeoutMs: 5_000,
  killTimeoutMs: 5_000,
  startTimeoutMs: 10_000,
};

/** A PowerShell single-quoted string. */
const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * The app's processes in this Windows session (another user's are not ours), one line each:
 * "pid|start (ms since the epoch)|path". Windows paths cannot hold "|".
 */
export function listScript(names: readonly string[]): string {
  const bare = names.map((n) => quote(n.replace(/\.exe$/i, ''))).join(',');
  return (
    `$s = (Get-Process -Id $PID).SessionId; ` +
    `Get-Process -Name ${bare} -ErrorAction SilentlyContinue | Where-Object { $_.SessionId -eq $s } | ` +
    `ForEach-Object { '{0}|{1}|{2}' -f $_.Id, ([DateTimeOffset]$_.StartTime).ToUnixTimeMilliseconds(), $_.Path }`
  );
}

/**
 * Claude Desktop on Windows. Listing: PowerShell's Get-Process (StartTime, Path). Restart: ask the
 * first-started process (the app; its helpers are started by it) and its tree to close (`taskkill
 * /PID N /T`, a window's close); an app that only hides in the tray when its window closes is then
 * ended (`/F`); then the executable that was running is started again, detached. Untested on
 * Windows: the command sequence is covered by unit tests with an injected exec only.
 */
export function win32Apps(overrides: Partial<Win32Deps> = {}): AppControl {
  const deps: Win32Deps = { ...DEFAULTS, ...overrides };
  const waitOptions = { now: deps.now, ...(deps.sleep ? { sleep: deps.sleep } : {}) };

  async function list(app: DesktopApp): Promise<AppProcess[] | undefined> {
    let out;
    try {
      out = await deps.exec('powershell.exe', [
        '-NoProfile',
        '-NonInteractive',
        '-Command',
        listScript(app.processNames.win32),
      ]);
    } catch {
      return undefined;
    }
    if (out.code !== 0) return undefined;
    const found: AppProcess[] = [];
    for (const line of out.stdout.split(/\r?\n/)) {
      const [pid, started, path] = line.trim().split('|');
      if (!pid || !/^\d+$/.test(pid) || !started || !/^\d+$/.test(started)) continue;
      found.push({
        pid: Number(pid),
        ppid: undefined,
        startedAt: Number(started),
        precisionMs: 16,
        exe: path || undefined,
      });
    }
    return found;
  }

  async function restart(app: DesktopApp): Promise<RestartResult> {
    const before = (await list(app)) ?? [];
    if (before.length === 0) return { outcome: 'not-running' };
    const main = before.reduce((a, b) => (b.startedAt < a.startedAt ? b : a));
    const exe = main.exe ?? before.find((p) => p.exe)?.exe;
    if (!exe)
      throw new UserError(`could not see which program ${app.label} runs from, so it was left running`, {
        hint: `quit it from its menu and open it again`,
      });
    const old = new Set(before.map((p) => p.pid));
    const goneNow = async () => !((await list(app)) ?? []).some((p) => old.has(p.pid));
    await deps.exec('taskkill', ['/PID', String(main.pid), '/T']);
    if (!(await waitUntil(goneNow, deps.closeTimeoutMs, waitOptions))) {
      const kill = await deps.exec('taskkill', ['/PID', String(main.pid), '/T', '/F']);
      if (!(await waitUntil(goneNow, deps.killTimeoutMs, waitOptions)))
        throw new UserError(
          `could not quit ${app.label}: ${kill.stderr.trim() || kill.stdout.trim() || 'it is still running'}`,
          { hint: `quit it from its menu and open it again` },
        );
    }
    try {
      await deps.spawn({ exe, argv: [exe] });
    } catch (err) {
      throw new UserError(
        `${app.label} quit, but could not be started again (${exe}): ${(err as Error).message}`,
        {
          hint: `open it from the Start menu`,
        },
      );
    }
    let pids: number[] = [];
    await waitUntil(
      async () => {
        pids = ((await list(app)) ?? []).filter((p) => !old.has(p.pid)).map((p) => p.pid);
        return pids.length > 0;
      },
      deps.startTimeoutMs,
      waitOptions,
    );
    return { outcome: 'restarted', pids };
  }

  return { list, restart };
}
