import { z } from 'zod';
import { SandboxSchema, ToolFilterSchema } from './servers.ts';
import { PackagePinSchema } from '../store.ts';

/** Where a server's config came from; shown on the approval so a person knows why it is asking. */
export const ServerSourceSchema = z.enum(['hand-edit', 'cli', 'import', 'install-link', 'ui', 'catalog']);
export type ServerSource = z.infer<typeof ServerSourceSchema>;

/**
 * What Switchboard itself changed in an entry at the person's command after it came from its source:
 * a path added to its sandbox (`switchboard grant`, the window's Grant), a pasted secret moved to the
 * keychain (`switchboard secret move`). The approval says so instead of calling the entry a hand edit.
 */
export const SwitchboardEditSchema = z.enum(['sandbox-grant', 'secret-move']);
export type SwitchboardEdit = z.infer<typeof SwitchboardEditSchema>;

/** The exact launch config an approval covers (references unresolved; never a secret value). */
export const LaunchConfigSchema = z.object({
  transport: z.enum(['stdio', 'http']),
  /** the command's absolute path as found on PATH (what is spawned) */
  command: z.string().optional(),
  /** the real file that is, symlinks resolved, when it differs from `command` */
  realCommand: z.string().optional(),
  args: z.array(z.string()).optional(),
  cwd: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  url: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** servers.json's `sandbox`, as written (absent: the default sandbox) */
  sandbox: SandboxSchema.optional(),
  /**
   * what this machine could not enforce of the sandbox when the config was read ("no-sandbox",
   * "network-unfiltered"); absent when everything is enforced
   */
  sandboxGaps: z.array(z.string()).optional(),
  /**
   * a package-run server (npx, uvx, docker run, an .mcpb bundle): the exact package the approval pins,
   * which the store installs and the server starts from (servers.json keeps what the person wrote)
   */
  package: PackagePinSchema.optional(),
});
export type LaunchConfig = z.infer<typeof LaunchConfigSchema>;

export const ApprovalSchema = z.object({
  fingerprint: z.string(),
  approvedAt: z.number(),
  config: LaunchConfigSchema,
  source: ServerSourceSchema.default('hand-edit'),
  /**
   * sha256 of the tool list pinned for this approval (the first one seen after it, or the last change
   * accepted); the definitions themselves are in pins/<name>.json, which must match it
   */
  toolsHash: z.string().optional(),
  /**
   * sha256 of everything pinned for this approval — instructions, tools, prompts (see
   * trust/tool-pins.ts); set from version 2 of pins/<name>.json on, which must match it. An approval
   * with only toolsHash has a version-1 pin (tools only), upgraded at its next sight.
   */
  pinsHash: z.string().optional(),
});
export type Approval = z.infer<typeof ApprovalSchema>;

export const DenialSchema = z.object({ fingerprint: z.string(), deniedAt: z.number() });
export type Denial = z.infer<typeof DenialSchema>;

/**
 * Where a server's config came from, when another process wrote it (`switchboard add` while serve
 * runs) or it must outlive a restart or an approval (a later grant keeps it). Bound to the config as
 * written (`config`: sha256 of its canonical JSON): edited by hand afterwards, it is a hand edit again;
 * edited by Switchboard at the person's command, the record moves to the new config with `edits`.
 */
export const SourceRecordSchema = z.object({
  source: ServerSourceSchema,
  config: z.string(),
  at: z.number(),
  /** Switchboard's own edits since the source wrote it, oldest first, each once */
  edits: z.array(SwitchboardEditSchema).optional(),
});
export type SourceRecord = z.infer<typeof SourceRecordSchema>;

/** Where an entry came from and what Switchboard changed in it since (none: as the source wrote it). */
export interface ServerOrigin {
  source: ServerSource;
  edits: SwitchboardEdit[];
}

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

/** Where a literal secret stood in a stored text: `length` characters at `offset` stand for keychain `name`. */
export const SecretSpanSchema = z.object({
  name: z.string(),
  offset: z.number().int(),
  length: z.number().int(),
});

/**
 * An entry of the user's that import replaced by a managed one, kept so that unsync can give it back.
 * Its text is the entry's own bytes from the file (`"key": value`), except that each literal secret
 * import moved into the keychain reads `${secret:NAME}` (see `secrets`): state.json never holds one.
 */
