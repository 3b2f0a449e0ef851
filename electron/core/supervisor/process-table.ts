import { execFile } from 'node:child_process';
import { open, readdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * Questions about the OS process table. Zombies (exited, not yet reaped by their parent) count as
 * gone: they run no code, and where init does not reap them (some containers) they never disappear.
 * Linux reads /proc; other POSIX systems ask `ps`.
 */

interface ProcStat {
  pid: number;
  state: string;
  pgid: number;
  /** clock ticks since boot */
  startTicks: string;
}

/**
 * /proc/<pid>/stat is one line of a few hundred bytes, but procfs reports no size, so readFile would
 * allocate 64 KiB for it. A scan of every process's stat with readFile, run by each of a hundred
 * servers stopping at once (sandboxed ones leave their group a moment after the leader exits), held
 * ~200 MB of buffers at its peak, and the malloc heap kept ~35 MB of it for good (docs/performance.md).
 * The fields read here end within ~500 bytes even with the longest process name.
 */
const STAT_BYTES = 1024;

async function readProcStat(pid: number): Promise<ProcStat | null> {
  try {
    const handle = await open(`/proc/${pid}/stat`, 'r');
    let text: string;
    try {
      const { bytesRead, buffer } = await handle.read(Buffer.allocUnsafe(STAT_BYTES), 0, STAT_BYTES, 0);
      text = buffer.toString('utf8', 0, bytesRead);
    } finally {
      await handle.close();
    }
    // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
    //  cutime cstime priority nice threads itreal starttime …"; comm may hold spaces and parens.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const [state, , pgrp] = fields;
    const startTicks = fields[19];
    if (state === undefined || pgrp === undefined || startTicks === undefined) return null;
    return { pid, state, pgid: Number(pgrp), startTicks };
  } catch {
    return null;
  }
}

/** Reads at a time in a scan: keeps libuv's 4 threads busy without opening hundreds of files at once. */
const SCAN_READS = 8;

async function scanProcesses(): Promise<ProcStat[]> {
  const pids = (await readdir('/proc').catch(() => [] as string[])).filter((n) => /^\d+$/.test(n));
  const stats: ProcStat[] = [];
  let next = 0;
  const reader = async () => {
    while (next < pids.length) {
      const stat = await readProcStat(Number(pids[next++]));
      if (stat !== null) stats.push(stat);
    }
  };
  await Promise.all(Array.from({ length: Math.min(SCAN_READS, pids.length) }, reader));
  return stats;
}

let scanning: Promise<ProcStat[]> | undefined;
let queued: Promise<ProcStat[]> | undefined;

/**
 * The process table as it is now, read once for everyone who asks meanwhile: a hundred servers
 * stopping together poll their groups every 50 ms, and each used to read all of /proc itself. A
 * caller never gets a scan that began before it asked (it waits for the next one), so a process
 * that was already there is never missed.
 */
function processTable(): Promise<ProcStat[]> {
  if (scanning === undefined) {
    scanning = scanProcesses().finally(() => (scanning = undefined));
    return scanning;
  }
  queued ??= scanning.then(() => {
    queued = undefined;
    return processTable();
  });
  return queued;
}

let bootId: Promise<string> | undefined;
function linuxBootId(): Promise<string> {
  bootId ??= readFile('/proc/sys/kernel/random/boot_id', 'utf8').then(
    (id) => id.trim(),
    () => 'unknown-boot',
  );
  return bootId;
}

async function psLines(args: string[]): Promise<string[]> {
  try {
    const { stdout } = await execFileAsync('ps', args, { timeout: 5_000 });
    return stdout.split('\n').filter((line) => line.trim() !== '');
  } catch {
    return [];
  }
}

/**
 * An opaque token that identifies this process incarnation (start time), to tell a leftover process
 * from an unrelated one that got the same pid later. null when the process is gone or unknown.
 */
export async function processStartToken(pid: number): Promise<string | null> {
  if (process.platform === 'win32') return null;
  if (process.platform === 'linux') {
    const stat = await readProcStat(pid);
    return stat === null ? null : `${await linuxBootId()}:${stat.startTicks}`;
  }
  const [line] = await psLines(['-o', 'lstart=', '-p', String(pid)]);
  return line === undefined ? null : line.trim();
}

/** Whether pid is a live process (not a zombie). */
export async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform === 'win32') return true;
  if (process.platform === 'linux') {
    const stat = await readProcStat(pid);
    return stat !== null && stat.state !== 'Z';
  }
  const [line] = await psLines(['-o', 'stat=', '-p', String(pid)]);
  return line !== undefined && !line.trim().startsWith('Z');
}

export interface GroupMember {
  pid: number;
  /** same kind of token as processStartToken */
  startToken: string;
}

/** Live (non-zombie) processes whose process group is pgid. POSIX only; [] on Windows. */
export async function groupMembers(pgid: number): Promise<GroupMember[]> {
  if (process.platform === 'win32' || pgid <= 1) return [];
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    // ESRCH: no process at all in the group, the common case after a clean exit.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return [];
  }
  if (process.platform === 'linux') {
    const boot = await linuxBootId();
    return (await processTable())
      .filter((s) => s.pgid === pgid && s.state !== 'Z')
      .map((s) => ({ pid: s.pid, startToken: `${boot}:${s.startTicks}` }));
  }
  const members: GroupMember[] = [];
  for (const line of await psLines(['-A', '-o', 'pid=,pgid=,stat=,lstart='])) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (!match || Number(match[2]) !== pgid || (match[3] as string).startsWith('Z')) continue;
    members.push({ pid: Number(match[1]), startToken: (match[4] as string).trim() });
  }
  return members;
}

export async function isGroupAlive(pgid: number): Promise<boolean> {
  return (await groupMembers(pgid)).length > 0;
}

/**
 * Whether a process with start token `token` started no earlier than `reference`. True when the
 * tokens cannot be compared (different boot, unknown format): callers use it only as an extra guard.
 */
export function startedAtOrAfter(token: string, reference: string): boolean {
  const linux = /^(.+):(\d+)$/;
  const a = linux.exec(token);
  const b = linux.exec(reference);
  if (a && b) return a[1] !== b[1] || BigInt(a[2] as string) >= BigInt(b[2] as string);
  const ta = Date.parse(token);
  const tb = Date.parse(reference);
  return Number.isNaN(ta) || Number.isNaN(tb) || ta >= tb;
}
