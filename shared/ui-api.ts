import { z } from 'zod';
import {
  PackageReviewSchema,
  type BundleAdded,
  type BundleView,
  type StorePruneResult,
  type StoreUsage,
  type UpdatesReport,
} from './store.ts';
import { ServerActivitySchema, type ServerActivity } from './activity.ts';
import {
  ApiEventSchema,
  ApprovalOriginSchema,
  TokenInfoSchema,
  ToolChangeSchema,
  type ApiEvent,
  type ApprovalPreview,
  type ServerAction,
  type TokenInfo,
  type ToolChange,
} from './api.ts';
import type { CatalogUiApi } from './catalog.ts';
import { EditorFileReportSchema } from './editor-report.ts';
import { EditorIdSchema, type EditorId } from './editors.ts';
import type { LogLine } from './logs.ts';
import { MAX_IDLE_TIMEOUT_S, ToolFilterSchema } from './schema/servers.ts';
import type { EditorToolsChange, EditorToolsView, ServerToolsChange } from './editor-tools.ts';
import { LaunchConfigSchema, ServerSourceSchema, SwitchboardEditSchema } from './schema/state.ts';
import type { FieldIssue } from './server-validation.ts';
import type { SignInInfo, SignInRequest, SignInStart } from './sign-in.ts';
import type { StatusReport } from './status.ts';
import type { ProjectsUiApi } from './projects-api.ts';

/**
 * The ONE interface the UI's views use (queries, commands, subscriptions). Two implementations:
 * the control API + SSE for headless mode (renderer/src/api/http.ts) and, in the desktop app,
 * Electron IPC through the preload's contextBridge. Views never know which one they talk to.
 *
 * Schemas here describe what crosses the wire; both implementations validate with them.
 */

// ---- routes the UI adds to the control API (electron/core/bridge/ui-routes.ts) -------------------

const seg = (s: string) => encodeURIComponent(s);

export const UiRoutes = {
  /** POST {name, config} or {servers: [{name, config}…]}: add servers to servers.json */
  servers: '/api/servers',
  /** DELETE: remove a server from servers.json */
  server: (name: string) => `/api/servers/${seg(name)}`,
  /** GET: the entry as written; PUT {config}: replace it (comment-preserving) */
  serverConfig: (name: string) => `/api/servers/${seg(name)}/config`,
  /** POST {enabled} */
  serverEnabled: (name: string) => `/api/servers/${seg(name)}/enabled`,
  /**
   * POST SandboxGrantRequest: lets the server's sandbox read (or write) one more path, as `switchboard
   * grant` does (servers.json's sandbox edited; the server then waits for approval of the change)
   */
  serverGrant: (name: string) => `/api/servers/${seg(name)}/grant`,
  /**
   * GET: the tools the server exposes (while running, or as its last run listed them); POST
   * ServerToolsChange: turn one on or off, or set its whole "tools" filter in servers.json
   */
  serverTools: (name: string) => `/api/servers/${seg(name)}/tools`,
  /** GET: what an editor gets of tools (EditorToolsView); POST EditorToolsChange: change it */
  editorTools: (editor: string) => `/api/editors/${seg(editor)}/tools`,
  /** GET: the server's calls of the last hour (ActivityResponse) */
  serverActivity: (name: string) => `/api/servers/${seg(name)}/activity`,
  /** GET: every server whose tools changed since they were pinned, with the change (ToolChangesResponse) */
  toolChanges: '/api/tool-changes',
  /** GET: every server waiting for a trust decision, with what approving it would allow */
  approvals: '/api/approvals',
  /** GET: secret names and who uses them (never values) */
  secrets: '/api/secrets',
  /** PUT {value}: store or replace (write-only); DELETE: remove */
  secret: (name: string) => `/api/secrets/${seg(name)}`,
  /**
   * POST {value}: whether the keychain holds this name, with this value or another (SecretHeld; the
   * value never comes back). The CLI names a new secret by it while serve holds the keychain.
   */
  secretHeld: (name: string) => `/api/secrets/${seg(name)}/held`,
  /** POST {server, key, secretName?}: move a literal from servers.json into the keychain */
  secretMove: '/api/secrets/move',
  /** GET / PUT {port} */
  settings: '/api/settings',
  /** POST: a fresh one-time sign-in link for the browser UI (control token only) */
  loginLink: '/api/ui/login-link',
  /**
   * POST {code} (no credential: the code is one): the sign-in page trades its one-time code for this
   * browser's session secret (BrowserSession). DELETE: signs this browser out.
   */
  session: '/api/ui/session',
  /** GET: browsers signed in (BrowserSessions); DELETE: signs every browser out */
  sessions: '/api/ui/sessions',
  /** GET: editors and their sync state */
  editors: '/api/editors',
  /** POST {editor?}: sync now (all enabled editors, or one) */
  editorsSync: '/api/editors/sync',
  /** POST {backup}: restore an editor file from a backup */
  editorRestore: (editor: string) => `/api/editors/${seg(editor)}/restore`,
  /** POST {restoreSecrets}: take Switchboard's entries out, give back the user's, turn sync off */
  editorUnsync: (editor: string) => `/api/editors/${seg(editor)}/unsync`,
  /** POST: quit and reopen an editor that reads its file only at start (Claude Desktop), if it runs */
  editorRestart: (editor: string) => `/api/editors/${seg(editor)}/restart`,
  /** POST {server, excluded}: keep a server out of one editor, or give it back (`sync --exclude/--include`) */
  editorExclude: (editor: string) => `/api/editors/${seg(editor)}/exclude`,
} as const;

