import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, relative } from 'node:path';
import { UserError } from '../errors.ts';
import { spawnDetached, waitUntil, type Launch } from './run.ts';
import type { AppControl, AppProcess, DesktopApp, RestartResult } from './types.ts';

export interface LinuxDeps {
  /** the process table (/proc) */
  proc: string;
  /** only this user's processes count (another user's app is not ours to restart) */
  uid: number | undefined;
  /** this process, never a match */
  ownPid: number;
  /** USER_HZ: the unit of /proc/<pid>/stat's starttime; 100 on every Linux architecture Electron runs on */
  ticksPerSecond: number;
  now: () => number;
  kill: (pid: number, signal: NodeJS.Signals) => void;
  spawn: (launch: Launch) => Promise<number>;
  sleep?: (ms: number) => Promise<void>;
  /** how long the app may take to quit after SIGTERM */
  quitTimeoutMs: number;
  /**
   * only processes whose executable lies under this folder (undefined: any). Tests set it so one
   * test file never sees, ends or restarts another's fake Claude Desktop; it can only narrow.
   */
  under?: string | undefined;
}

const DEFAULTS: LinuxDeps = {
  proc: '/proc',
  uid: process.getuid?.(),
  ownPid: process.pid,
  ticksPerSecond: 100,
  now: Date.now,
  kill: (pid, signal) => process.kill(pid, signal),
  spawn: spawnDetached,
  quitTimeoutMs: 10_000,
};

interface ProcStat {
  state: string;
  ppid: number;
  /** clock ticks since boot */
  starttime: number;
}

/**
 * Claude Desktop on Linux (community builds; there is no official one) from the process table: a
 * process of this user whose program name (/proc/<pid>/comm, or argv[0]'s basename) is one of the
 * app's names exactly. Its start time is /proc/<pid>/stat's starttime (ticks since boot) against
 * /proc/uptime, both on the boot clock, so no wall-clock second rounding (btime) gets in.
 * Restart: SIGTERM (Electron quits cleanly on it), wait until every process is gone, then start the
 * same executable again with the same argv, working folder and environment, detached.
 */
