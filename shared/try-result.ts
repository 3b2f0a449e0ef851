import { z } from 'zod';

/**
 * `switchboard try URL --json`: what the remote server said about itself, as it said it (for scripts;
 * people get the same with hidden characters made visible).
 */
export const TryResultSchema = z.object({
  url: z.string(),
  server: z.object({ name: z.string(), version: z.string() }),
  transport: z.enum(['streamable-http', 'http+sse']),
  /** its tools, as MCP Tool objects (name, description, inputSchema, …) */
  tools: z.array(z.looseObject({ name: z.string() })),
  /** with --call: the tool's answer, an MCP CallToolResult */
  call: z.object({ tool: z.string(), result: z.looseObject({ content: z.array(z.unknown()) }) }).optional(),
});
export type TryResult = z.infer<typeof TryResultSchema>;
