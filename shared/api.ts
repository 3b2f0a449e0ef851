import { z } from 'zod';
import { TOKEN_NAME_PATTERN } from './bridge.ts';
import { LogLineSchema } from './logs.ts';
import { ServerSourceSchema, SwitchboardEditSchema } from './schema/state.ts';
import { SignInOutcomeSchema } from './sign-in.ts';
import { PackageReviewSchema } from './store.ts';
import { ServerStateSchema, ServerStatusSchema, StatusReportSchema } from './status.ts';

export { DEFAULT_BRIDGE_PORT } from './bridge.ts';

/** Control API routes (served by the bridge under /api, used by the CLI and the UI). */
export const ApiRoutes = {
  status: '/api/status',
  events: '/api/events',
  serverAction: (name: string, action: ServerAction) => `/api/servers/${encodeURIComponent(name)}/${action}`,
  logs: (name: string) => `/api/servers/${encodeURIComponent(name)}/logs`,
  /**
   * GET: what approving the server would allow now, with the fingerprint to approve it by (a package
   * run is resolved at its registry first); `?fresh=1`: resolved again for an update
   */
  approval: (name: string) => `/api/servers/${encodeURIComponent(name)}/approval`,
  /** GET: the server's tools as pinned, and the change to them that waits for a decision (ToolReview) */
  toolReview: (name: string) => `/api/servers/${encodeURIComponent(name)}/tool-review`,
  /** POST {change}: accepts the change to the server's tools that was shown (its hash) */
  acceptTools: (name: string) => `/api/servers/${encodeURIComponent(name)}/accept-tools`,
  /** GET: the sign-in (never tokens); POST SignInRequest: start one; DELETE: sign out */
  signIn: (name: string) => `/api/servers/${encodeURIComponent(name)}/sign-in`,
  tokens: '/api/tokens',
  /** GET: the package store's disk use (StoreUsage) */
  store: '/api/store',
  /** POST: removes installs and lockfiles no approval uses (StorePruneResult) */
  storePrune: '/api/store/prune',
  /** GET: approved package-run servers with newer releases, checked at their registries (OutdatedReport) */
  outdated: '/api/store/outdated',
  /** GET: what the last check for updates found, without asking any registry (UpdatesReport) */
  updates: '/api/store/updates',
  /** POST: checks every approved package at its registry now (UpdatesReport) */
  updatesCheck: '/api/store/updates/check',
  token: (name: string) => `/api/tokens/${encodeURIComponent(name)}`,
} as const;

export const SERVER_ACTIONS = ['approve', 'deny', 'start', 'stop', 'restart'] as const;
export const ServerActionSchema = z.enum(SERVER_ACTIONS);
export type ServerAction = z.infer<typeof ServerActionSchema>;

/** sha256 of a launch config, hex: what an approval is bound to. */
export const FingerprintSchema = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'a fingerprint is the 64 hex digits shown with the configuration');

/**
 * Where a project's server came from (the repository's words: file paths and requests are shown
 * with their hidden characters written out), and what its file asks for that has no value yet.
 */
export const ApprovalOriginSchema = z.object({
  project: z.string(),
  dir: z.string(),
  file: z.string(),
  digest: z.string(),
  /**
   * each request of its file (`${GITHUB_TOKEN}`, as written: data, not for display) with no value
   * given yet, and the keychain secret of its own the value is kept as: it cannot start without it
   */
  needs: z.array(z.object({ request: z.string(), secret: z.string() })).default([]),
});
export type ApprovalOrigin = z.infer<typeof ApprovalOriginSchema>;

/**
 * What a person deciding an approval is shown, in the CLI (ApprovalPreview) and the UI (ApprovalView,
 * ui-api.ts) alike: the fields both have.
 */
export const APPROVAL_SHOWN = {
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
  /** a package-run server: the exact package it installs and runs from the store, and what changed */
  package: PackageReviewSchema.nullable().default(null),
  /** a package run the store cannot pin, and why (it runs as written) */
  packageNote: z.string().nullable().default(null),
  /** what would stop it from starting once approved ("WILL NOT START: …"): a missing program or secret */
  willNotStart: z.array(z.string()).default([]),
  /** a project's server: the project, and the file that said it with that file's sha256 as read */
  origin: ApprovalOriginSchema.optional(),
};

