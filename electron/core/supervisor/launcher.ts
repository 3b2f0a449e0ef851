import { describeError } from '../errors.ts';
import type { ServerLog } from '../logs/server-log.ts';
import type { Attempt } from './attempt.ts';
import type { Drain } from './drain.ts';
import { launchHttp } from './http-launch.ts';
import { initialize, type ConnectFailure, type Initialized, type InitializeOptions } from './initialize.ts';
import type { ProcessPidFile } from './pid-files.ts';
import type { ExitInfo } from './process-group.ts';
import type { StartGate } from './start-gate.ts';
import { launchStdio } from './stdio-launch.ts';
import type { DesiredServer, LaunchPlan, SupervisorTimings } from './types.ts';
import type { UpstreamLink } from './upstream-link.ts';

export interface LauncherOptions {
  /** the server's config now (prepared anew for each start) */
  desired(): DesiredServer;
  log: Pick<ServerLog, 'redact' | 'addSecrets' | 'stderrStream'>;
  timings: SupervisorTimings;
  /** run/<name>.pid for the process; null writes none */
  pidFile: ProcessPidFile | null;
  /** shared by the supervisor's runners: bounds how many servers start at once */
  startGate: Pick<StartGate, 'acquire'> | undefined;
  /** the teardowns of earlier attempts, waited for before a start */
  drain: Pick<Drain, 'settled' | 'track'>;
  initialize: InitializeOptions;
  /** the attempt's process runs: its pid */
  spawned(pid: number): void;
  /** the attempt's process ended (and its pipes closed) */
  exited(attempt: Attempt, info: ExitInfo): void;
  /** initialize answered over `link`: the server runs */
  running(attempt: Attempt, link: UpstreamLink, initialized: Initialized): Promise<void>;
}

/**
 * How one start of a server goes, up to running: wait until earlier attempts are gone and for a
 * start slot, prepare the launch (secrets, package install, sandbox), spawn or connect, initialize.
 * What goes wrong on the way is reported to the attempt.
 */
export class Launcher {
  readonly #options: LauncherOptions;

  constructor(options: LauncherOptions) {
    this.#options = options;
  }

  async run(attempt: Attempt): Promise<void> {
    const options = this.#options;
    await options.drain.settled();
    if (!attempt.current) return;
    if (options.startGate) {
      attempt.releaseStart = await options.startGate.acquire();
      if (!attempt.current) {
        attempt.releaseStart();
        return;
      }
    }
    let plan: LaunchPlan;
    try {
      plan = await options.desired().prepare((text) => {
        if (attempt.current) attempt.note(text);
      });
    } catch (err) {
      if (attempt.current) attempt.error(describeError(err));
      return;
    }
    if (!attempt.current) return;
    options.log.addSecrets(plan.redact);
    if (plan.transport === 'stdio') {
      await launchStdio(attempt, plan, {
        log: options.log,
        timings: options.timings,
        pidFile: options.pidFile,
        track: (work) => options.drain.track(work),
        spawned: (pid) => options.spawned(pid),
        exited: (info) => options.exited(attempt, info),
        connect: (link) => this.#connect(attempt, link),
      });
    } else {
      await launchHttp(attempt, plan, {
        log: options.log,
        server: options.initialize.server,
        clientInfo: options.initialize.clientInfo,
        connect: (link, onFailure) => this.#connect(attempt, link, onFailure),
      });
    }
  }

  /** Initializes over `link`, then runs; resolves 'fallback' when `onFailure` asked to try another way. */
  async #connect(
    attempt: Attempt,
    link: UpstreamLink,
    onFailure?: ConnectFailure,
  ): Promise<'fallback' | undefined> {
    const initialized = await initialize(attempt, link, this.#options.initialize, onFailure);
    if (initialized === undefined || initialized === 'fallback') return initialized;
    // Ended just as initialize returned: its teardown closed the client.
    if (!attempt.current) return undefined;
    await this.#options.running(attempt, link, initialized);
    return undefined;
  }
}
