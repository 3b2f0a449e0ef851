// Shared helpers for the benchmarks: figures and their report, /proc readers, process cleanup.
// Benchmarks are scripts that print figures (not tests): see docs/performance.md.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { binFlags } from '../electron/cli/bin-flags.ts';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** The `switchboard` command, run with the Node running the bench (the bundled Node 24). */
export const BIN = fileURLToPath(new URL('../electron/cli/bin.mjs', import.meta.url));
export const NODE = process.execPath;
/**
 * The Node flags in bin.mjs's shebang (`#!/usr/bin/env -S node --max-semi-space-size=2`): what
 * `npx switchboard …` runs with, so the benches spawn `node <flags> bin.mjs` and measure the same.
 */
export const BIN_FLAGS: string[] = binFlags(BIN);

export function fixture(name: string): string {
  return fileURLToPath(new URL(`../test/fixtures/${name}`, import.meta.url));
}

// ─── figures ──────────────────────────────────────────────────────────────────────────────────────

export interface Budget {
  /** the figure must stay below (`<`) or at most (`<=`) the limit */
  op: '<' | '<=';
  limit: number;
  /** what the budget says, as in design.md */
  text: string;
}

export interface Figure {
  name: string;
  /** null when it could not be measured (see note) */
  value: number | null;
  unit: string;
  /** extra detail printed beside the value (min/max, n, …) */
  detail?: string;
  budget?: Budget;
}

export interface BenchResult {
  bench: string;
  title: string;
  machine: MachineInfo;
  figures: Figure[];
  notes: string[];
}

export interface MachineInfo {
  date: string;
  /** the checkout measured: short commit, "+ changes" when the work tree differs from it */
  revision: string;
  node: string;
  cpus: number;
  cpuModel: string;
  loadAvgStart: number[];
  loadAvgEnd: number[];
}

export function machineInfo(loadAvgStart: number[]): MachineInfo {
  const list = cpus();
  return {
    date: new Date().toISOString(),
    revision: revision(),
    node: process.version,
    cpus: list.length,
    cpuModel: list[0]?.model ?? 'unknown',
    loadAvgStart,
    loadAvgEnd: loadavg(),
  };
}

let revisionText: string | undefined;

