import { z } from 'zod';

/** One line of a server's log: its stderr, or a lifecycle event Switchboard wrote. Secrets already redacted. */
export const LogLineSchema = z.object({
  server: z.string(),
  /** epoch ms */
  ts: z.number(),
  source: z.enum(['stderr', 'lifecycle']),
  level: z.enum(['info', 'warn', 'error']),
  text: z.string(),
});
export type LogLine = z.infer<typeof LogLineSchema>;
