import { execFile, spawn } from 'node:child_process';
import type { Exec } from './types.ts';

/** Runs a command without a shell; resolves with its exit code and output (rejects only if it cannot start). */
export const execCommand: Exec = (command, args) =>
  new Promise((resolve, reject) => {
    execFile(
      command,
      [...args],
      // LC_ALL=C: ps and friends print dates and numbers the same way in every locale.
      { timeout: 15_000, windowsHide: true, env: { ...process.env, LC_ALL: 'C' } },
      (err, stdout, stderr) => {
        if (err && typeof (err as NodeJS.ErrnoException).code === 'string') return reject(err); // not found
        const code = err ? Number((err as { code?: number }).code ?? 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });

export interface Launch {
  /** the executable */
  exe: string;
  /** the whole argv, argv[0] included (it need not be exe) */
  argv: readonly string[];
  cwd?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
}

/**
 * Starts an app on its own: detached (its own session, so it outlives Switchboard and no signal to
 * Switchboard reaches it), no stdio tied to ours. Resolves with its pid once it runs.
 */
export function spawnDetached(launch: Launch): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(launch.exe, launch.argv.slice(1), {
      argv0: launch.argv[0] ?? launch.exe,
      detached: true,
      stdio: 'ignore',
      windowsHide: false,
      ...(launch.cwd ? { cwd: launch.cwd } : {}),
      ...(launch.env ? { env: launch.env } : {}),
    });
    child.once('error', reject);
    child.once('spawn', () => {
      child.unref();
      resolve(child.pid ?? 0);
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `done` every `everyMs` until it is true or `timeoutMs` has passed; says which. */
export async function waitUntil(
  done: () => boolean | Promise<boolean>,
  timeoutMs: number,
  options: { everyMs?: number; now?: () => number; sleep?: (ms: number) => Promise<void> } = {},
): Promise<boolean> {
  const now = options.now ?? Date.now;
  const wait = options.sleep ?? sleep;
  const every = options.everyMs ?? 100;
  const until = now() + timeoutMs;
  for (;;) {
    if (await done()) return true;
    if (now() >= until) return false;
    await wait(every);
  }
}
