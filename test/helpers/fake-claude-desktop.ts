import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { linuxApps } from '../../electron/core/desktop-apps/linux.ts';
import type { AppControl } from '../../electron/core/desktop-apps/types.ts';

/**
 * A real process that Linux sees as Claude Desktop: /bin/sleep copied under the name the community
 * builds run as (`claude-desktop`), so its /proc/<pid>/comm and argv[0] say so. Bystanders are the
 * same program under other names, which nothing may touch. Linux only (it reads /proc).
 */
export interface FakeApps {
  /** the folder its programs are copied to */
  bin: string;
  /**
   * environment that scopes a Switchboard (CLI, serve, EditorSyncService's env) to this folder's
   * apps: test files run side by side, and one must never see, end or restart another's.
   */
  env: { SWITCHBOARD_DESKTOP_APPS_UNDER: string };
  /** the Linux app control, scoped the same way */
  control(): AppControl;
  /** the copied program, under `name` */
  program(name: string): string;
  /** starts one (detached from the test's stdio); resolves once /proc shows it */
  start(name?: string, args?: string[]): Promise<number>;
  /** every live process running one of this folder's programs, with its argv */
  running(): { pid: number; argv: string[]; exe: string }[];
  /** ends every process of this folder's programs (also those Switchboard started) */
  cleanup(): void;
}

export function fakeApps(dir: string): FakeApps {
  const bin = join(dir, 'fake-apps');
  mkdirSync(bin, { recursive: true });
  const program = (name: string) => {
    const path = join(bin, name);
    try {
      copyFileSync('/bin/sleep', path);
    } catch {
      // already there (busy while it runs)
    }
    return path;
  };
  const running = () => {
    const found: { pid: number; argv: string[]; exe: string }[] = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const exe = readlinkSync(`/proc/${entry}/exe`).replace(/ \(deleted\)$/, '');
        if (!exe.startsWith(bin + '/')) continue;
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        if (/^\S+ \(.*\) Z /.test(stat)) continue; // exited, not reaped yet
        const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').slice(0, -1);
        found.push({ pid: Number(entry), argv, exe });
      } catch {
        // gone, or not ours
      }
    }
    return found;
  };
  return {
    bin,
    env: { SWITCHBOARD_DESKTOP_APPS_UNDER: bin },
    control: () => linuxApps({ under: bin }),
    program,
    running,
    async start(name = 'claude-desktop', args = ['600']) {
      const child = spawn(program(name), args, { stdio: 'ignore', detached: true });
      child.unref();
      const pid = child.pid ?? 0;
      for (let i = 0; i < 100 && !running().some((p) => p.pid === pid); i++)
        await new Promise((r) => setTimeout(r, 20));
      return pid;
    },
    cleanup() {
      for (const p of running()) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    },
  };
}

export function isAlive(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** A process's argv, from /proc. */
export function argvOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
}