export const ImportedEntrySchema = z.object({
  /** its key in the editor's file */
  entry: z.string(),
  /** the managed entry that took its place (server name) */
  server: z.string(),
  text: z.string(),
  secrets: z.array(SecretSpanSchema).default([]),
  /**
   * "replaced": the managed entry stands where it stood (renamed to the server's name if need be);
   * "taken-out": another entry of the same server took the place, so this one was removed.
   */
  place: z.enum(['replaced', 'taken-out']),
  /**
   * For a taken-out entry: its neighbours' keys then (null: the object's brace), the text between it
   * and them, and what was left between them once it was out. Unsync puts it back exactly there when
   * that text is unchanged; otherwise (or without a gap) at the end of the object.
   */
  gap: z
    .object({
      prev: z.string().nullable(),
      next: z.string().nullable(),
      lead: z.string(),
      trail: z.string(),
      left: z.string(),
    })
    .optional(),
});
export type ImportedEntry = z.infer<typeof ImportedEntrySchema>;

/** One import's changes to one editor file, in the order they were made. */
export const ImportRecordSchema = z.object({
  file: z.string(),
  importedAt: z.number(),
  entries: z.array(ImportedEntrySchema),
});
export type ImportRecord = z.infer<typeof ImportRecordSchema>;

/** Secrets unsync left out of entries it gave back (each stands as a placeholder in the file). */
export const HeldBackSecretsSchema = z.object({ file: z.string(), names: z.array(z.string()) });
export type HeldBackSecrets = z.infer<typeof HeldBackSecretsSchema>;

/** Per-editor sync settings. */
export const EditorSettingsSchema = z.object({
  /** false: sync leaves this editor alone (after `unsync`, or a restore) */
  enabled: z.boolean().default(true),
  /** servers this editor does not get */
  exclude: z.array(z.string()).default([]),
  /**
   * The tools this editor gets of each server (by server name), on top of the server's own `tools` in
   * servers.json; a server not named here gives it every tool it offers
   */
  tools: z.record(z.string(), ToolFilterSchema).optional(),
  /**
   * Discovery mode: the editor gets one entry for the aggregate /mcp, which offers it find_tools and
   * call_tool instead of every tool (for clients with a small tool limit)
   */
  discovery: z.boolean().optional(),
  layout: EditorFileLayoutSchema.optional(),
  /** the user's entries import replaced in this editor's file, oldest import first (unsync gives them back) */
  imported: z.array(ImportRecordSchema).optional(),
  /** after an unsync that gave entries back without their secrets: which, to put back on request */
  heldBack: HeldBackSecretsSchema.optional(),
  /**
   * The entries Switchboard wrote into this editor's file, by name: what it owns there. An entry not
   * listed is the user's, whatever it points at (editors/ownership.ts). Absent in homes from before
   * this record, until their next sync.
   */
  entries: z.object({ file: z.string(), names: z.array(z.string()) }).optional(),
  /**
   * when Switchboard last wrote this editor's file (ms since the epoch), for editors that read it only
   * at start (Claude Desktop): one started before this still runs with the previous file
   */
  writtenAt: z.number().optional(),
});
export type EditorSettings = z.infer<typeof EditorSettingsSchema>;

/** App-wide settings a person changes in Settings. */
export const AppSettingsSchema = z.object({
  /** seconds without requests before a server that sets no idleTimeout of its own is stopped; 0: never */
  idleTimeout: z.number().int().min(0).optional(),
  /** false: editors' files change only on an explicit sync (absent: automatic, the default) */
  autoSync: z.boolean().optional(),
  /** false: approved packages are checked for newer releases only when asked (absent: once a day) */
  updateChecks: z.boolean().optional(),
});
export type AppSettings = z.infer<typeof AppSettingsSchema>;

export const AppStateSchema = z.object({
  approvals: z.record(z.string(), ApprovalSchema).default({}),
  denials: z.record(z.string(), DenialSchema).default({}),
  /** by server name; dropped once it is removed (approvals and denials keep it for later edits) */
  sources: z.record(z.string(), SourceRecordSchema).default({}),
  bridge: z.object({ port: z.number().int().min(1).max(65535) }).optional(),
  /** editor sync, by editor id */
  editors: z.record(z.string(), EditorSettingsSchema).default({}),
  settings: AppSettingsSchema.default({}),
  /** OAuth sign-in settings (the sign-ins themselves live in the keychain) */
  signIn: z.object({ clientMetadataUrl: z.string().optional() }).optional(),
  /** notices shown once, and when the person read them (ms since the epoch) */
  notices: z.object({ editorSync: z.number().optional() }).optional(),
  /** the MCP Registry catalog: the registry to ask (absent: the official one) */
  catalog: z.object({ registryUrl: z.string().optional() }).optional(),
  /**
   * servers the person stopped (name → when, ms since the epoch): they stay stopped, across restarts
   * of Switchboard too, until the person starts them (or removes them)
   */
  stopped: z.record(z.string(), z.number()).optional(),
});
export type AppState = z.infer<typeof AppStateSchema>;
