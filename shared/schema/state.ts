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

/**
 * What editor sync remembers about the shape of an editor's file (never its content beyond
 * whitespace), so removing every managed entry gives back the user's exact bytes.
 */
export const EditorFileLayoutSchema = z.object({
  file: z.string(),
  fileWas: z.object({ existed: z.boolean(), text: z.string() }).optional(),
  containerCreated: z.boolean().optional(),
  rootForm: z.enum(['after-open', 'before-close']).optional(),
  serversForm: z.enum(['after-open', 'before-close']).optional(),
  /** a line break Switchboard added at the end of a file that had none (TOML, YAML) */
  eolAdded: z.boolean().optional(),
  ports: z.array(z.number().int()).optional(),
});
export type EditorFileLayout = z.infer<typeof EditorFileLayoutSchema>;

/** Per-editor sync settings. */
export const EditorSettingsSchema = z.object({
  /** false: sync leaves this editor alone (after `unsync`, or a restore) */
  enabled: z.boolean().default(true),
  /** servers this editor does not get */
  exclude: z.array(z.string()).default([]),
  layout: EditorFileLayoutSchema.optional(),
});
export type EditorSettings = z.infer<typeof EditorSettingsSchema>;

export const AppStateSchema = z.object({
  approvals: z.record(z.string(), ApprovalSchema).default({}),
  denials: z.record(z.string(), DenialSchema).default({}),
  bridge: z.object({ port: z.number().int().min(1).max(65535) }).optional(),
  /** editor sync, by editor id */
  editors: z.record(z.string(), EditorSettingsSchema).default({}),
});
export type AppState = z.infer<typeof AppStateSchema>;
