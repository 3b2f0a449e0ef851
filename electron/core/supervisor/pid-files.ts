import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { systemClock, type Clock } from '../clock.ts';
import { holdProcessOpen } from './process-group.ts';
import { groupMembers, isAlive, isGroupAlive, processStartToken, startedAtOrAfter } from './process-table.ts';

/** run/<name>.pid: what we need after a crash of the host to find and kill what it left behind. */
export interface PidRecord {
  name: string;
  pid: number;
  /** process group (POSIX: same as pid, the child leads it); null on Windows */
  pgid: number | null;
  /** the command line, secrets redacted: for people reading the file and for our logs */
  command: string;
  /** epoch ms */
  startedAt: number;
  /** the OS's start time of pid (see processStartToken): guards against pid reuse */
  startToken: string | null;
}

export interface ReapedOrphan {
  name: string;
  pid: number;
  pgid: number;
  command: string;
  /** live processes of the group when we found it */
  killed: number[];
}

export function pidFilePath(runDir: string, name: string): string {
  return join(runDir, `${encodeURIComponent(name)}.pid`);
}

export async function writePidFile(runDir: string, record: PidRecord): Promise<void> {
  await mkdir(runDir, { recursive: true, mode: 0o700 });
  const path = pidFilePath(runDir, record.name);
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify(record) + '\n', { mode: 0o600 });
  await rename(temp, path);
}

/** Removes run/<name>.pid if it still describes pid (a newer run may have replaced it). */
export async function removePidFile(runDir: string, name: string, pid: number): Promise<void> {
  const path = pidFilePath(runDir, name);
  const record = await readPidFile(path);
  if (record === null || record.pid === pid) await rm(path, { force: true });
}

/** The process a pid file is about: its pid, and its group (null on Windows). */
export interface PidFileProcess {
  pid: number;
  pgid: number | null;
}

/**
 * One supervised process's run/<name>.pid: written once it is spawned (so that it can be reaped if
 * Switchboard is killed), removed once its whole group is gone.
 */
export class ProcessPidFile {
  readonly #runDir: string;
  readonly #name: string;
  readonly #clock: Clock;

  /** `name`: the server's name, or `<name>~<instance>` for a session's own process */
  constructor(runDir: string, name: string, clock: Clock) {
    this.#runDir = runDir;
    this.#name = name;
    this.#clock = clock;
  }

  /** `command`: the command line as people may read it (secrets redacted). */
  async write(proc: PidFileProcess, command: string): Promise<void> {
    const startToken = await processStartToken(proc.pid);
    await writePidFile(this.#runDir, {
      name: this.#name,
      pid: proc.pid,
      pgid: proc.pgid,
      command,
      startedAt: this.#clock.now(),
      startToken,
    });
  }

  /** Removes the file unless some of the process group still runs (it must stay reapable). */
  async removeOnceGone(proc: PidFileProcess): Promise<void> {
    if (proc.pgid !== null && (await isGroupAlive(proc.pgid))) return;
    await removePidFile(this.#runDir, this.#name, proc.pid).catch(() => {});
  }
}

async function readPidFile(path: string): Promise<PidRecord | null> {
  try {
    const value: unknown = JSON.parse(await readFile(path, 'utf8'));
    return isPidRecord(value) ? value : null;
  } catch {
    return null;
  }
}

function isPidRecord(value: unknown): value is PidRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.name === 'string' &&
    Number.isInteger(r.pid) &&
    (r.pid as number) > 1 &&
    (r.pgid === null || (Number.isInteger(r.pgid) && (r.pgid as number) > 1)) &&
    typeof r.command === 'string' &&
    typeof r.startedAt === 'number' &&
    (r.startToken === null || typeof r.startToken === 'string')
  );
}

export interface ReapOptions {
  clock?: Clock;
  /** between SIGTERM and SIGKILL (default 1 s: these are leftovers, nobody is waiting for them) */
  termGraceMs?: number;
}

/**
 * Kills the process groups a previous run left behind (it was killed before it could stop them) and
 * removes their pid files. A group is only touched when it is provably ours: its leader, if still
 * there, has the recorded start time, and no member is older than that start (pid reuse guard).
 * POSIX only; on Windows the stale files are just removed.
 */
export function reapOrphans(runDir: string, options: ReapOptions = {}): Promise<ReapedOrphan[]> {
  return holdProcessOpen(reapAll(runDir, options));
}

async function reapAll(runDir: string, options: ReapOptions): Promise<ReapedOrphan[]> {
  const clock = options.clock ?? systemClock;
  const termGraceMs = options.termGraceMs ?? 1_000;
  let entries: string[];
  try {
    entries = await readdir(runDir);
  } catch {
    return [];
  }
  const reaped: ReapedOrphan[] = [];
  for (const entry of entries.filter((e) => e.endsWith('.pid'))) {
    const path = join(runDir, entry);
    const record = await readPidFile(path);
    const orphan = record === null ? null : await reapOne(record, clock, termGraceMs);
    if (orphan !== null) reaped.push(orphan);
    await rm(path, { force: true });
  }
  return reaped;
}

async function reapOne(record: PidRecord, clock: Clock, termGraceMs: number): Promise<ReapedOrphan | null> {
  const { pid, pgid } = record;
  if (process.platform === 'win32' || pgid === null || pid === process.pid) return null;
  if (record.startToken === null) return null;
  if (await isAlive(pid)) {
    // The leader still runs: it must be the same process, not a newcomer with a recycled pid.
    if ((await processStartToken(pid)) !== record.startToken) return null;
  }
  const members = await groupMembers(pgid);
  if (members.length === 0) return null;
  const startToken = record.startToken;
  if (members.some((m) => m.pid === process.pid || !startedAtOrAfter(m.startToken, startToken))) return null;

  signalGroup(pgid, 'SIGTERM');
  if (!(await waitGroupGone(pgid, clock, termGraceMs))) {
    signalGroup(pgid, 'SIGKILL');
    await waitGroupGone(pgid, clock, 2_000);
  }
  return { name: record.name, pid, pgid, command: record.command, killed: members.map((m) => m.pid) };
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // gone already
  }
}

async function waitGroupGone(pgid: number, clock: Clock, ms: number): Promise<boolean> {
  const deadline = clock.now() + ms;
  for (;;) {
    if ((await groupMembers(pgid)).length === 0) return true;
    if (clock.now() >= deadline) return false;
    await new Promise<void>((resolve) => clock.setTimeout(resolve, 50));
  }
}
