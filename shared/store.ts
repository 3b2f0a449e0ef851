import { z } from 'zod';

/**
 * The package store (`<home>/store`): what an approval pins of a package-run server (npm, PyPI, OCI,
 * an .mcpb bundle), what the approval shows of it, and what `outdated` and Settings report.
 */

export const PACKAGE_KINDS = ['npm', 'pypi', 'oci', 'mcpb'] as const;
export const PackageKindSchema = z.enum(PACKAGE_KINDS);
export type PackageKind = z.infer<typeof PackageKindSchema>;

/**
 * What an approval pins of a package (part of the approved launch config, so of its fingerprint): the
 * exact version and the hash of everything it installs. The store installs exactly this, and the
 * server starts from there.
 */
export const PackagePinSchema = z.object({
  kind: PackageKindSchema,
  /** npm/PyPI package name, image repository, or bundle name */
  name: z.string(),
  /** the exact version (an image: the tag written, or "" for a digest alone) */
  version: z.string(),
  /**
   * npm: sha256 of the lockfile's tree (every package's version and integrity); PyPI: sha256 of the
   * hashed requirements; OCI: the image digest (sha256:…); bundle: sha256 of the .mcpb file
   */
  lock: z.string(),
  /**
   * npm: sha256 of the tree without the range written (`latest` or `^1.2.3` resolving to one tree
   * share one install, named by it); absent on pins made before it, whose installs are named by lock
   */
  tree: z.string().optional(),
  /** what runs inside the install: npm bin path in the package, Python console script, bundle entry */
  entry: z.string().optional(),
  /** the program that runs it, as found on PATH (node; the venv's python is the store's own) */
  runtime: z.string().optional(),
  /** that program's real file when it is a symlink */
  runtimeReal: z.string().optional(),
  /** packages (name@version) whose install scripts run, because the approval named them */
  scripts: z.array(z.string()).optional(),
});
export type PackagePin = z.infer<typeof PackagePinSchema>;

/** One installed package of a tree. */
export const StoredPackageSchema = z.object({
  name: z.string(),
  version: z.string(),
  /** it has an install script (preinstall/install/postinstall) */
  installScript: z.boolean(),
});
export type StoredPackage = z.infer<typeof StoredPackageSchema>;

/** The package part of an approval, as a person is shown it (every text display-safe). */
export const PackageReviewSchema = z.object({
  kind: PackageKindSchema,
  name: z.string(),
  version: z.string(),
  /** when that version was published (ISO date), if its registry says */
  publishedAt: z.string().nullable(),
  /** packages installed besides it */
  dependencies: z.number().int(),
  /** name@version of each package with an install script */
  installScripts: z.array(z.string()),
  /** whether those scripts run (only when the approval named them) */
  scriptsRun: z.boolean(),
  /** the summary lines (package, version, date, dependencies, scripts, what runs, where) */
  lines: z.array(z.string()),
  /** what changed since the last approved version; null when none was approved before */
  changes: z.array(z.string()).nullable(),
  /** things to know before approving (a store changed on disk, scripts that stay off) */
  notes: z.array(z.string()),
  /** with install scripts: the fingerprint that approves them running too (the plain one keeps them off) */
  scriptsFingerprint: z.string().nullable(),
});
export type PackageReview = z.infer<typeof PackageReviewSchema>;

/** `switchboard outdated`: a stored server with a newer release of its package or dependencies. */
export const OutdatedEntrySchema = z.object({
  server: z.string(),
  kind: PackageKindSchema,
  package: z.string(),
  /** the approved version */
  current: z.string(),
  /** what `update` would install now (the servers.json spec, resolved again) */
  wanted: z.string().nullable(),
  /** the newest release of the package, when its registry says */
  latest: z.string().nullable(),
  /** package-by-package changes `update` would bring (display-safe) */
  changes: z.array(z.string()),
  /** why it could not be checked (offline, the package was removed), else null */
  error: z.string().nullable(),
});
export type OutdatedEntry = z.infer<typeof OutdatedEntrySchema>;
export const OutdatedReportSchema = z.object({ servers: z.array(OutdatedEntrySchema) });
export type OutdatedReport = z.infer<typeof OutdatedReportSchema>;