/**
 * What approving a server would allow, as shown to the person deciding: the approval then carries
 * this fingerprint and fails if the config changed in between (POST …/approve {fingerprint}).
 */
export const ApprovalPreviewSchema = z.object({
  name: z.string(),
  state: ServerStateSchema,
  transport: z.enum(['stdio', 'http']),
  ...APPROVAL_SHOWN,
});
export type ApprovalPreview = z.infer<typeof ApprovalPreviewSchema>;

/** POST /api/servers/<name>/approve: the fingerprint of the configuration that was shown. */
export const ApproveRequestSchema = z.object({ fingerprint: FingerprintSchema }).strict();

/** `switchboard approve NAME --json`: what was shown, and whether exactly that was approved. */
export const ApproveCliResultSchema = z.object({
  approved: z.boolean(),
  preview: ApprovalPreviewSchema,
});
export type ApproveCliResult = z.infer<typeof ApproveCliResultSchema>;

export const ApprovalResultSchema = z.object({
  name: z.string(),
  /** the exact launch config, one line per part, as shown to the person approving */
  launch: z.array(z.string()),
  fingerprint: z.string(),
});
export type ApprovalResult = z.infer<typeof ApprovalResultSchema>;

/** sha256 of a server's tool list, hex: what accepting a change to its tools is bound to. */
export const ToolChangeIdSchema = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'a change id is the 64 hex digits shown with the change to the tools');

/** One tool as a person is shown it for a decision: its definition as lines, hidden characters escaped. */
export const ToolTextSchema = z.object({ name: z.string(), lines: z.array(z.string()) });
export type ToolText = z.infer<typeof ToolTextSchema>;

/**
 * How what a server says that reaches a model (its instructions, tools and prompts) differs from what
 * was pinned for it (at its first run after approval, or when a change was last accepted). New and
 * changed tools and prompts are held back from editors until the person accepts this, changed
 * instructions too (editors get the pinned ones); removed ones are simply gone. `change` (sha256 of
 * everything shown) is what an acceptance carries. (The name is from when only tools were pinned.)
 */
export const ToolChangeSchema = z.object({
  server: z.string(),
  change: ToolChangeIdSchema,
  /** when the list it is compared with was pinned (null: not known) */
  pinnedAt: z.number().nullable(),
  added: z.array(ToolTextSchema),
  changed: z.array(z.object({ name: z.string(), before: z.array(z.string()), after: z.array(z.string()) })),
  /** names (display-safe) of pinned tools the server no longer lists */
  removed: z.array(z.string()),
  /**
   * the server's instructions differ from the pinned ones (before null: it had none), as lines;
   * null when they are as pinned. Editors get the pinned ones meanwhile.
   */
  instructions: z.object({ before: z.array(z.string()).nullable(), after: z.array(z.string()) }).nullable(),
  /** new and changed prompts (held back), and pinned ones the server no longer lists */
  prompts: z.object({
    added: z.array(ToolTextSchema),
    changed: z.array(z.object({ name: z.string(), before: z.array(z.string()), after: z.array(z.string()) })),
    removed: z.array(z.string()),
  }),
  /**
   * new and changed resource templates (held back: /mcp routes no read through them, and neither
   * endpoint lists them), named by URI template, and pinned ones the server no longer lists
   */
  resourceTemplates: z
    .object({
      added: z.array(ToolTextSchema),
      changed: z.array(
        z.object({ name: z.string(), before: z.array(z.string()), after: z.array(z.string()) }),
      ),
      removed: z.array(z.string()),
    })
    .default({ added: [], changed: [], removed: [] }),
  /** the pinned definitions are not on record (their file is missing or damaged): every tool counts as new */
  baselineMissing: z.boolean(),
});
export type ToolChange = z.infer<typeof ToolChangeSchema>;

export const TOOL_PIN_STATES = ['pinned', 'new', 'changed'] as const;

