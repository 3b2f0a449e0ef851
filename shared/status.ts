import { z } from 'zod';

/**
 * A server's lifecycle state (design.md, "Server lifecycle"). The first group is decided by config and
 * trust before anything runs; the rest by the supervisor.
 */
export const SERVER_STATES = [
  'pending-approval',
  'denied',
  'disabled',
  'stopped',
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
});
export type ServerStatus = z.infer<typeof ServerStatusSchema>;

export const StatusReportSchema = z.object({
  /** true when this came from a running `switchboard serve`, false when read from files */
  live: z.boolean(),
  configError: z.string().nullable(),
  servers: z.array(ServerStatusSchema),
});
export type StatusReport = z.infer<typeof StatusReportSchema>;
