import { grantCommand } from '../../../shared/sandbox-grant.ts';
import type { ServerState } from '../../../shared/status.ts';
import type { DesiredServer, SandboxRefusal, SupervisedStatus } from './types.ts';

export type StatusPatch = Partial<
  Pick<SupervisedStatus, 'state' | 'pid' | 'since' | 'nextRetryAt' | 'toolCount'>
>;

/** Everything a run leaves in the status, cleared when it ends. */
export const NOT_RUNNING = { pid: null, since: null, nextRetryAt: null, toolCount: null } as const;

const RANK: Record<SandboxRefusal['kind'], number> = { process: 0, file: 1, network: 2 };

/**
 * Whether `later` replaces `shown` as the refusal that explains a server's trouble: a refused
 * connection stops what needed it, so a file refusal after it (mcp-remote's `mkdir ~/.mcp-auth`,
 * which it survives) does not hide it; of the same kind, the later one.
 */
export function outranks(later: SandboxRefusal, shown: SandboxRefusal | null): boolean {
  return shown === null || RANK[later.kind] >= RANK[shown.kind];
}

/** What a runner shows of its server: the state, and the facts of the current run and the last failure. */
export class RunnerStatus {
  state: ServerState = 'stopped';
  pid: number | null = null;
  restarts = 0;
  lastError: string | null = null;
  /** what the sandbox refused that explains the server's trouble best (cleared by a person's start) */
  refusal: SandboxRefusal | null = null;
  /** lastError is a run that ended on what the sandbox refused: it no longer applies once one works */
  errorFromRefusal = false;
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
    this.errorFromRefusal = false;
  }

  /** The server works (initialize answered): a failure the sandbox caused is over. */
  worked(): void {
    if (!this.errorFromRefusal) return;
    this.lastError = null;
    this.errorFromRefusal = false;
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
      ...(this.refusal !== null ? { sandboxRefused: this.refusal.words } : {}),
      ...(this.refusal?.grant
        ? { sandboxGrant: { ...this.refusal.grant, command: grantCommand(name, this.refusal.grant) } }
        : {}),
    };
  }
}
