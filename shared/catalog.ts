import { z } from 'zod';

/**
 * The MCP Registry catalog: what the registry's REST API (v0.1) answers, as far as Switchboard reads
 * it, and what the core tells the UI and the CLI about it. Registry answers come from the network:
 * every schema here is lenient where the official schema is (unknown fields pass unread) and strict
 * about what would end up running.
 */

/** The official registry; a setting (state.json) or SWITCHBOARD_REGISTRY_URL chooses another. */
export const DEFAULT_REGISTRY_URL = 'https://registry.modelcontextprotocol.io';

/** A server's name in the registry: reverse-DNS namespace, one slash, name (the official pattern). */
export const REGISTRY_NAME_PATTERN = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
export const REGISTRY_NAME_MAX = 200;
/** A version as the registry's API takes it in a path (no spaces, slashes or ranges). */
export const REGISTRY_VERSION_PATTERN = /^[A-Za-z0-9][A-Za-z0-9.+_-]{0,254}$/;

export function isRegistryName(name: string): boolean {
  return name.length <= REGISTRY_NAME_MAX && REGISTRY_NAME_PATTERN.test(name);
}

// ---- the registry's wire format (server.json and the v0.1 API) -----------------------------------

/** Input: what a value is and how a client should ask for it. */
export const RegistryInputSchema = z.object({
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
  format: z.string().optional(),
  value: z.string().optional(),
  isSecret: z.boolean().optional(),
  default: z.string().optional(),
  placeholder: z.string().optional(),
  choices: z.array(z.string()).optional(),
});

export type RegistryInput = z.infer<typeof RegistryInputSchema>;

const WithVariables = RegistryInputSchema.extend({
  variables: z.record(z.string(), RegistryInputSchema).optional(),
});

export const RegistryArgumentSchema = z.discriminatedUnion('type', [
  WithVariables.extend({
    type: z.literal('positional'),
    valueHint: z.string().optional(),
    isRepeated: z.boolean().optional(),
  }),
  WithVariables.extend({
    type: z.literal('named'),
    name: z.string().min(1, 'a named argument needs a name'),
    isRepeated: z.boolean().optional(),
  }),
]);
export type RegistryArgument = z.infer<typeof RegistryArgumentSchema>;

/** An environment variable or an HTTP header. */
export const RegistryKeyValueSchema = WithVariables.extend({ name: z.string().min(1, 'a name is required') });
export type RegistryKeyValue = z.infer<typeof RegistryKeyValueSchema>;

export const RegistryTransportSchema = z.object({
  type: z.string(),
  url: z.string().optional(),
  headers: z.array(RegistryKeyValueSchema).optional(),
});

export const RegistryPackageSchema = z.object({
  registryType: z.string().min(1),
  registryBaseUrl: z.string().optional(),
  identifier: z.string().min(1),
  version: z.string().optional(),
  fileSha256: z.string().optional(),
  runtimeHint: z.string().optional(),
  transport: RegistryTransportSchema.optional(),
  runtimeArguments: z.array(RegistryArgumentSchema).optional(),
  packageArguments: z.array(RegistryArgumentSchema).optional(),
  environmentVariables: z.array(RegistryKeyValueSchema).optional(),
});
export type RegistryPackage = z.infer<typeof RegistryPackageSchema>;

export const RegistryRemoteSchema = RegistryTransportSchema.extend({
  url: z.string(),
  variables: z.record(z.string(), RegistryInputSchema).optional(),
});
export type RegistryRemote = z.infer<typeof RegistryRemoteSchema>;

/**
 * The parts of a server.json every entry must have to be listed at all. Packages and remotes are
 * read one by one (catalog/server-doc.ts), so one broken package does not hide the others.
 */
