import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import spawn from 'cross-spawn';
import { within, type Clock } from '../clock.ts';
import { isGroupAlive } from './process-table.ts';
import type { SupervisorTimings } from './types.ts';

export interface ProcessSpec {
  /** absolute path of the program; never run through a shell */
  command: string;
  args: string[];
  cwd: string | undefined;
  /** the complete environment of the child */
  env: Record<string, string>;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** spawn() failed before the process ran (ENOENT: no such program, EACCES: not executable, …). */
export class SpawnError extends Error {
  readonly code: string;
  readonly command: string;
  constructor(command: string, cause: NodeJS.ErrnoException, cwd?: string) {
    super(describeSpawnFailure(command, cause.code ?? 'UNKNOWN', cause.message, cwd), { cause });
    this.name = 'SpawnError';
    this.code = cause.code ?? 'UNKNOWN';
    this.command = command;
  }
}

function describeSpawnFailure(command: string, code: string, message: string, cwd?: string): string {
  switch (code) {
    case 'ENOENT':
      // spawn reports a missing working directory as ENOENT too.
      if (cwd !== undefined && !existsSync(cwd))
        return `working directory does not exist: ${cwd} — fix "cwd"`;
      return `command not found: ${command} — check that it is installed and the path is right`;
    case 'EACCES':
      return `cannot run ${command}: permission denied — is it executable?`;
    default:
      return `cannot start ${command}: ${message}`;
  }
}

type StopTimings = Pick<SupervisorTimings, 'stopStdinGraceMs' | 'stopTermGraceMs'>;

export interface SpawnOptions {
  clock: Clock;
  timings: StopTimings;
  /** told about each escalation of stop() ("SIGTERM to process group 123"), for the server's log */
  onStopStep?: (step: string) => void;
}

/** How long after the leader exits we wait for its pipes to close (grandchildren may hold them). */
const CLOSE_GRACE_MS = 500;
/** After SIGKILL, how long we keep checking that the group is gone before giving up. */
const KILL_WAIT_MS = 2_000;
const POLL_MS = 50;

/**
 * One spawned server process. On POSIX it leads its own process group (and session), so stop()
 * reaches grandchildren too (npx → node). stop() follows design.md exactly: close stdin, wait,
 * SIGTERM the group, wait, SIGKILL the group (taskkill /T /F on Windows).
 */
export class ServerProcess {
  readonly pid: number;
  /** the process group to signal; null on Windows */
  readonly pgid: number | null;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** resolves once the process exited and its pipes closed (or CLOSE_GRACE_MS after exit) */
  readonly exited: Promise<ExitInfo>;

  readonly #clock: Clock;
  readonly #timings: StopTimings;
  readonly #onStopStep: (step: string) => void;
  readonly #leaderExit: Promise<ExitInfo>;
  #exitInfo: ExitInfo | null = null;
  #stopping: Promise<ExitInfo> | null = null;