/**
 * The browser signs in at /login?code=… (one-time code printed by `switchboard serve`): the UI's page,
 * which trades the code at UiRoutes.session.
 */
export const LOGIN_PATH = '/login';

// ---- payloads -----------------------------------------------------------------------------------

export const FieldIssueSchema = z.object({
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
});

/** Error answers: words a person can act on, and for config edits the issues at their fields. */
export const UiErrorBodySchema = z.object({
  error: z.string(),
  issues: z.array(FieldIssueSchema).optional(),
});

export const SecretFindingSchema = z.object({
  field: z.enum(['env', 'headers', 'args', 'url']),
  /** what the fix (secret move) takes: the env variable, the header, `args[N]` or `url` */
  key: z.string(),
  reason: z.string(),
});
export type SecretFinding = z.infer<typeof SecretFindingSchema>;

/**
 * Stands in for a literal secret found in servers.json when the UI reads a server's entry: the UI
 * never receives the value. Saving the entry with this text unchanged keeps the file's value.
 */
export const HIDDEN_SECRET = '•••••••• (hidden: store it in the keychain)';

export const ServerConfigViewSchema = z.object({
  name: z.string(),
  /**
   * the entry as written in servers.json (references unresolved, no defaults applied), except that
   * literal secrets read HIDDEN_SECRET
   */
  config: z.unknown(),
  /** literal secrets in env/headers, each with the one-click fix (secret move) */
  literalSecrets: z.array(SecretFindingSchema),
  /** the servers file, for the UI to say where edits land */
  file: z.string(),
});
export type ServerConfigView = z.infer<typeof ServerConfigViewSchema>;

export const ToolInfoSchema = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  /** names of the tool's input parameters, required ones first */
  params: z.array(z.object({ name: z.string(), required: z.boolean(), type: z.string().optional() })),
  /** held back from editors: new or changed since the tool list was pinned (see Approvals) */
  held: z.enum(['new', 'changed']).optional(),
  /** turned off for every editor by the server's "tools" filter in servers.json */
  off: z.boolean().optional(),
  /** estimated tokens its definition costs an editor on every turn (JSON bytes / 4) */
  tokens: z.number().int().optional(),
});
export type ToolInfo = z.infer<typeof ToolInfoSchema>;
export const ToolsResponseSchema = z.object({
  running: z.boolean(),
  /** true when the tools come from the server's last run (it is idle or starting), not a live list */
  remembered: z.boolean().default(false),
  tools: z.array(ToolInfoSchema),
  /** the server's "tools" filter in servers.json, as written (null: none, every tool offered) */
  filter: ToolFilterSchema.nullable().default(null),
});
export type ToolsResponse = z.infer<typeof ToolsResponseSchema>;

