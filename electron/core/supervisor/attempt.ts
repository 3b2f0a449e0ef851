import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { LogLine } from '../../../shared/logs.ts';
import { within, type Clock } from '../clock.ts';
import type { LogStream } from '../logs/server-log.ts';
import type { ProcessPidFile } from './pid-files.ts';
import type { ServerProcess } from './process-group.ts';
import type { SandboxRefusal, SandboxRun } from './types.ts';
import type { UpstreamLink } from './upstream-link.ts';

export type NoteLevel = LogLine['level'];

/**
 * The SDK's own request timer runs on real time; an attempt's run on the injected clock and abort the
 * request through its signal (see request()). This keeps the SDK's timer out of the way (it is
 * cleared on abort).
 */
export const SDK_TIMEOUT_MS = 2_147_483_647;

/**
 * What an attempt reports to the runner that made it: the runner's state machine decides what each
 * report means (an attempt that is no longer current is ignored there).
 */
export interface AttemptHost {
  /** whether the attempt is still the runner's own (not replaced, stopped or ended) */
  isCurrent(attempt: Attempt): boolean;
  /** a line of Switchboard's in the server's log */
  note(text: string, level?: NoteLevel): void;
  /** a failure that counts toward crash-loop: back off and retry, or give up */
  fail(attempt: Attempt, message: string): void;
  /** cannot start, and retrying will not help: wait for the person */
  error(attempt: Attempt, message: string): void;
  /** a remote server that wants an OAuth sign-in: wait for the person */
  needsSignIn(attempt: Attempt, message: string): void;
  /** the sandbox refused the server something (words with the fix) */
  refused(attempt: Attempt, refusal: SandboxRefusal): void;
}

/**
 * One start of the server: everything that must be torn down when it ends, and its way of reporting
 * to the runner. Its requests time out on the runner's clock.
 */
export class Attempt {
  proc: ServerProcess | null = null;
  client: Client | null = null;
  link: UpstreamLink | null = null;
  pidWrite: Promise<void> = Promise.resolve();
  /** timers and listeners to cancel when it ends */
  readonly cancels = new Set<() => void>();
  readonly aborts = new Set<AbortController>();
  /** set once the attempt failed, errored or was stopped: later events of it are ignored */
  ended = false;
  stderr: LogStream | null = null;
  /** the OS sandbox this attempt's process runs in, released when it is gone */
  sandbox: SandboxRun | null = null;
  /** what the sandbox refused on this attempt that explains it best (refusals.ts, `outranks`) */
  refusal: SandboxRefusal | null = null;
  /** gives back this attempt's start slot (no-op when it holds none) */
  releaseStart: () => void = () => {};
  /** the bridge asked for a new start while requests were in flight: once they are done */
  renewWhenFree = false;

  readonly #clock: Clock;
  readonly #host: AttemptHost;

  constructor(clock: Clock, host: AttemptHost) {
    this.#clock = clock;
    this.#host = host;
  }

  /** Still the runner's own attempt: its events count. */
  get current(): boolean {
    return this.#host.isCurrent(this);
  }

  note(text: string, level?: NoteLevel): void {
    this.#host.note(text, level);
  }

  fail(message: string): void {
    this.#host.fail(this, message);
  }

  error(message: string): void {
    this.#host.error(this, message);
  }

  needsSignIn(message: string): void {
    this.#host.needsSignIn(this, message);
  }

  refused(refusal: SandboxRefusal): void {
    this.#host.refused(this, refusal);
  }

  /**
   * Runs an SDK request with a timeout on the clock: on expiry the request is aborted with an McpError
   * whose data is `reason`. Ending the attempt aborts it too.
   */
  async request<T>(timeoutMs: number, reason: Error, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    this.aborts.add(controller);
    const cancel = this.#clock.setTimeout(
      () => controller.abort(new McpError(ErrorCode.RequestTimeout, reason.message, reason)),
      timeoutMs,
    );
    this.cancels.add(cancel);
    try {
      return await run(controller.signal);
    } finally {
      cancel();
      this.cancels.delete(cancel);
      this.aborts.delete(controller);
    }
  }

  /** Resolves when p settles or ms pass on the attempt's clock. */
  within(p: Promise<unknown>, ms: number): Promise<void> {
    return within(this.#clock, p, ms);
  }

  /**
   * Takes the attempt down: its timers and requests, then its process group (the stop sequence),
   * its client, its sandbox and its pid file once the group is gone.
   */
  async teardown(pidFile: ProcessPidFile | null): Promise<void> {
    for (const cancel of this.cancels) cancel();
    this.cancels.clear();
    for (const controller of this.aborts) controller.abort(new Error('stopping'));
    this.aborts.clear();
    const client = this.client;
    this.client = null;
    const proc = this.proc;
    // Stop the process first (stdin close is step one); the client just detaches afterwards.
    const stopped = proc?.stop();
    await client?.close().catch(() => {});
    if (proc === null || stopped === undefined) {
      await this.sandbox?.release();
      return;
    }
    await stopped;
    await this.sandbox?.release();
    await this.pidWrite;
    await pidFile?.removeOnceGone(proc);
  }
}
