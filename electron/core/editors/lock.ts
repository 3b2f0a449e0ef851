import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { pidExists } from '../pid-exists.ts';
import { UserError } from '../errors.ts';

export interface LockOptions {
  /** how long to wait for another holder before giving up */
  timeoutMs?: number;
  /** a lock older than this is taken over even if its process still exists (it is stuck) */
  staleMs?: number;
}

/**
 * A lock file created with O_EXCL: whoever creates it holds the lock. It names the holder's pid and
 * the time, so a lock left by a process that died (or one stuck for longer than `staleMs`) is taken
 * over. Taking over renames the stale file aside first, so two processes that both found it stale
 * cannot both think they removed it.
 */
export async function withLock<T>(
  file: string,
  run: () => Promise<T> | T,
  options: LockOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const staleMs = options.staleMs ?? 30_000;
  mkdirSync(dirname(file), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    if (tryCreate(file)) break;
    const holder = readHolder(file);
    if (holder && (!isAlive(holder.pid) || Date.now() - holder.at > staleMs)) {
      takeOver(file, holder.raw);
      continue;
    }
    if (Date.now() > deadline) {
      throw new UserError(
        `another Switchboard is writing the same editor file (lock ${file} held by pid ${holder?.pid ?? '?'})`,
        {
          hint: 'nothing was written; try again in a moment',
        },
      );
    }
    await new Promise((r) => setTimeout(r, Math.min(10 + attempt * 5, 50) + Math.random() * 10));
  }
  try {
    return await run();
  } finally {
    rmSync(file, { force: true });
  }
}

function tryCreate(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, `${process.pid} ${Date.now()}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readHolder(file: string): { pid: number; at: number; raw: string } | undefined {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch {
    return undefined; // released meanwhile
  }
  const [pid, at] = raw.trim().split(/\s+/).map(Number);
  if (pid && at) return { pid, at, raw };
  // Empty: being written this very moment (create and write are back to back), or left by a process
  // that died in between. Held while fresh; once older than EMPTY_LOCK_STALE_MS, abandoned.
  let mtime: number;
  try {
    mtime = statSync(file).mtimeMs;
  } catch {
    return undefined; // released meanwhile
  }
  return { pid: Date.now() - mtime > EMPTY_LOCK_STALE_MS ? 0 : -1, at: mtime, raw };
}

function takeOver(file: string, seen: string): void {
  const aside = `${file}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(file, aside);
  } catch {
    return; // someone else took it over or released it: try again
  }
  let moved = '';
  try {
    moved = readFileSync(aside, 'utf8');
  } catch {
    // gone
  }
  if (moved !== seen) {
    // We moved a fresh lock someone had just created: put it back unless the place was taken again.
    try {
      linkSync(aside, file);
    } catch {
      // taken meanwhile: that holder goes first; the lock moved aside is dropped
    }
  }
  rmSync(aside, { force: true });
}

/** An empty lock file this old was left by a process that died between creating and writing it. */
const EMPTY_LOCK_STALE_MS = 2_000;

function isAlive(pid: number): boolean {
  if (pid === 0) return false; // an abandoned empty lock (see readHolder)
  if (pid < 0) return true;
  return pidExists(pid);
}