export const ApprovalViewSchema = z.object({
  name: z.string(),
  state: z.enum(['pending-approval', 'denied']),
  /** where the config came from (hand edit, ui, cli, import, install link) */
  source: ServerSourceSchema,
  /** what Switchboard changed in it since, at the person's command (a grant, a moved secret) */
  edits: z.array(SwitchboardEditSchema).default([]),
  fingerprint: z.string(),
  /**
   * the exact launch config, one line per part, untruncated (as `switchboard approve` prints it),
   * with control, bidi, line-break and invisible characters escaped (shared/display-text.ts)
   */
  lines: z.array(z.string()),
  /** each keychain secret and env variable it passes on and where to, in plain words */
  references: z.array(z.string()),
  /** what a local server may read, write and reach in its OS sandbox, in plain words ([] for remote) */
  access: z.array(z.string()).default([]),
  /** what would stop it from starting once approved ("WILL NOT START: …"): a missing program or secret */
  willNotStart: z.array(z.string()).default([]),
  /** data, not for display: show `lines` */
  launch: LaunchConfigSchema,
  /** env (stdio) or header (remote) names, escaped for display like `lines` */
  envKeys: z.array(z.string()),
  /** a package-run server: the exact package it would install and run from the store */
  package: PackageReviewSchema.nullable().default(null),
  /** a package run the store cannot pin, and why (it runs as written) */
  packageNote: z.string().nullable().default(null),
  /** its package could not be resolved (offline, removed from its registry): it cannot be approved now */
  packageError: z.string().nullable().default(null),
  /**
   * its package is being resolved at its registry (the list does not wait for it): `package` is null
   * and `fingerprint` approves nothing until an `approval` event says the resolution is in
   */
  resolving: z.boolean().default(false),
  /** the last approved config of this server, to diff against; null if it never was approved */
  approved: z
    .object({ lines: z.array(z.string()), approvedAt: z.number(), source: ServerSourceSchema })
    .nullable(),
  /** a project's server: the project and the file that said it, with that file's sha256 (escaped) */
  origin: ApprovalOriginSchema.optional(),
});
export type ApprovalView = z.infer<typeof ApprovalViewSchema>;
export const ApprovalsResponseSchema = z.object({ approvals: z.array(ApprovalViewSchema) });

export const SecretUseSchema = z.object({
  server: z.string(),
  field: z.enum(['env', 'headers', 'args', 'url']),
  key: z.string(),
});
export const SecretInfoSchema = z.object({
  name: z.string(),
  /** false: a server references it but the keychain has no secret of that name */
  stored: z.boolean(),
  usedBy: z.array(SecretUseSchema),
});
export type SecretInfo = z.infer<typeof SecretInfoSchema>;
export const SecretsResponseSchema = z.object({
  secrets: z.array(SecretInfoSchema),
  /** set when the keychain could not be read (locked, no Secret Service): what to do about it */
  keychainError: z.string().nullable(),
});
export type SecretsResponse = z.infer<typeof SecretsResponseSchema>;
export const SecretSetResultSchema = z.object({ ok: z.literal(true), restarted: z.array(z.string()) });
export type SecretSetResult = z.infer<typeof SecretSetResultSchema>;
export const SecretMoveResultSchema = z.object({ ok: z.literal(true), name: z.string() });
/** Whether a keychain name is free, holds a given value already, or holds another one. */
export const SecretHeldSchema = z.enum(['none', 'same', 'other']);
export type SecretHeld = z.infer<typeof SecretHeldSchema>;
export const SecretHeldResultSchema = z.object({ held: SecretHeldSchema });
export const SecretHeldRequestSchema = z.object({ value: z.string() }).strict();

export const ActivityResponseSchema = z.object({
  /** null: no calls in the last hour */
  activity: ServerActivitySchema.nullable(),
});
export const ToolChangesResponseSchema = z.object({ changes: z.array(ToolChangeSchema) });

