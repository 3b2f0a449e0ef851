import { z } from 'zod';
import { EditorIdSchema } from './editors.ts';
import { ToolFilterSchema } from './schema/servers.ts';

/** Why one of a server's tools is not among those an editor gets. */
export const WithheldSchema = z.enum(['held-new', 'held-changed', 'server-filter', 'editor-selection']);

export const EditorToolSchema = z.object({
  /** the tool's own name on its server (display-safe) */
  name: z.string(),
  /** the name this editor's client sees, when shortened for its name limit */
  exposed: z.string().optional(),
  /** the editor gets it */
  on: z.boolean(),
  why: WithheldSchema.optional(),
  /** estimated tokens its definition costs on every turn (JSON bytes / 4) */
  tokens: z.number().int(),
  /** this editor called it in the last hour */
  called: z.boolean(),
});
export type EditorTool = z.infer<typeof EditorToolSchema>;

export const EditorServerToolsSchema = z.object({
  server: z.string(),
  /** false while the server has not listed its tools (it has not run since its approval) */
  known: z.boolean(),
  /** the editor's own selection for this server, if any */
  selection: ToolFilterSchema.optional(),
  tools: z.array(EditorToolSchema),
});
export type EditorServerTools = z.infer<typeof EditorServerToolsSchema>;

const CostSchema = z.object({ tools: z.number().int(), tokens: z.number().int() });
export type ToolCost = z.infer<typeof CostSchema>;

export const ToolWarningSchema = z.object({
  /** over: a limit is crossed; near: it soon will be; info: said for the record */
  level: z.enum(['over', 'near', 'info']),
  message: z.string(),
});
export type ToolWarning = z.infer<typeof ToolWarningSchema>;

/** What one editor gets of tools, what that costs, and how it stands against its client's limits. */
export const EditorToolsViewSchema = z.object({
  editor: EditorIdSchema,
  label: z.string(),
  /** discovery mode: it gets find_tools and call_tool on /mcp instead of every tool */
  discovery: z.boolean(),
  /** what it gets now */
  current: CostSchema,
  /** what each feature makes of it: every tool of its servers (held-back ones aside), then with the servers' filters, then with its own selection too, and in discovery mode */
  costs: z.object({
    everything: CostSchema,
    serverFilters: CostSchema,
    selection: CostSchema,
    discovery: CostSchema,
  }),
  limits: z.object({
    tools: z
      .object({ count: z.number().int(), hard: z.boolean(), what: z.string(), source: z.string() })
      .optional(),
    names: z.object({ what: z.string(), source: z.string() }).optional(),
  }),
  warnings: z.array(ToolWarningSchema),
  /** tools whose names are shortened for its client's name limit */
  shortened: z.number().int(),
  /** distinct tools it called in the last hour, and since when that counts */
  calledLastHour: z.number().int(),
  servers: z.array(EditorServerToolsSchema),
});
export type EditorToolsView = z.infer<typeof EditorToolsViewSchema>;

/**
 * A change to an editor's tools: one tool switched, a whole selection for a server (null: none, it
 * gets all), or discovery mode on or off.
 */
export const EditorToolsChangeSchema = z.union([
  z.object({ server: z.string().min(1), tool: z.string().min(1), on: z.boolean() }).strict(),
  z.object({ server: z.string().min(1), selection: ToolFilterSchema.nullable() }).strict(),
  z.object({ discovery: z.boolean() }).strict(),
]);
export type EditorToolsChange = z.infer<typeof EditorToolsChangeSchema>;

/** A change to a server's own filter in servers.json: one tool switched, or the whole filter. */
export const ServerToolsChangeSchema = z.union([
  z.object({ tool: z.string().min(1), on: z.boolean() }).strict(),
  z.object({ filter: ToolFilterSchema.nullable() }).strict(),
]);
export type ServerToolsChange = z.infer<typeof ServerToolsChangeSchema>;

/** The answer to a ServerToolsChange: the server's filter as now written (null: none). */
export const ServerToolsResultSchema = z.object({ filter: ToolFilterSchema.nullable() });
