import { z } from 'zod';
import { EditorIdSchema } from '../editors.ts';
import { referenceProblem } from '../reference-check.ts';

/**
 * Server names become URL path segments (`/mcp/<name>`) and tool-name prefixes (`<name>__<tool>`,
 * which must match ^[a-zA-Z0-9_-]{1,64}$), so they are limited to that alphabet.
 */
export const SERVER_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,48}$/;
export const ServerNameSchema = z
  .string()
  .regex(SERVER_NAME_PATTERN, 'server names may use only letters, digits, "-" and "_" (at most 48)');

/**
 * `command` is spawned without a shell, so a shell command line in it would not do what it says.
 * Whitespace and shell metacharacters mean someone pasted `npx -y pkg` into `command`.
 */
export const SHELL_FORM_PATTERN = /[\s;&|<>`$(){}*?!'"]/;
const PROGRAM_PATTERN = /^[^\s;&|<>`$(){}*?!'"]+$/;

/**
 * A value that may hold `${secret:…}`/`${env:…}` references: one that is almost right is an error
 * at its field, saying which was meant, rather than text passed on as written (reference-check.ts).
 */
function referenceChecked<T extends z.ZodType<string>>(schema: T, inArgs = false): T {
  return schema.superRefine((value, ctx) => {
    const problem = referenceProblem(value, { inArgs });
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

const StringMap = z.record(z.string(), referenceChecked(z.string()));

/**
 * An absolute path on any OS Switchboard runs on: `/…`, `C:\…` or `C:/…`, or a UNC `\\server\share`.
 * A relative `cwd` would depend on the folder Switchboard happened to start in.
 */
export const ABSOLUTE_PATH_PATTERN = /^(?:\/|[A-Za-z]:[\\/]|\\\\)/;
export const CWD_NOT_ABSOLUTE =
  'cwd must be an absolute path, like "/home/you/project" or "C:\\Users\\you\\project": a relative one ' +
  'would depend on the folder Switchboard happens to start in (and "~" is not expanded)';

/** The longest idle timeout (a week): anything longer means "always running", which is 0. */
export const MAX_IDLE_TIMEOUT_S = 7 * 24 * 3600;
/** The idle timeout of servers that set none, unless Settings say otherwise
 * (docs/decisions/server-lifecycle.md). */
export const DEFAULT_IDLE_TIMEOUT_S = 600;

/**
 * A glob on a server's own tool names: `*` any run of characters, `?` one character, everything else
 * itself (case-sensitive). Tool names are free text, so the pattern may be too.
 */
export const ToolPatternSchema = z
  .string()
  .min(1, 'a tool pattern is a tool name or a glob such as "search*" (it cannot be empty)');

/**
 * Which of a server's tools editors get: `include` (when present) only those matching one of its
 * patterns, and never those matching `exclude` (exclude wins). Excluded tools are neither listed nor
 * callable, on /mcp/<server> and /mcp alike.
 */
export const ToolFilterSchema = z
  .object({
    include: z
      .array(ToolPatternSchema)
      .optional()
      .describe('Only tools whose names match one of these globs ("search*", "read_file"); default: all'),
    exclude: z
      .array(ToolPatternSchema)
      .optional()
      .describe(
        'Tools whose names match one of these globs ("delete_*") are never offered; wins over include',
      ),
  })
  .strict();
export type ToolFilter = z.infer<typeof ToolFilterSchema>;

const common = {
  $comment: z.string().optional(),
  enabled: z.boolean().default(true).describe('false keeps the server configured but never started'),
  editors: z
    .array(EditorIdSchema)
    .optional()
    .describe('Editors that get this server; default: every enabled editor'),
  idleTimeout: z
    .number()
    .int('idleTimeout is a whole number of seconds')
    .min(0, 'idleTimeout is a number of seconds, 0 or more (0: always running)')
    .max(
      MAX_IDLE_TIMEOUT_S,
      `idleTimeout is at most ${MAX_IDLE_TIMEOUT_S} seconds (a week); 0 keeps it always running`,
    )
    .optional()
    .describe(
      'Seconds without requests after which the server is stopped until the next request (0: always running); default: the idle timeout in Settings',
    ),
  tools: ToolFilterSchema.optional().describe(
    'Which of its tools editors get: {"include": [globs]} and/or {"exclude": [globs]} on the server\'s own tool names; default: all',
  ),
  isolated: z
    .boolean()
    .optional()
    .describe(
      'true: one process of this server per editor session, for servers that keep state per client; default: one process shared by every editor',
    ),
};

/**
 * A path in a sandbox's `read`/`write`: absolute, or `~/…` (your home folder). A relative path would
 * depend on the folder Switchboard started in.
 */
export const SANDBOX_PATH_PATTERN = /^(?:~(?:[\\/]|$)|\/|[A-Za-z]:[\\/]|\\\\)/;
export const SANDBOX_PATH_NOT_ABSOLUTE =
  'sandbox paths are absolute ("/srv/data") or start with "~/" (your home folder), like "~/projects"';

/**
 * A `network` entry: a host name (`api.github.com`), every subdomain of one (`*.github.com`), an IP
 * address, each optionally with a port (`localhost:5432`, `[::1]:8080`). No scheme, no path.
 */
export const NETWORK_ENTRY_PATTERN =
  /^(?:\*\.)?(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;
export const NETWORK_ENTRY_INVALID =
  'a network entry is a host name ("api.github.com"), "*.example.com", or an address with an optional port ("localhost:5432", "[::1]:8080"): no "https://", no path';

const SandboxPathSchema = z.string().min(1).regex(SANDBOX_PATH_PATTERN, SANDBOX_PATH_NOT_ABSOLUTE);

/**
 * What a local server may touch beyond the default (docs/decisions/sandbox.md): the system
 * read-only, its own folder and a private temp folder writable, your secret-bearing places hidden,
 * the internet but not this computer's own services. `false` runs it without a sandbox.
 */
export const SandboxSchema = z.union([
  z.literal(false),
  z
    .object({
      read: z
        .array(SandboxPathSchema)
        .optional()
        .describe('Folders or files it may read besides the system and its own folder ("~/docs")'),
      write: z
        .array(SandboxPathSchema)
        .optional()
        .describe('Folders or files it may read and write besides its own folder ("~/projects")'),
      network: z
        .union([
          z.enum(['all', 'none']),
          z.array(z.string().regex(NETWORK_ENTRY_PATTERN, NETWORK_ENTRY_INVALID)),
        ])
        .optional()
        .describe(
          'Hosts it may reach ("api.github.com", "*.github.com", "localhost:5432"); "none": no network; "all": any connection, this computer\'s own services included; default: any host on the internet over HTTP(S), nothing on this computer',
        ),
    })
    .strict(),
]);
export type SandboxSetting = z.infer<typeof SandboxSchema>;

export const StdioServerSchema = z
  .object({
    type: z.literal('stdio').optional(),
    command: z
      .string()
      .min(1, 'command is empty')
      .regex(PROGRAM_PATTERN, 'command must be a program, not a shell command line: put arguments in "args"')
      .describe('Program to run (no shell). Arguments go in "args".'),
    args: z.array(referenceChecked(z.string(), true)).default([]),
    env: StringMap.default({}).describe(
      'Use ${secret:NAME} for secrets and ${env:NAME} for your environment',
    ),
    cwd: z
      .string()
      .min(1)
      .regex(ABSOLUTE_PATH_PATTERN, CWD_NOT_ABSOLUTE)
      .optional()
      .describe('Folder the server runs in: an absolute path'),
    sandbox: SandboxSchema.optional().describe(
      'What the server may read, write and reach in its OS sandbox; false: no sandbox. Default: the system read-only, its own folder, the internet',
    ),
    ...common,
  })
  .strict();

export const RemoteServerSchema = z
  .object({
    type: z.enum(['http', 'streamable-http', 'sse']).optional(),
    url: referenceChecked(
      z.url({ protocol: /^https?$/, error: 'url must be an http:// or https:// address' }),
    ),
    headers: StringMap.default({}).describe('Use ${secret:NAME} for credentials'),
    ...common,
  })
  .strict();

export const ServerConfigSchema = z.union([StdioServerSchema, RemoteServerSchema]);

export const ServersFileSchema = z
  .object({
    $schema: z.string().optional(),
    mcpServers: z.record(ServerNameSchema, ServerConfigSchema).default({}),
  })
  .strict();

export type StdioServerConfig = z.infer<typeof StdioServerSchema>;
export type RemoteServerConfig = z.infer<typeof RemoteServerSchema>;
export type ServerConfig = z.infer<typeof ServerConfigSchema>;
export type ServersFile = z.infer<typeof ServersFileSchema>;
/** What a person writes (defaults not yet applied). */
export type ServerConfigInput = z.input<typeof ServerConfigSchema>;

export function isRemote(config: ServerConfig): config is RemoteServerConfig {
  return 'url' in config;
}
