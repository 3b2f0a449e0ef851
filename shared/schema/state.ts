import { z } from 'zod';

/** Where a server's config came from; shown on the approval so a person knows why it is asking. */
export const ServerSourceSchema = z.enum(['hand-edit', 'cli', 'import', 'install-link', 'ui']);

/** The exact launch config an approval covers (references unresolved; never a secret value). */
export const LaunchConfigSchema = z.object({
  transport: z.enum(['stdio', 'http']),
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  cwd: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  url: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
});
export type LaunchConfig = z.infer<typeof LaunchConfigSchema>;

export const ApprovalSchema = z.object({
  fingerprint: z.string(),
  approvedAt: z.number(),
  config: LaunchConfigSchema,
  source: ServerSourceSchema.default('hand-edit'),
  /** sha256 of the tool list seen after approval; a later change is flagged */
  toolsHash: z.string().optional(),
});
export type Approval = z.infer<typeof ApprovalSchema>;

export const DenialSchema = z.object({ fingerprint: z.string(), deniedAt: z.number() });
export type Denial = z.infer<typeof DenialSchema>;

export const AppStateSchema = z.object({
  approvals: z.record(z.string(), ApprovalSchema).default({}),
  denials: z.record(z.string(), DenialSchema).default({}),
  bridge: z.object({ port: z.number().int().min(1).max(65535) }).optional(),
});
export type AppState = z.infer<typeof AppStateSchema>;