export const SettingsSchema = z.object({
  /** the port the bridge listens on now */
  port: z.number().int(),
  /** the port saved in state.json for the next start (null: the default) */
  configuredPort: z.number().int().nullable(),
  defaultPort: z.number().int(),
  home: z.string(),
  serversFile: z.string(),
  platform: z.string(),
  /** null where it does not apply (headless mode) */
  startAtLogin: z.boolean().nullable(),
  /** seconds without requests before a server with no idleTimeout of its own stops (0: never) */
  idleTimeout: z.number().int(),
  /** editors' files are written automatically when servers change (false: only on Sync) */
  autoSync: z.boolean(),
  /**
   * show the first-run notice: automatic sync is on and the person has not yet read which editors it
   * writes (and that one switch turns it off)
   */
  editorSyncNotice: z.boolean(),
  /** the value saved in state.json (null: the built-in default, defaultIdleTimeout) */
  configuredIdleTimeout: z.number().int().nullable(),
  defaultIdleTimeout: z.number().int(),
  /** Switchboard's Client ID Metadata Document URL for OAuth sign-ins (null: dynamic registration) */
  clientMetadataUrl: z.string().nullable(),
  /** approved packages are checked for newer releases once a day (false: only when asked) */
  updateChecks: z.boolean().default(true),
});
export type Settings = z.infer<typeof SettingsSchema>;
export const SettingsPatchSchema = z
  .object({
    port: z.number().int().min(1).max(65535).nullable().optional(),
    /** null: back to the built-in default */
    idleTimeout: z
      .number()
      .int('the idle timeout is a whole number of seconds')
      .min(0, 'the idle timeout is 0 (always running) or more seconds')
      .max(MAX_IDLE_TIMEOUT_S, `the idle timeout is at most ${MAX_IDLE_TIMEOUT_S} seconds (a week)`)
      .nullable()
      .optional(),
    clientMetadataUrl: z.string().max(2048).nullable().optional(),
    autoSync: z.boolean().optional(),
    /** the person read the first-run notice of automatic editor sync (it is not shown again) */
    editorSyncNoticeRead: z.literal(true).optional(),
    /** check approved packages for newer releases once a day */
    updateChecks: z.boolean().optional(),
  })
  .strict();
export type SettingsPatch = z.infer<typeof SettingsPatchSchema>;

export const LoginLinkSchema = z.object({ url: z.string(), expiresAt: z.number() });

/** POST /api/ui/session: the code of a sign-in link. */
export const SignInCodeRequestSchema = z.object({ code: z.string().min(1).max(200) }).strict();
/** A browser's session: the secret it sends as `Authorization: Bearer …`, and when it stops working. */
export const BrowserSessionSchema = z.object({ session: z.string(), expiresAt: z.number() });
export type BrowserSession = z.infer<typeof BrowserSessionSchema>;
/** GET /api/ui/sessions: how many browsers are signed in, and until when the one asking is (if one). */
export const BrowserSessionsSchema = z.object({
  count: z.number(),
  current: z.object({ expiresAt: z.number() }).nullable(),
});
export type BrowserSessions = z.infer<typeof BrowserSessionsSchema>;

const NewServerSchema = z.object({ name: z.string(), config: z.unknown() }).strict();
/**
 * One server (the form) or several at once (JSON pasted from a README), added all or none. Issues of
 * a batch have paths that start with the server's name (`["github", "args"]`; `["github"]`: the name).
 */
export const AddServerRequestSchema = z.union([
  NewServerSchema,
  z.object({ servers: z.array(NewServerSchema).min(1).max(100) }).strict(),
]);
/** What was added, and each literal secret that went to the keychain instead of servers.json. */
export const AddedServerSchema = z.object({
  name: z.string(),
  /** `key`: where it was (env variable, header, `args[N]`, `url`); `name`: its keychain name */
  secrets: z.array(z.object({ key: z.string(), name: z.string() })),
});
export type AddedServer = z.infer<typeof AddedServerSchema>;
export const AddServersResultSchema = z.object({ ok: z.literal(true), added: z.array(AddedServerSchema) });
export type AddServersResult = z.infer<typeof AddServersResultSchema>;
export const SaveServerRequestSchema = z.object({ config: z.unknown() });
export const EnabledRequestSchema = z.object({ enabled: z.boolean() }).strict();
export const SandboxGrantRequestSchema = z
  .object({ path: z.string().min(1), access: z.enum(['read', 'write']) })
  .strict();
export const SecretValueRequestSchema = z
  .object({
    value: z.string().refine((v) => v.trim() !== '', 'a secret cannot be empty or only spaces'),
  })
  .strict();
