import type { ServerState } from '../../../shared/status.ts';
import type { DesiredServer, SupervisedStatus } from './types.ts';

export type StatusPatch = Partial<
  Pick<SupervisedStatus, 'state' | 'pid' | 'since' | 'nextRetryAt' | 'toolCount'>
>;

/** Everything a run leaves in the status, cleared when it ends. */
export const NOT_RUNNING = { pid: null, since: null, nextRetryAt: null, toolCount: null } as const;

/** What a runner shows of its server: the state, and the facts of the current run and the last failure. */
export class RunnerStatus {
  state: ServerState = 'stopped';
  pid: number | null = null;
  restarts = 0;
  lastError: string | null = null;
  /** the last thing the current run's sandbox refused (cleared by a new start) */
  refusal: string | null = null;
  since: number | null = null;
  nextRetryAt: number | null = null;
  toolCount: number | null = null;

  apply(patch: StatusPatch): void {
    if (patch.state !== undefined) this.state = patch.state;
    if (patch.pid !== undefined) this.pid = patch.pid;
    if (patch.since !== undefined) this.since = patch.since;
    if (patch.nextRetryAt !== undefined) this.nextRetryAt = patch.nextRetryAt;
    if (patch.toolCount !== undefined) this.toolCount = patch.toolCount;
  }

  /** A person acted (start, restart): the last failure and refusal no longer apply. */
  clearFailure(): void {
    this.lastError = null;
    this.refusal = null;
  }

  snapshot(name: string, desired: DesiredServer): SupervisedStatus {
    return {
      name,
      state: this.state,
      transport: desired.transport,
      pid: this.pid,
      restarts: this.restarts,
      lastError: this.lastError,
      since: this.since,
      nextRetryAt: this.nextRetryAt,
      toolCount: this.toolCount,
      fingerprint: desired.fingerprint,
      ...(this.refusal !== null ? { sandboxRefused: this.refusal } : {}),
    };
  }
}
