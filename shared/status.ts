import { z } from 'zod';
import { ServerActivitySchema } from './activity.ts';

/**
 * A server's lifecycle state (design.md, "Server lifecycle"). The first group is decided by config and
 * trust before anything runs; the rest by the supervisor. `stopped` is the person's choice; `idle` is
 * a server Switchboard stopped after its idle timeout, started again by the next request to it.
 */
export const SERVER_STATES = [
  'pending-approval',
  'denied',
  'disabled',
  'stopped',
  'idle',
  'starting',
  'running',
  'backoff',
  'crash-loop',
  /** a remote server that answers only after the person signs in (OAuth); waits for them, no retries */
  'needs-sign-in',
  'error',
] as const;
export const ServerStateSchema = z.enum(SERVER_STATES);
export type ServerState = z.infer<typeof ServerStateSchema>;

export const ServerStatusSchema = z.object({
  name: z.string(),
  state: ServerStateSchema,
  transport: z.enum(['stdio', 'http']),
  pid: z.number().int().nullable(),
  restarts: z.number().int(),
  lastError: z.string().nullable(),
  /** epoch ms when the current run reached `running` */
  since: z.number().nullable(),
  /** epoch ms of the next automatic restart while in `backoff` */
  nextRetryAt: z.number().nullable(),
  toolCount: z.number().int().nullable(),
  fingerprint: z.string(),
  /**
   * tools held back from editors because they are new or changed since the tool list was pinned
   * (at approval, or when a change was last accepted); absent or 0 when none wait
   */
  toolsHeld: z.number().int().optional(),
  /**
   * a local server's sandbox in one line ("sandboxed; writes only its own folder; network: …", or
   * "NOT sandboxed (…)"); absent for remote servers
   */
  access: z.string().optional(),
  /** the last thing its sandbox refused it on this run, with the fix ("sandbox refused reading …") */
  sandboxRefused: z.string().optional(),
  /** the one grant that lets it do what its sandbox refused (`switchboard grant NAME ACCESS PATH`) */
  sandboxGrant: z
    .object({ path: z.string(), access: z.enum(['read', 'write']), command: z.string() })
    .optional(),
  /** prompts held back the same way; absent or 0 when none wait */
  promptsHeld: z.number().int().optional(),
  /** its instructions changed since they were pinned: editors get the pinned ones until accepted */
  instructionsHeld: z.boolean().optional(),
  /** the folder a local server runs in: its `cwd`, or its own folder in the home (data/<name>) */
  folder: z.string().optional(),
});
export type ServerStatus = z.infer<typeof ServerStatusSchema>;

export const StatusReportSchema = z.object({
  /** true when this came from a running `switchboard serve`, false when read from files */
  live: z.boolean(),
  configError: z.string().nullable(),
  servers: z.array(ServerStatusSchema),
  /**
   * per-call activity of the last hour, by server (only servers that had calls); a running
   * Switchboard fills it in on GET /api/status (status --json), not in live events
   */
  activity: z.record(z.string(), ServerActivitySchema).optional(),
});
export type StatusReport = z.infer<typeof StatusReportSchema>;

/**
 * What of a server is held back from editors until the person accepts it (its tools, prompts or
 * instructions changed since they were pinned), in words: [] when nothing is.
 */
export function heldBack(
  status: Pick<ServerStatus, 'toolsHeld' | 'promptsHeld' | 'instructionsHeld'>,
): string[] {
  return [
    ...((status.toolsHeld ?? 0) > 0 ? ['tools'] : []),
    ...((status.promptsHeld ?? 0) > 0 ? ['prompts'] : []),
    ...(status.instructionsHeld ? ['instructions'] : []),
  ];
}