export const SecretMoveRequestSchema = z
  .object({ server: z.string(), key: z.string(), secretName: z.string().optional() })
  .strict();
export const OkSchema = z.object({ ok: z.literal(true) });

// ---- editors (served by the editor-sync API) ------------------------------------------------------

export const EDITOR_SYNC_STATES = [
  'in-sync',
  'drift',
  'error',
  'not-installed',
  'not-synced',
  'disabled',
] as const;
export const EditorSyncStateSchema = z.enum(EDITOR_SYNC_STATES);
export type EditorSyncState = z.infer<typeof EditorSyncStateSchema>;

export const EditorBackupSchema = z.object({ id: z.string(), createdAt: z.number(), file: z.string() });
/** What unsync would do to an editor's file, said before it does it. */
export const EditorUnsyncPreviewSchema = z.object({
  /** Switchboard's entries it takes out */
  removes: z.array(z.string()),
  /** the user's own entries (that import replaced) it gives back, and the secrets import moved out of each */
  restores: z.array(z.object({ entry: z.string(), secrets: z.array(z.string()) })),
  /** secrets an earlier unsync held back (their places in the file say so); put back on request */
  heldBack: z.array(z.string()),
});
export type EditorUnsyncPreview = z.infer<typeof EditorUnsyncPreviewSchema>;
export const EditorViewSchema = z.object({
  id: EditorIdSchema,
  /** "Claude Desktop" */
  label: z.string(),
  file: z.string(),
  state: EditorSyncStateSchema,
  /** what went wrong (a file that does not parse, a name clash), in words */
  problem: z.string().nullable(),
  /** the servers this editor gets */
  servers: z.array(z.string()),
  /** servers kept out of this editor in Switchboard's settings (Editors view, `sync --exclude`) */
  excluded: z.array(z.string()).default([]),
  /** unified diff a sync would make now; empty when in sync */
  diff: z.string(),
  backups: z.array(EditorBackupSchema),
  /**
   * Claude Desktop reads its file only at start: true while it runs since before Switchboard last
   * wrote the file (it clears by itself once it is restarted, or quit)
   */
  restartRequired: z.boolean(),
  /** Switchboard can restart it here (POST UiRoutes.editorRestart): restart pending, on an OS it knows how */
  canRestart: z.boolean().default(false),
  /** a sync since Switchboard started made the file owner-only (it holds a bridge token): said here */
  madePrivate: z.boolean().default(false),
  /** what unsync would do now (null: the file cannot be read) */
  unsync: EditorUnsyncPreviewSchema.nullable().default(null),
  /** the file holds the bridge token; otherwise the editor reads it when it connects (header helper, file reference, relay) */
  tokenInFile: z.boolean(),
  /** what this editor needs before it uses the servers it gets (Gemini CLI: a trusted folder) */
  notice: z.string().nullable().default(null),
});
export type EditorView = z.infer<typeof EditorViewSchema>;
export const EditorsResponseSchema = z.object({
  /** false while the editor-sync API is not part of this build: the view says so */
  available: z.boolean(),
  editors: z.array(EditorViewSchema),
});
export type EditorsResponse = z.infer<typeof EditorsResponseSchema>;
export const EditorsSyncResultSchema = z.object({
  ok: z.literal(true),
  changed: z.array(EditorIdSchema),
  problems: z.array(z.object({ editor: EditorIdSchema, message: z.string() })),
  /** things a person should know once (a file made owner-only) */
  notices: z.array(z.object({ editor: EditorIdSchema, message: z.string() })).default([]),
  /** every editor's report, as `sync` prints it (shared/editor-report.ts) */
  reports: z.array(EditorFileReportSchema).default([]),
});
export type EditorsSyncResult = z.infer<typeof EditorsSyncResultSchema>;
export const EditorsSyncRequestSchema = z
  .object({
    editor: EditorIdSchema.optional(),
    /** with `editor`: servers that editor stops getting, or gets again (`sync --exclude/--include`) */
    exclude: z.array(z.string()).optional(),
    include: z.array(z.string()).optional(),
  })
  .strict();