export function linuxApps(overrides: Partial<LinuxDeps> = {}): AppControl {
  const deps: LinuxDeps = { ...DEFAULTS, ...overrides };
  const proc = (pid: number, file: string) => join(deps.proc, String(pid), file);

  function stat(pid: number): ProcStat | undefined {
    try {
      const text = readFileSync(proc(pid, 'stat'), 'utf8');
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ")".
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      return { state: fields[0] ?? '', ppid: Number(fields[1]), starttime: Number(fields[19]) };
    } catch {
      return undefined; // gone meanwhile
    }
  }

  /** Alive: in the table and not a zombie (exited, waiting for its parent to reap it). */
  const alive = (pid: number) => {
    const s = stat(pid);
    return s !== undefined && s.state !== 'Z' && s.state !== 'X';
  };

  /** The executable as the kernel resolved it (replaced on disk since: the same path). */
  const exeOf = (pid: number) => readlinkSync(proc(pid, 'exe')).replace(/ \(deleted\)$/, '');

  /** Inside `deps.under`, judged on the resolved executable path, not on argv's spelling. */
  const inScope = (pid: number) => {
    if (deps.under === undefined) return true;
    const rel = relative(deps.under, exeOf(pid));
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  };

  function argvOf(pid: number): string[] {
    return readFileSync(proc(pid, 'cmdline'), 'utf8').split('\0').slice(0, -1);
  }

  function list(app: DesktopApp): Promise<AppProcess[] | undefined> {
    let pids: number[];
    let uptime: number;
    try {
      pids = readdirSync(deps.proc)
        .filter((p) => /^\d+$/.test(p))
        .map(Number);
      uptime = Number(readFileSync(join(deps.proc, 'uptime'), 'utf8').split(' ')[0]);
    } catch {
      return Promise.resolve(undefined); // no /proc here
    }
    const bootAt = deps.now() - uptime * 1000;
    const wanted = new Set(app.processNames.linux);
    const found: AppProcess[] = [];
    for (const pid of pids) {
      if (pid === deps.ownPid) continue;
      try {
        if (deps.uid !== undefined && statSync(proc(pid, '')).uid !== deps.uid) continue;
        const comm = readFileSync(proc(pid, 'comm'), 'utf8').trim();
        if (!wanted.has(comm)) {
          const argv0 = argvOf(pid)[0] ?? '';
          if (!argv0 || !wanted.has(basename(argv0))) continue;
        }
        const s = stat(pid);
        if (!s || s.state === 'Z' || s.state === 'X') continue;
        if (!inScope(pid)) continue;
        found.push({
          pid,
          ppid: s.ppid,
          startedAt: bootAt + (s.starttime / deps.ticksPerSecond) * 1000,
          // a tick of starttime and one of /proc/uptime's hundredths
          precisionMs: 2 * (1000 / deps.ticksPerSecond),
        });
      } catch {
        // ended meanwhile, or not ours to read
      }
    }
    return Promise.resolve(found);
  }

  /** How a process was started, to start it again the same way. */
  function launchOf(pid: number): Launch {
    // Replaced on disk since it started (an update): the new file at the same path.
    const exe = exeOf(pid);
    const argv = argvOf(pid);
    let cwd: string | undefined;
    let env: NodeJS.ProcessEnv | undefined;
    try {
      cwd = readlinkSync(proc(pid, 'cwd'));
    } catch {
      cwd = undefined;
    }
    try {
      // Its own environment (DISPLAY, WAYLAND_DISPLAY, its D-Bus session…), not Switchboard's.
      env = Object.fromEntries(
        readFileSync(proc(pid, 'environ'), 'utf8')
          .split('\0')
          .filter((kv) => kv.includes('='))
          .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
      );
    } catch {
      env = undefined;
    }
    const appImage = env?.APPIMAGE;
    if (env && appImage && env.APPDIR && exe.startsWith(env.APPDIR + '/')) {
      // An AppImage runs from a mount that goes away when it quits: start the AppImage file itself,
      // which mounts itself again and sets these anew.
      const stale = new Set(['APPIMAGE', 'APPDIR', 'ARGV0', 'OWD']);
      const own = Object.fromEntries(Object.entries(env).filter(([key]) => !stale.has(key)));
      return { exe: appImage, argv: [appImage, ...argv.slice(1)], cwd, env: own };
    }
    return { exe, argv: argv.length ? argv : [exe], cwd, env };
  }

  async function restart(app: DesktopApp): Promise<RestartResult> {
    const running = (await list(app)) ?? [];
    if (running.length === 0) return { outcome: 'not-running' };
    const pids = new Set(running.map((p) => p.pid));
    // The app's own process(es): those whose parent is not one of its processes (Electron's helpers
    // are its children, and go when it goes). These are what is started again.
    const roots = running.filter((p) => p.ppid === undefined || !pids.has(p.ppid));
    let launches: Launch[];
    try {
      launches = roots.map((p) => launchOf(p.pid));
    } catch (err) {
      throw new UserError(`could not read how ${app.label} was started: ${(err as Error).message}`, {
        hint: `quit it from its menu and open it again`,
      });
    }
    for (const p of [...roots, ...running.filter((r) => !roots.includes(r))]) {
      try {
        deps.kill(p.pid, 'SIGTERM');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ESRCH') continue; // already gone
        throw new UserError(`could not quit ${app.label} (pid ${p.pid}): ${(err as Error).message}`, {
          hint: `quit it from its menu and open it again`,
        });
      }
    }
    const quit = await waitUntil(() => [...pids].every((pid) => !alive(pid)), deps.quitTimeoutMs, {
      now: deps.now,
      ...(deps.sleep ? { sleep: deps.sleep } : {}),
    });
    if (!quit) {
      const left = [...pids].filter(alive);
      throw new UserError(
        `could not quit ${app.label}: still running ${Math.round(deps.quitTimeoutMs / 1000)} s after it was asked to quit (pid ${left.join(', ')})`,
        { hint: `quit it from its menu and open it again` },
      );
    }
    const started: number[] = [];
    for (const launch of launches) {
      try {
        started.push(await deps.spawn(launch));
      } catch (err) {
        throw new UserError(
          `${app.label} quit, but could not be started again (${launch.exe}): ${(err as Error).message}`,
          { hint: `open it from your applications menu` },
        );
      }
    }
    return { outcome: 'restarted', pids: started };
  }

  return { list, restart };
}