  constructor(child: ChildProcess, options: SpawnOptions) {
    if (child.pid === undefined || !child.stdin || !child.stdout || !child.stderr) {
      throw new Error('ServerProcess needs a spawned child with piped stdio');
    }
    this.pid = child.pid;
    this.pgid = process.platform === 'win32' ? null : child.pid;
    this.stdin = child.stdin;
    this.stdout = child.stdout;
    this.stderr = child.stderr;
    this.#clock = options.clock;
    this.#timings = options.timings;
    this.#onStopStep = options.onStopStep ?? (() => {});
    // A closed pipe must not crash the host: errors here are expected when the child dies.
    this.stdin.on('error', () => {});
    this.stdout.on('error', () => {});
    this.stderr.on('error', () => {});
    child.on('error', () => {});

    this.#leaderExit = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.#exitInfo = { code, signal };
        resolve(this.#exitInfo);
      });
    });
    this.exited = new Promise((resolve) => {
      let closed = false;
      let cancelGrace = () => {};
      child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        closed = true;
        cancelGrace();
        this.#exitInfo ??= { code, signal };
        resolve(this.#exitInfo);
      });
      void this.#leaderExit.then((info) => {
        if (!closed) cancelGrace = this.#clock.setTimeout(() => resolve(info), CLOSE_GRACE_MS);
      });
    });
  }

  /** null while the leader runs */
  get exitInfo(): ExitInfo | null {
    return this.#exitInfo;
  }

  /** Stops the process and its whole group; resolves when they are gone. Safe to call repeatedly. */
  stop(): Promise<ExitInfo> {
    this.#stopping ??= holdProcessOpen(this.#stop());
    return this.#stopping;
  }

  async #stop(): Promise<ExitInfo> {
    if (this.#exitInfo === null) {
      try {
        this.stdin.end();
      } catch {
        // already closed
      }
      await within(this.#clock, this.#leaderExit, this.#timings.stopStdinGraceMs);
    }
    if (this.pgid === null) {
      if (this.#exitInfo === null) {
        this.#onStopStep(`taskkill /T /F pid ${this.pid}`);
        await taskkill(this.pid);
        await within(this.#clock, this.#leaderExit, KILL_WAIT_MS);
      }
    } else if (!(await this.#gone())) {
      this.#onStopStep(`SIGTERM to process group ${this.pgid}`);
      killGroup(this.pgid, 'SIGTERM');
      if (!(await this.#waitGone(this.#timings.stopTermGraceMs))) {
        this.#onStopStep(`SIGKILL to process group ${this.pgid}`);
        killGroup(this.pgid, 'SIGKILL');
        if (!(await this.#waitGone(KILL_WAIT_MS))) {
          this.#onStopStep(`process group ${this.pgid} still has processes after SIGKILL`);
        }
      }
    }
    // The leader is reaped by now (or was SIGKILLed); 'close' follows within CLOSE_GRACE_MS.
    return within(this.#clock, this.exited, CLOSE_GRACE_MS).then(
      () => this.#exitInfo ?? { code: null, signal: null },
    );
  }

  async #gone(): Promise<boolean> {
    return this.#exitInfo !== null && (this.pgid === null || !(await isGroupAlive(this.pgid)));
  }

  /** Waits up to ms for the leader to exit and the group to empty; true when both happened. */
  async #waitGone(ms: number): Promise<boolean> {
    const deadline = this.#clock.now() + ms;
    for (;;) {
      if (await this.#gone()) return true;
      const left = deadline - this.#clock.now();
      if (left <= 0) return false;
      await within(this.#clock, this.#leaderExit, Math.min(POLL_MS, left));
    }
  }
}

/**
 * Keeps the Node process alive until p settles. Clock timers are unref'd, so without this a host
 * with nothing else to do could exit halfway through a stop sequence and leave the group running.
 */
export function holdProcessOpen<T>(p: Promise<T>): Promise<T> {
  const handle = setInterval(() => {}, 1 << 30);
  return p.finally(() => clearInterval(handle));
}

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: already gone
  }
}

function taskkill(pid: number): Promise<void> {
  return new Promise((resolve) => {
    execFile('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true }, () => resolve());
  });
}

/**
 * Spawns argv directly (cross-spawn: no shell; handles npx.cmd on Windows) with piped stdio.
 * Rejects with SpawnError when the program cannot be started.
 */
export function spawnProcess(spec: ProcessSpec, options: SpawnOptions): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(spec.command, spec.args, {
        cwd: spec.cwd,
        env: spec.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        // POSIX: setsid(), so the child leads a new process group we can signal as a whole.
        detached: process.platform !== 'win32',
        windowsHide: true,
        shell: false,
      });
    } catch (err) {
      reject(new SpawnError(spec.command, err as NodeJS.ErrnoException));
      return;
    }
    const onError = (err: NodeJS.ErrnoException) => {
      child.removeListener('spawn', onSpawn);
      reject(new SpawnError(spec.command, err, spec.cwd));
    };
    const onSpawn = () => {
      child.removeListener('error', onError);
      resolve(new ServerProcess(child, options));
    };
    child.once('error', onError);
    child.once('spawn', onSpawn);
  });
}