export const EditorRestoreRequestSchema = z.object({ backup: z.string() }).strict();
/** excluded: true keeps the server out of this editor (its entry goes, its token cannot reach it) */
export const EditorExcludeRequestSchema = z.object({ server: z.string(), excluded: z.boolean() }).strict();
/** restoreSecrets: put the secrets import moved into the keychain back into the entries (plain text) */
export const EditorUnsyncRequestSchema = z.object({ restoreSecrets: z.boolean() }).strict();
export const EditorUnsyncResultSchema = z.object({
  ok: z.literal(true),
  editor: EditorIdSchema,
  /** false: nothing needed writing */
  written: z.boolean(),
  removed: z.array(z.string()),
  restored: z.array(z.string()),
  secretsPutBack: z.array(z.string()),
  secretsHeldBack: z.array(z.string()),
  /** what went wrong, or an entry that could not be given back, in words */
  problem: z.string().nullable(),
});
export type EditorUnsyncResult = z.infer<typeof EditorUnsyncResultSchema>;
/** POST /api/editors/<id>/restart; `switchboard editors restart ID --json` prints the same. */
export const EditorRestartResultSchema = z.object({
  ok: z.literal(true),
  editor: EditorIdSchema,
  /** restarted; or not-running: nothing was started (it reads the file at its next start) */
  outcome: z.enum(['restarted', 'not-running']),
  /** the new processes, where they could be seen starting */
  pids: z.array(z.number().int()),
  /** what happened, in words */
  message: z.string(),
});
export type EditorRestartResult = z.infer<typeof EditorRestartResultSchema>;

// ---- the interface --------------------------------------------------------------------------------

export type Unsubscribe = () => void;

/** How the live subscription is doing, for a small indicator and a "reconnecting" notice. */
/**
 * How the UI reaches Switchboard: `reconnecting` while the live events stream is re-opened (the API
 * answers); `offline` when Switchboard itself does not answer at all (`serve` stopped).
 */
export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'offline' | 'signed-out';

export interface UiApi extends ProjectsUiApi {
  /** which transport this is; for diagnostics only, never for behaviour */
  readonly transport: 'http' | 'ipc';

  // queries
  status(): Promise<StatusReport>;
  serverConfig(name: string): Promise<ServerConfigView>;
  tools(name: string): Promise<ToolsResponse>;
  /** turns one of a server's tools on or off for every editor, in servers.json */
  changeServerTools(name: string, change: ServerToolsChange): Promise<void>;
  /** what an editor gets of tools, its cost and its client's limits */
  editorTools(editor: EditorId): Promise<EditorToolsView>;
  changeEditorTools(editor: EditorId, change: EditorToolsChange): Promise<EditorToolsView>;
  /** the server's calls of the last hour (null: none) */
  activity(name: string): Promise<ServerActivity | null>;
  /** servers whose tools changed since they were pinned, each with what changed */
  toolChanges(): Promise<ToolChange[]>;
  logs(name: string, limit?: number): Promise<LogLine[]>;
  approvals(): Promise<ApprovalView[]>;
  /** the package store's disk use, per install */
  storeUsage(): Promise<StoreUsage>;
  /** what the last check for updates found (asks no registry) */
  updates(): Promise<UpdatesReport>;
  /**
   * what approving a waiting server allows, resolving its package at its registry first if need be
   * (the approvals list does not wait for that; this does)
   */
  approvalPreview(name: string): Promise<ApprovalPreview>;
  /**
   * an update of an approved package-run server: its package resolved again now (the newest release
   * its servers.json entry allows), with what changed since the approved version; approve() with its
   * fingerprint approves exactly that, and is refused (409) if the resolution changed meanwhile
   */
  reviewUpdate(name: string): Promise<ApprovalPreview>;
  secrets(): Promise<SecretsResponse>;
  settings(): Promise<Settings>;
  tokens(): Promise<TokenInfo[]>;
  editors(): Promise<EditorsResponse>;
  /** a remote server's sign-in (never its tokens) */
  signInInfo(name: string): Promise<SignInInfo>;

