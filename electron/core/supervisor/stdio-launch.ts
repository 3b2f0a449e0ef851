import { systemClock } from '../clock.ts';
import { describeError } from '../errors.ts';
import type { ServerLog } from '../logs/server-log.ts';
import type { Attempt } from './attempt.ts';
import type { ProcessPidFile } from './pid-files.ts';
import { spawnProcess, SpawnError, type ExitInfo, type ServerProcess } from './process-group.ts';
import { ProcessTransport } from './process-transport.ts';
import type { LaunchPlan, SupervisorTimings } from './types.ts';
import { UpstreamLink } from './upstream-link.ts';
import { quote } from './wording.ts';

type StdioPlan = Extract<LaunchPlan, { transport: 'stdio' }>;

export interface StdioLaunchOptions {
  log: Pick<ServerLog, 'redact' | 'stderrStream'>;
  timings: Pick<SupervisorTimings, 'stopStdinGraceMs' | 'stopTermGraceMs'>;
  /** run/<name>.pid for this process; null writes none */
  pidFile: ProcessPidFile | null;
  /** work the runner waits for before it starts again (a process stopped here) */
  track(work: Promise<unknown>): void;
  /** the process runs: its pid */
  spawned(pid: number): void;
  /** the process ended (and its pipes closed) */
  exited(info: ExitInfo): void;
  /** initializes over the process's stdio */
  connect(link: UpstreamLink): Promise<unknown>;
}

/**
 * Starts a local server for one attempt: its process (in its sandbox, leading its own process
 * group), its pid file, its stderr into the server's log (with what the sandbox refused), then the
 * MCP connection over its stdin and stdout. A spawn that fails is reported to the attempt.
 */
export async function launchStdio(
  attempt: Attempt,
  plan: StdioPlan,
  options: StdioLaunchOptions,
): Promise<void> {
  const { log } = options;
  const commandLine = log.redact([plan.command, ...plan.args].map(quote).join(' '));
  const sandbox = plan.sandbox ?? null;
  attempt.sandbox = sandbox;
  if (sandbox) attempt.cancels.add(sandbox.onRefusal((words) => attempt.refused(words)));
  let proc: ServerProcess;
  try {
    proc = await spawnProcess(
      { command: plan.command, args: plan.args, cwd: plan.cwd, env: plan.env },
      {
        // The stop sequence waits on real processes, so its grace periods run on real time even
        // when idle and retry timers run on a test's hand-moved clock (else a stop could wait forever).
        clock: systemClock,
        timings: options.timings,
        onStopStep: (step) => attempt.note(`stop: ${step}`, 'warn'),
      },
    );
  } catch (err) {
    void sandbox?.release();
    if (!attempt.current) return;
    const message = describeError(err);
    if (err instanceof SpawnError && (err.code === 'ENOENT' || err.code === 'EACCES')) attempt.error(message);
    else attempt.fail(message);
    return;
  }
  attempt.proc = proc;
  attempt.note(`spawned pid ${proc.pid}: ${commandLine}`);
  if (attempt.ended) {
    // Stopped or replaced while spawning: its teardown already ran, so stop this process here.
    options.track(proc.stop());
    return;
  }
  attempt.pidWrite = writePid(attempt, options.pidFile, proc, commandLine);
  const explain = sandbox ? (line: string) => sandbox.explain(line) : undefined;
  const stderr = log.stderrStream(
    explain &&
      ((line) => {
        const words = explain(line);
        if (words) attempt.refused(words);
      }),
  );
  attempt.stderr = stderr;
  proc.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  proc.stderr.once('close', () => stderr.end());
  void proc.exited.then((info) => options.exited(info));
  options.spawned(proc.pid);
  await options.connect(new UpstreamLink(new ProcessTransport(proc.stdin, proc.stdout)));
}

async function writePid(
  attempt: Attempt,
  pidFile: ProcessPidFile | null,
  proc: ServerProcess,
  command: string,
): Promise<void> {
  if (pidFile === null) return;
  try {
    await pidFile.write(proc, command);
  } catch (err) {
    attempt.note(`could not write pid file: ${describeError(err)}`, 'warn');
  }
}
