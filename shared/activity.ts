import { z } from 'zod';

/**
 * Per-call activity of the bridge (tools/call round trips as editors see them, a cold start
 * included), kept in memory for the last hour: counts, errors and latency percentiles.
 */
export const CallStatsSchema = z.object({
  calls: z.number().int(),
  /** JSON-RPC errors and results with isError */
  errors: z.number().int(),
  /** latency percentiles in ms (±5 %: from a log-scale histogram); null without calls */
  p50Ms: z.number().nullable(),
  p99Ms: z.number().nullable(),
});
export type CallStats = z.infer<typeof CallStatsSchema>;

export const NamedCallStatsSchema = CallStatsSchema.extend({ name: z.string() });
export type NamedCallStats = z.infer<typeof NamedCallStatsSchema>;

/** One minute of the hour: `at` is the minute's start (epoch ms). */
export const ActivityMinuteSchema = CallStatsSchema.extend({ at: z.number() });
export type ActivityMinute = z.infer<typeof ActivityMinuteSchema>;

export const ServerActivitySchema = CallStatsSchema.extend({
  /** start of the window (epoch ms): the figures cover from here to now */
  since: z.number(),
  /** by tool (the server's own tool name), most calls first */
  tools: z.array(NamedCallStatsSchema),
  /** by editor (the name of the bridge token it used), most calls first */
  editors: z.array(NamedCallStatsSchema),
  /** the hour minute by minute, oldest first (60 entries, empty minutes included) */
  minutes: z.array(ActivityMinuteSchema),
});
export type ServerActivity = z.infer<typeof ServerActivitySchema>;