/** The commit of the checkout under test (read-only git commands: no index refresh). */
export function revision(): string {
  if (revisionText !== undefined) return revisionText;
  const git = (...args: string[]) =>
    execFileSync('git', ['--no-optional-locks', '-C', ROOT, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  try {
    const commit = git('rev-parse', '--short', 'HEAD');
    const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
    revisionText = dirty ? `${commit} + changes` : commit;
  } catch {
    revisionText = 'not a git checkout';
  }
  return revisionText;
}

export function verdict(figure: Figure): 'ok' | 'MISSED' | '' {
  if (!figure.budget || figure.value === null) return '';
  const { op, limit } = figure.budget;
  const ok = op === '<' ? figure.value < limit : figure.value <= limit;
  return ok ? 'ok' : 'MISSED';
}

export function formatValue(value: number | null, unit: string): string {
  if (value === null) return 'n/a';
  if (Number.isInteger(value)) return `${value} ${unit}`.trim();
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`.trim();
}

export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function figureRows(figures: readonly Figure[]): string[][] {
  const rows = [['figure', 'value', 'detail', 'budget', '']];
  for (const f of figures) {
    rows.push([
      f.name,
      formatValue(f.value, f.unit),
      f.detail ?? '',
      f.budget ? `${f.budget.op} ${f.budget.limit} ${f.unit}` : '',
      verdict(f),
    ]);
  }
  return rows;
}

/** Prints the figures and, with `--json-out FILE` on the command line, writes them there for bench/run.ts. */
export function finish(result: BenchResult): void {
  const m = result.machine;
  console.log(`\n== ${result.title}`);
  console.log(
    `   ${m.date} · ${m.revision} · Node ${m.node} · ${m.cpus} × ${m.cpuModel} · load ${m.loadAvgStart.map((l) => l.toFixed(2)).join(' ')} → ${m.loadAvgEnd.map((l) => l.toFixed(2)).join(' ')}`,
  );
  console.log(table(figureRows(result.figures)));
  for (const note of result.notes) console.log(`note: ${note}`);
  const at = process.argv.indexOf('--json-out');
  const file = at === -1 ? undefined : process.argv[at + 1];
  if (file) writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
}

/** Removes `--json-out FILE` so a bench's own parseArgs sees only its options. */
export function benchArgs(): string[] {
  const args = process.argv.slice(2);
  const at = args.indexOf('--json-out');
  if (at !== -1) args.splice(at, 2);
  return args;
}

// ─── statistics ───────────────────────────────────────────────────────────────────────────────────

export interface Summary {
  n: number;
  median: number;
  min: number;
  max: number;
}

export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) throw new Error('no values to summarize');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1
      ? (sorted[mid] as number)
      : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { n: sorted.length, median, min: sorted[0] as number, max: sorted[sorted.length - 1] as number };
}

/** A median figure with "min–max, n=N" as its detail. */
export function medianFigure(name: string, values: readonly number[], unit: string, budget?: Budget): Figure {
  const s = summarize(values);
  const detail =
    s.n === 1 ? 'n=1' : `min ${formatValue(s.min, unit)}, max ${formatValue(s.max, unit)}, n=${s.n}`;
  return { name, value: s.median, unit, detail, ...(budget ? { budget } : {}) };
}

// ─── /proc (Linux) ────────────────────────────────────────────────────────────────────────────────

/** A field of /proc/<pid>/status in kB (VmRSS, VmHWM, …), or null when the process is gone. */
export function procStatusKb(pid: number | 'self', field: string): number | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return match?.[1] === undefined ? null : Number(match[1]);
}

/**
 * Proportional set size (kB) from /proc/<pid>/smaps_rollup: shared pages (the node binary, libraries)
 * split between the processes sharing them, so a sum over processes does not count them N times.
 */
export function procPssKb(pid: number | 'self'): number | null {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match?.[1] === undefined ? null : Number(match[1]);
  } catch {
    return null;
  }
}

export interface ProcStat {
  state: string;
  ppid: number;
  /** CPU time in clock ticks: the process itself, and its waited-for (reaped) children */
  utime: number;
  stime: number;
  cutime: number;
  cstime: number;
}

export function procStat(pid: number | 'self'): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Fields after "(comm)"; comm may contain spaces and parentheses, so split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const num = (i: number) => Number(fields[i] ?? NaN);
  // fields[0] is field 3 (state) of proc(5): ppid is 4, utime 14, stime 15, cutime 16, cstime 17.
  return {
    state: fields[0] ?? '?',
    ppid: num(1),
    utime: num(11),
    stime: num(12),
    cutime: num(13),
    cstime: num(14),
  };
}

function cpuTotals(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  // cpu user nice system idle iowait irq softirq steal …
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = user + nice + system + idle + iowait + irq + softirq + steal;
  return { busy: total - idle - iowait, total };
}

/** How busy the whole machine is (all processes, all cores), in % of its capacity, over `ms`. */
export async function systemBusyPercent(ms: number): Promise<number> {
  const a = cpuTotals();
  await sleep(ms);
  const b = cpuTotals();
  return b.total === a.total ? 0 : ((b.busy - a.busy) / (b.total - a.total)) * 100;
}

let ticksPerSecond: number | undefined;

/** USER_HZ, the unit of the CPU times in /proc/<pid>/stat (100 on Linux). */
export function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** CPU (ms) of children this process has reaped so far (they count once they exited and were waited for). */
export function reapedChildrenCpuMs(): number {
  const stat = procStat('self');
  if (!stat) throw new Error('cannot read /proc/self/stat (the benchmarks need Linux)');
  return ((stat.cutime + stat.cstime) * 1000) / clockTicks();
}

/** Every live descendant of pid (children, grandchildren, …), from the ppid links in /proc. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (!stat || stat.state === 'Z') continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(Number(entry));
    children.set(stat.ppid, list);
  }
  const out: number[] = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** Whether pid runs (a zombie does not: it has exited; this VM's pid 1 does not reap orphans). */
export function isRunning(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== null && stat.state !== 'Z';
}

// ─── processes and time ───────────────────────────────────────────────────────────────────────────

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Sends SIGKILL to each pid's process group and to the pid itself, ignoring the ones already gone. */
export function killHard(pids: readonly number[]): void {
  for (const pid of pids) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
}

/** Runs a command to its end; resolves with its wall time (ms), stdout and exit code. */
export function runTimed(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
): Promise<{ ms: number; code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ ms: performance.now() - started, code, stdout, stderr });
    });
  });
}

const cleanups: (() => void)[] = [];

/**
 * Registers a synchronous cleanup (kill a process tree, remove a temp folder) that also runs when the
 * bench is interrupted (Ctrl+C, SIGTERM) or throws. Returns a function that runs it once and unregisters it.
 */
export function onCleanup(fn: () => void): () => void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    try {
      fn();
    } catch {
      // best effort
    }
  };
  cleanups.push(once);
  return () => {
    const at = cleanups.indexOf(once);
    if (at !== -1) cleanups.splice(at, 1);
    once();
  };
}

function runCleanups(): void {
  for (const fn of cleanups.splice(0).reverse()) fn();
}

process.once('exit', runCleanups);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    runCleanups();
    process.exit(130);
  });
}