/**
 * What the last check for updates found (the UI's Servers view, a server's page, Approvals): checked on
 * demand, and once a day while Switchboard runs unless turned off in Settings. Nothing updates by
 * itself: each entry is what `update NAME` (the UI's Review update) would show and ask about.
 */
export const UpdatesReportSchema = z.object({
  /** when the last check ended (ms since the epoch); null: never checked */
  checkedAt: z.number().nullable(),
  /** a check is running now */
  checking: z.boolean(),
  /** when the next automatic check is due (null: daily checks are off, or this is not `serve`) */
  nextCheckAt: z.number().nullable(),
  /** approved servers that run a stored package (npm, PyPI, OCI): 0, nothing to check */
  packages: z.number().int(),
  /**
   * servers whose package has a newer release, or that could not be checked (`error`), as found then;
   * a server approved again since (updated, changed) is left out
   */
  servers: z.array(OutdatedEntrySchema),
});
export type UpdatesReport = z.infer<typeof UpdatesReportSchema>;

/**
 * Whether a finding is an update to offer: checked, and `update` would bring something (a newer version,
 * or dependencies changed within their ranges). Not one: a newer release that servers.json's pinned
 * version keeps out.
 */
export function isUpdate(entry: OutdatedEntry): boolean {
  return entry.error === null && (entry.changes.length > 0 || entry.wanted !== entry.current);
}

/** "sb-store-pkg 1.0.0 → 1.1.0": an update in a few words (the UI's notices). */
export function updateWords(entry: OutdatedEntry): string {
  return `${entry.package} ${entry.current} → ${entry.wanted ?? '?'}`;
}

/** The store's disk use (Settings; `switchboard store`). */
export const StoreUsageSchema = z.object({
  folder: z.string(),
  bytes: z.number(),
  installs: z.array(
    z.object({
      /** the install's folder name inside the store */
      id: z.string(),
      bytes: z.number(),
      /** servers that start from it; empty: nothing uses it (prune removes it) */
      servers: z.array(z.string()),
    }),
  ),
});
export type StoreUsage = z.infer<typeof StoreUsageSchema>;

export const StorePruneResultSchema = z.object({ removed: z.array(z.string()), freedBytes: z.number() });
export type StorePruneResult = z.infer<typeof StorePruneResultSchema>;

/** "12.3 MB": a size for people. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

/** The UI's bundle routes: upload an .mcpb (base64 in JSON: it also crosses the desktop app's IPC), then add it. */
export const BundleRoutes = {
  /** POST {fileName, data (base64)}: unpacks and checks it into the store; answers a BundleView */
  upload: '/api/bundles',
  /** POST {name, values}: adds its server pending approval (sensitive values go to the keychain) */
  add: (id: string) => `/api/bundles/${encodeURIComponent(id)}/add`,
} as const;

/** The largest bundle the UI uploads (the CLI takes any size). */
export const MAX_BUNDLE_BYTES = 48 * 1024 * 1024;

export const BundleUploadRequestSchema = z
  .object({ fileName: z.string().max(255), data: z.string().max(Math.ceil((MAX_BUNDLE_BYTES * 4) / 3) + 8) })
  .strict();

/** An unpacked bundle as the UI shows it before adding (every text display-safe). */
export const BundleViewSchema = z.object({
  id: z.string(),
  /** a server name made from the bundle's */
  suggestedName: z.string(),
  displayName: z.string(),
  version: z.string(),
  author: z.string(),
  description: z.string(),
  signature: z.enum(['signed', 'unsigned', 'self-signed']),
  entryPoint: z.string(),
  fields: z.array(
    z.object({
      key: z.string(),
      title: z.string(),
      description: z.string(),
      required: z.boolean(),
      sensitive: z.boolean(),
      /** the default as text, or null */
      default: z.string().nullable(),
    }),
  ),
});
export type BundleView = z.infer<typeof BundleViewSchema>;

export const BundleAddRequestSchema = z
  .object({ name: z.string(), values: z.record(z.string(), z.string()) })
  .strict();
export const BundleAddedSchema = z.object({ name: z.string(), secrets: z.array(z.string()) });
export type BundleAdded = z.infer<typeof BundleAddedSchema>;