  // commands (each rejects with a UiApiError)
  /** start, stop, restart or deny (approving needs what was shown: approve()) */
  serverAction(name: string, action: Exclude<ServerAction, 'approve'>): Promise<void>;
  /**
   * approves the server's config if it still has the fingerprint that was shown; rejects with status
   * 409 when it changed meanwhile (review it again)
   */
  approve(name: string, fingerprint: string): Promise<void>;
  /**
   * accepts a change to a server's tools if it is still the one shown (`change`); rejects with status
   * 409 when the tools changed again meanwhile
   */
  acceptTools(name: string, change: string): Promise<void>;
  setEnabled(name: string, enabled: boolean): Promise<void>;
  /** the one-step grant status offers for what its sandbox refused (it then waits for approval) */
  grantSandbox(name: string, grant: { path: string; access: 'read' | 'write' }): Promise<void>;
  /** replaces the server's entry in servers.json (comment-preserving) */
  saveServer(name: string, config: unknown): Promise<void>;
  /** adds a server pending approval; a literal secret in it goes to the keychain (said in the answer) */
  addServer(name: string, config: unknown): Promise<AddedServer>;
  /** adds several servers at once, all or none (each pending approval) */
  addServers(servers: { name: string; config: unknown }[]): Promise<AddedServer[]>;
  removeServer(name: string): Promise<void>;
  /** removes store installs no server uses */
  pruneStore(): Promise<StorePruneResult>;
  /** checks every approved package at its registry now (nothing is updated) */
  checkUpdates(): Promise<UpdatesReport>;
  /** unpacks and checks an MCP bundle (.mcpb, its bytes in base64) into the store; nothing is added yet */
  uploadBundle(fileName: string, base64: string): Promise<BundleView>;
  /** adds an uploaded bundle's server, pending approval; sensitive values go to the keychain */
  addBundle(id: string, name: string, values: Record<string, string>): Promise<BundleAdded>;
  setSecret(name: string, value: string): Promise<SecretSetResult>;
  deleteSecret(name: string): Promise<void>;
  moveSecret(server: string, key: string, secretName?: string): Promise<string>;
  saveSettings(patch: SettingsPatch): Promise<Settings>;
  /** issues a new token for an editor; the old one stops working (the value is never shown) */
  rotateToken(name: string): Promise<void>;
  revokeToken(name: string): Promise<void>;
  syncEditors(editor?: EditorId): Promise<EditorsSyncResult>;
  restoreEditorBackup(editor: EditorId, backup: string): Promise<void>;
  /** takes Switchboard's entries out of one editor's file and gives back the user's; sync turns off */
  unsyncEditor(editor: EditorId, restoreSecrets: boolean): Promise<EditorUnsyncResult>;
  /** quits and reopens an editor that reads its file only at start (Claude Desktop), if it is running */
  restartEditor(editor: EditorId): Promise<EditorRestartResult>;
  /** keeps a server out of one editor (excluded) or gives it back; the editor's file follows at once */
  setEditorExcluded(editor: EditorId, server: string, excluded: boolean): Promise<EditorsSyncResult>;
  /** starts a sign-in to a remote server; the person then finishes it on the page it names */
  signIn(name: string, request?: SignInRequest): Promise<SignInStart>;
  /** forgets a remote server's sign-in */
  signOut(name: string): Promise<void>;
  /** opens a web page in the person's browser (a new tab, or the system browser in the desktop app) */
  openExternal(url: string): Promise<void>;
  /** desktop app only (rejects in headless mode) */
  setStartAtLogin(enabled: boolean): Promise<void>;
  /** browsers signed in to the UI of `switchboard serve` (this one included, when it is one) */
  browserSessions(): Promise<BrowserSessions>;
  /** signs this browser out (`this`), or every browser (`all`) */
  signOutBrowsers(which: 'this' | 'all'): Promise<void>;

  /** the MCP Registry catalog: search, details, install (shared/catalog.ts) */
  readonly catalog: CatalogUiApi;

  // subscriptions (live updates; never polling)
  subscribe(listener: (event: ApiEvent) => void): Unsubscribe;
  onConnection(listener: (state: ConnectionState) => void): Unsubscribe;
}

/** A command or query that failed: the message is for a person; `issues` point at fields. */
export class UiApiError extends Error {
  readonly status: number;
  readonly issues: FieldIssue[];
  constructor(message: string, status: number, issues: FieldIssue[] = []) {
    super(message);
    this.name = 'UiApiError';
    this.status = status;
    this.issues = issues;
  }
}

export { ApiEventSchema, TokenInfoSchema };
export type { ApiEvent, TokenInfo };