/** GET /api/servers/<name>/tool-review: what `switchboard tools NAME` shows. */
export const ToolReviewSchema = z.object({
  server: z.string(),
  state: ServerStateSchema,
  /** false until the server has run under its current approval (its tools are not known yet) */
  known: z.boolean(),
  /**
   * every tool the server lists (names display-safe): editors get only the pinned ones, and never an
   * `excluded` one (turned off by the server's "tools" filter in servers.json)
   */
  tools: z.array(
    z.object({ name: z.string(), pin: z.enum(TOOL_PIN_STATES), excluded: z.boolean().default(false) }),
  ),
  /** every prompt the server lists (from its last list; names display-safe), the same way */
  prompts: z.array(z.object({ name: z.string(), pin: z.enum(TOOL_PIN_STATES) })),
  /** its instructions: none, as pinned, or new or changed (held back: editors get the pinned ones) */
  instructions: z.enum(['none', ...TOOL_PIN_STATES]),
  change: ToolChangeSchema.nullable(),
});
export type ToolReview = z.infer<typeof ToolReviewSchema>;

/** POST /api/servers/<name>/accept-tools: the change that was shown. */
export const AcceptToolsRequestSchema = z.object({ change: ToolChangeIdSchema }).strict();

export const ActionResultSchema = z.object({
  ok: z.literal(true),
  approval: ApprovalResultSchema.optional(),
});
export const ApiErrorSchema = z.object({ error: z.string() });
export const LogsResponseSchema = z.object({ lines: z.array(LogLineSchema) });

/** Server-sent events on /api/events. */
export const ApiEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('status'), status: ServerStatusSchema }),
  z.object({ type: z.literal('removed'), name: z.string() }),
  z.object({ type: z.literal('log'), line: LogLineSchema }),
  z.object({ type: z.literal('config'), report: StatusReportSchema }),
  /** editor sync wrote, failed, or found drift: the editors' sync state changed */
  z.object({ type: z.literal('editors') }),
  /** which tools an editor gets changed (its selection or discovery mode) */
  z.object({ type: z.literal('editor-tools'), editor: z.string() }),
  /** a server's tools changed from what was pinned, or such a change was accepted or went away */
  z.object({ type: z.literal('tool-change'), server: z.string() }),
  /** editors called these servers' tools (sent at most once a second) */
  z.object({ type: z.literal('activity'), servers: z.array(z.string()) }),
  /** a sign-in to a remote server ended (signed in, failed, cancelled) */
  z.object({ type: z.literal('sign-in'), outcome: SignInOutcomeSchema }),
  /**
   * Switchboard is stopping (serve got Ctrl+C, the app quits), at `at` (ms since the epoch): the
   * status events that follow are its servers being stopped with it, not a person's doing
   */
  z.object({ type: z.literal('stopping'), at: z.number() }),
  /** a check for updates started or ended (GET ApiRoutes.updates has what it found) */
  z.object({ type: z.literal('updates') }),
  /** the package of a server waiting for approval was resolved at its registry, or could not be */
  z.object({ type: z.literal('approval'), server: z.string() }),
  /** the projects changed, or a folder an editor works in is offered as one (GET UiRoutes.projects) */
  z.object({ type: z.literal('projects') }),
]);
export type ApiEvent = z.infer<typeof ApiEventSchema>;

/** run/serve.json: how the CLI finds the running instance. */
export const InstanceInfoSchema = z.object({
  pid: z.number().int(),
  port: z.number().int(),
  startedAt: z.number(),
  /** where the stdio relay connects: run/bridge.sock, or a named pipe on Windows */
  socket: z.string().optional(),
});
export type InstanceInfo = z.infer<typeof InstanceInfoSchema>;

/** Editor/client tokens (GET /api/tokens, POST /api/tokens {name}, DELETE /api/tokens/<name>). */
export const TokenNameSchema = z
  .string()
  .regex(TOKEN_NAME_PATTERN, 'a token name is 1-32 lowercase letters, digits or dashes')
  .refine((name) => name !== 'control', '"control" is reserved for the control API token');
export const TokenInfoSchema = z.object({
  name: z.string(),
  /** when the current token was issued (ms since epoch); never the token itself */
  createdAt: z.number(),
  file: z.string(),
});
export type TokenInfo = z.infer<typeof TokenInfoSchema>;
export const TokenListSchema = z.object({ tokens: z.array(TokenInfoSchema) });
export const CreateTokenRequestSchema = z.object({ name: TokenNameSchema }).strict();
export const TokenCreatedSchema = z.object({
  name: z.string(),
  token: z.string(),
  file: z.string(),
  /** true when a previous token of that name existed and no longer works */
  replaced: z.boolean(),
});
export type TokenCreated = z.infer<typeof TokenCreatedSchema>;
