import { z } from 'zod';
import { LogLineSchema } from './logs.ts';
import { ServerStatusSchema, StatusReportSchema } from './status.ts';

/** The bridge's fixed default port: editor files point here, so it must not change between runs. */
export const DEFAULT_BRIDGE_PORT = 43117;

/** Control API routes (served by the bridge under /api, used by the CLI and the UI). */
export const ApiRoutes = {
  status: '/api/status',
  events: '/api/events',
  serverAction: (name: string, action: ServerAction) => `/api/servers/${encodeURIComponent(name)}/${action}`,
  logs: (name: string) => `/api/servers/${encodeURIComponent(name)}/logs`,
} as const;

export const SERVER_ACTIONS = ['approve', 'deny', 'start', 'stop', 'restart'] as const;
export const ServerActionSchema = z.enum(SERVER_ACTIONS);
export type ServerAction = z.infer<typeof ServerActionSchema>;

export const ApprovalResultSchema = z.object({
  name: z.string(),
  /** the exact launch config, one line per part, as shown to the person approving */
  launch: z.array(z.string()),
  fingerprint: z.string(),
});
export type ApprovalResult = z.infer<typeof ApprovalResultSchema>;

export const ActionResultSchema = z.object({ ok: z.literal(true), approval: ApprovalResultSchema.optional() });
export const ApiErrorSchema = z.object({ error: z.string() });
export const LogsResponseSchema = z.object({ lines: z.array(LogLineSchema) });

/** Server-sent events on /api/events. */
export const ApiEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('status'), status: ServerStatusSchema }),
  z.object({ type: z.literal('removed'), name: z.string() }),
  z.object({ type: z.literal('log'), line: LogLineSchema }),
  z.object({ type: z.literal('config'), report: StatusReportSchema }),
]);
export type ApiEvent = z.infer<typeof ApiEventSchema>;

/** run/serve.json: how the CLI finds the running instance. */
export const InstanceInfoSchema = z.object({ pid: z.number().int(), port: z.number().int(), startedAt: z.number() });
export type InstanceInfo = z.infer<typeof InstanceInfoSchema>;