export const RegistryServerHeadSchema = z.object({
  name: z
    .string()
    .max(REGISTRY_NAME_MAX)
    .regex(REGISTRY_NAME_PATTERN, 'not a registry name (namespace/name)'),
  version: z.string().min(1).max(255),
  description: z.string().optional(),
  title: z.string().optional(),
  websiteUrl: z.string().optional(),
  repository: z.object({ url: z.string().optional(), source: z.string().optional() }).optional(),
  packages: z.unknown().optional(),
  remotes: z.unknown().optional(),
});

/** `_meta["io.modelcontextprotocol.registry/official"]` of an answer (the registry's own). */
export const OfficialMetaSchema = z.object({
  status: z.string().optional(),
  statusMessage: z.string().optional(),
  publishedAt: z.string().optional(),
  updatedAt: z.string().optional(),
  isLatest: z.boolean().optional(),
});
export const OFFICIAL_META_KEY = 'io.modelcontextprotocol.registry/official';

/** GET /v0.1/servers: the list; each item is checked on its own. */
export const RegistryListSchema = z.object({
  servers: z.array(z.unknown()),
  metadata: z.object({ nextCursor: z.string().nullish(), count: z.number().optional() }).nullish(),
});

/** One item of a list, or GET /v0.1/servers/{name}/versions/{version}. */
export const RegistryServerResponseSchema = z.object({
  server: z.unknown(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});

// ---- what the core tells the UI and the CLI -------------------------------------------------------

/** Where the catalog's answer came from: the registry just now, or the cache in the home. */
export const CatalogFreshnessSchema = z.object({
  /** the registry it asked */
  registry: z.string(),
  /** when the registry gave this answer (ms since epoch) */
  fetchedAt: z.number(),
  /** true: read from the cache (the registry was not asked, or did not answer usably) */
  fromCache: z.boolean(),
  /** why the registry's answer could not be used, in words; null when it was */
  problem: z.string().nullable(),
});
export type CatalogFreshness = z.infer<typeof CatalogFreshnessSchema>;

export const INSTALL_KINDS = ['npm', 'pypi', 'oci', 'remote', 'other'] as const;
export const InstallKindSchema = z.enum(INSTALL_KINDS);
export type InstallKind = z.infer<typeof InstallKindSchema>;

/** One search result. Text is display-safe (shared/display-text.ts). */
export const CatalogEntrySchema = z.object({
  /** the registry name (never escaped: it matches REGISTRY_NAME_PATTERN) */
  name: z.string(),
  version: z.string(),
  title: z.string().nullable(),
  description: z.string(),
  /** how it can run: one per package or remote, in the entry's order */
  kinds: z.array(InstallKindSchema),
  /** "deprecated" or "deleted" when the registry says so; null when active */
  status: z.string().nullable(),
});
export type CatalogEntry = z.infer<typeof CatalogEntrySchema>;

export const CatalogPageSchema = CatalogFreshnessSchema.extend({
  search: z.string(),
  entries: z.array(CatalogEntrySchema),
  /** give this back as `cursor` for the next page; null at the end */
  nextCursor: z.string().nullable(),
  /** entries of the registry's answer that were not valid server.json and are not shown */
  skipped: z.number().int(),
});
export type CatalogPage = z.infer<typeof CatalogPageSchema>;

export const CATALOG_FIELD_KINDS = ['env', 'header', 'argument', 'variable'] as const;

/** One value the person gives when installing: an env variable, header, argument or variable. */
export const CatalogFieldSchema = z.object({
  /** stable within its option, e.g. env:API_KEY, arg:package:2, var:runtime:1:token */
  id: z.string(),
  kind: z.enum(CATALOG_FIELD_KINDS),
  /** short name a person types (`--set KEY=…`, stdin `KEY=…`): the variable, header, flag or hint */
  key: z.string(),
  /** what it is, display-safe ("env GRAFANA_URL", "argument --storage-path", "token in -e GITHUB_…") */
  label: z.string(),
  description: z.string().nullable(),
  /** asked for hidden, stored in the keychain, written as ${secret:…} */
  secret: z.boolean(),
  required: z.boolean(),
  default: z.string().nullable(),
  placeholder: z.string().nullable(),
  choices: z.array(z.string()).nullable(),
  format: z.enum(['string', 'number', 'boolean', 'filepath']),
});
export type CatalogField = z.infer<typeof CatalogFieldSchema>;

/** One way a server can run: a package (with its runtime) or a remote endpoint. */
export const CatalogOptionSchema = z.object({
  /** package:N or remote:N (its place in the server.json) */
  id: z.string(),
  kind: InstallKindSchema,
  /** "npm package @upstash/context7-mcp 2.0.2", display-safe */
  label: z.string(),
  /** the program it runs with (npx, uvx, docker); null for a remote */
  runtime: z.string().nullable(),
  /** where that program was found; null when missing or remote */
  runtimePath: z.string().nullable(),
  /** why it cannot be installed this way (unsupported, a missing runtime, a refused value); null when it can */
  problem: z.string().nullable(),
  /** things to know before approving (an unpinned version, runtime flags that change what runs) */
  notes: z.array(z.string()),
  fields: z.array(CatalogFieldSchema),
});
export type CatalogOption = z.infer<typeof CatalogOptionSchema>;

export const CatalogDetailSchema = CatalogFreshnessSchema.extend({
  entry: CatalogEntrySchema,
  /** the status message the registry gives with deprecated/deleted, display-safe */
  statusMessage: z.string().nullable(),
  repository: z.string().nullable(),
  website: z.string().nullable(),
  publishedAt: z.string().nullable(),
  options: z.array(CatalogOptionSchema),
  /** the option offered first: one that can be installed here, else the first */
  recommended: z.string().nullable(),
  /** a free name for servers.json, derived from the registry name */
  suggestedName: z.string(),
});
export type CatalogDetail = z.infer<typeof CatalogDetailSchema>;

const Name = z.string().max(REGISTRY_NAME_MAX);
const Answers = z.record(z.string().max(200), z.string().max(16_384));

export const CatalogSearchRequestSchema = z
  .object({
    search: z.string().max(200).default(''),
    cursor: z.string().max(1000).optional(),
    /** ask the registry even when the cache is fresh */
    refresh: z.boolean().optional(),
    /**
     * the registry to ask for this request instead of the instance's own: the CLI sends the
     * SWITCHBOARD_REGISTRY_URL of its environment, which must win there as it does without a running
     * Switchboard
     */
    registry: z.string().max(2048).optional(),
  })
  .strict();
export type CatalogSearchRequest = z.input<typeof CatalogSearchRequestSchema>;

export const CatalogServerRequestSchema = z
  .object({
    name: Name,
    version: z.string().max(255).optional(),
    refresh: z.boolean().optional(),
    /**
     * the registry to ask for this request instead of the instance's own: the CLI sends the
     * SWITCHBOARD_REGISTRY_URL of its environment, which must win there as it does without a running
     * Switchboard
     */
    registry: z.string().max(2048).optional(),
  })
  .strict();
export type CatalogServerRequest = z.input<typeof CatalogServerRequestSchema>;

export const CatalogInstallRequestSchema = z
  .object({
    /** the registry name */
    server: Name,
    /** the version shown (what gets installed); default: the latest */
    version: z.string().max(255).optional(),
    /** CatalogOption.id */
    option: z.string().max(40),
    /** the name in servers.json */
    name: z.string().max(100),
    /** field id → value, for fields that are not secret */
    values: Answers.default({}),
    /**
     * field id → value for secret fields; '' keeps a secret already stored under the name shown. A
     * dry run needs only to know which were given: any non-empty text does.
     */
    secrets: Answers.default({}),
    /** true: check and show what would be written and run, write nothing */
    dryRun: z.boolean().optional(),
    /**
     * the registry to ask for this request instead of the instance's own: the CLI sends the
     * SWITCHBOARD_REGISTRY_URL of its environment, which must win there as it does without a running
     * Switchboard
     */
    registry: z.string().max(2048).optional(),
  })
  .strict();
export type CatalogInstallRequest = z.input<typeof CatalogInstallRequestSchema>;

export const CatalogSecretPlanSchema = z.object({
  field: z.string(),
  /** the keychain name it is (or will be) stored under */
  name: z.string(),
  /** a secret of that name is in the keychain already */
  stored: z.boolean(),
});

export const CatalogPlanSchema = z.object({
  /** the name in servers.json */
  name: z.string(),
  /** the servers.json entry it writes (secrets as ${secret:…}) */
  config: z.unknown(),
  /** the exact launch lines, as the approval will show them (display-safe) */
  lines: z.array(z.string()),
  /** each keychain secret and env variable it passes on (plain words, display-safe) */
  references: z.array(z.string()),
  secrets: z.array(CatalogSecretPlanSchema),
  /** problems at fields (missing, not a number, not a choice) and with the name */
  issues: z.array(z.object({ field: z.string(), message: z.string() })),
  /** problems with the option itself (a missing runtime, a refused value); install is refused */
  problems: z.array(z.string()),
});
export type CatalogPlan = z.infer<typeof CatalogPlanSchema>;

export const CatalogInstallResultSchema = z.object({
  /** false for a dry run */
  installed: z.boolean(),
  plan: CatalogPlanSchema,
});
export type CatalogInstallResult = z.infer<typeof CatalogInstallResultSchema>;

/** The registry Switchboard asks, and why that one. */
export const CatalogRegistrySchema = z.object({
  url: z.string(),
  /** env: SWITCHBOARD_REGISTRY_URL; setting: state.json; default: the official registry */
  source: z.enum(['env', 'setting', 'default']),
  /** what state.json says (null: nothing, the default applies) */
  configured: z.string().nullable(),
  default: z.string(),
});
export type CatalogRegistry = z.infer<typeof CatalogRegistrySchema>;

/** PUT: a registry address to use, or null for the official one. */
export const CatalogRegistryPatchSchema = z.object({ url: z.string().max(2048).nullable() }).strict();

export const CatalogRoutes = {
  /** POST CatalogSearchRequest → CatalogPage */
  search: '/api/catalog/search',
  /** POST CatalogServerRequest → CatalogDetail */
  server: '/api/catalog/server',
  /** POST CatalogInstallRequest → CatalogInstallResult */
  install: '/api/catalog/install',
  /** GET → CatalogRegistry; PUT {url} → CatalogRegistry */
  registry: '/api/catalog/registry',
} as const;

/** "just now", "12 minutes", "3 hours", "2 days": how old a cached answer is. */
export function ageWords(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return 'less than a minute';
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} hour${hours === 1 ? '' : 's'}`;
  return `${Math.floor(hours / 24)} days`;
}

/**
 * Where an answer came from, in one sentence: "Live from https://…" or "From the cache, 3 hours old:
 * the registry at … answered HTTP 503".
 */
export function freshnessWords(freshness: CatalogFreshness, now: number): string {
  if (!freshness.fromCache) return `Live from ${freshness.registry}.`;
  const age = `${ageWords(now - freshness.fetchedAt)} old`;
  return freshness.problem
    ? `From the cache, ${age}: ${freshness.problem}.`
    : `From the cache, ${age} (asked ${freshness.registry} then).`;
}

/** The catalog part of the UI's API (shared/ui-api.ts UiApi.catalog). Each rejects with a UiApiError. */
export interface CatalogUiApi {
  search(request: CatalogSearchRequest): Promise<CatalogPage>;
  server(request: CatalogServerRequest): Promise<CatalogDetail>;
  /** a dry run (`dryRun: true`) shows what would be written and run; otherwise it adds the server */
  install(request: CatalogInstallRequest): Promise<CatalogInstallResult>;
  registry(): Promise<CatalogRegistry>;
  setRegistry(url: string | null): Promise<CatalogRegistry>;
}
