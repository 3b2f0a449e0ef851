import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, sep } from 'node:path';
import { displayText } from '../../../shared/display-text.ts';
import type { PackagePin } from '../../../shared/store.ts';
import { UserError } from '../errors.ts';
import { refusedForeignValue } from '../secrets/foreign-values.ts';
import { bundlePackages } from './bundle-packages.ts';
import { unzipBundle } from './bundle-unzip.ts';
import type { Candidate } from './candidate.ts';
import type { PackageRun } from './package-run.ts';
import { StoreChangedError, type PackageStore } from './package-store.ts';

/** What the store keeps about an unpacked bundle, beside its folder (`mcpb/<id>.bundle.json`). */
export interface BundleRecord {
  /** sha256 of the .mcpb file */
  sha256: string;
  signature: 'signed' | 'unsigned' | 'self-signed';
  name: string;
  displayName: string;
  version: string;
  description: string;
  author: string;
  serverType: string;
  entryPoint: string;
  /** the bundle's user_config fields: what the person is asked for */
  userConfig: Record<string, BundleField>;
}

export interface BundleField {
  type: string;
  title: string;
  description: string;
  required: boolean;
  sensitive: boolean;
  default: unknown;
}

/** What Switchboard uses of a manifest schema (the package's zod 3 schemas). */
interface ManifestSchema {
  safeParse(
    value: unknown,
  ):
    | { success: true; data: unknown }
    | { success: false; error: { issues: { path: (string | number)[]; message: string }[] } };
}

export interface InstalledBundle {
  record: BundleRecord;
  folder: string;
  pin: PackagePin;
  /** the manifest as read (for its mcp_config) */
  manifest: Record<string, unknown>;
}

/** What to do about a bundle refused for a reference: it gets only what it is given at install. */
export const BORROWED_HINT =
  'a bundle gets only the settings you give it at install (its user_config); to hand it one of your secrets ' +
  'or environment variables on purpose, add it first and then write the ${secret:…} or ${env:…} into its env ' +
  'in servers.json yourself, which asks for approval again';

/**
 * Unpacks an MCP bundle (`.mcpb`, Claude Desktop's extension format) into the store: validated with
 * `@anthropic-ai/mcpb`'s own manifest schemas (the version the manifest names), its signature checked
 * with its verifier, unpacked by bundle-unzip.ts (folder entries too), stamped like every install.
 */
export async function installBundle(file: string, store: PackageStore): Promise<InstalledBundle> {
  const mcpb = await import('@anthropic-ai/mcpb');
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new UserError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  mkdirSync(store.staging, { recursive: true, mode: 0o700 });
  const unpacked = mkdtempSync(join(store.staging, 'bundle-'));
  try {
    unzipBundle(mcpb.extractSignatureBlock(bytes).originalContent, unpacked, file);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8'));
    } catch {
      throw new UserError(`${file} has no readable manifest.json`, {
        hint: 'make it with: npx @anthropic-ai/mcpb pack',
      });
    }
    const declared = (raw as { manifest_version?: unknown; dxt_version?: unknown }) ?? {};
    const version = String(
      declared.manifest_version ?? declared.dxt_version ?? mcpb.DEFAULT_MANIFEST_VERSION,
    );
    // The schema of the manifest version it names (the packer's own validation).
    const schemas = mcpb.MANIFEST_SCHEMAS as unknown as Record<string, ManifestSchema | undefined>;
    const schema = schemas[version];
    if (!schema)
      throw new UserError(
        `${file}: manifest_version "${displayText(version)}" is not one this Switchboard knows`,
      );
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UserError(
        `${file}: its manifest.json is not valid: ${issue?.path.join('.') || 'manifest'}: ${issue?.message ?? ''}`,
      );
    }
    const manifest = parsed.data as unknown as Record<string, unknown>;
    // What it would run and the defaults it offers, as the catalog judges a registry entry: a bundle
    // brings no secret of its own, so a ${secret:…} or ${env:…} there would borrow one of yours.
    const refused = refusedForeignValue({ server: manifest.server, user_config: manifest.user_config });
    if (refused) throw new UserError(`${file}: ${refused}`, { hint: BORROWED_HINT });
    const signature = (await mcpb.verifyMcpbFile(file)).status;
    const server = manifest.server as { type: string; entry_point: string };
    const author = manifest.author as { name: string };
    const record: BundleRecord = {
      sha256,
      signature,
      name: String(manifest.name),
      displayName: String(manifest.display_name ?? manifest.name),
      version: String(manifest.version),
      description: String(manifest.description ?? ''),
      author: author.name,
      serverType: server.type,
      entryPoint: server.entry_point,
      userConfig: fieldsOf(manifest.user_config),
    };
    const pin: PackagePin = {
      kind: 'mcpb',
      name: record.name,
      version: record.version,
      lock: sha256,
      entry: record.entryPoint,
    };
    const folder = await store.ensure(pin, async (dir) => {
      cpSync(unpacked, dir, { recursive: true });
    });
    writeFileSync(`${folder}.bundle.json`, JSON.stringify({ record, manifest }), { mode: 0o600 });
    return { record, folder, pin, manifest };
  } finally {
    rmSync(unpacked, { recursive: true, force: true });
  }
}

function fieldsOf(value: unknown): Record<string, BundleField> {
  const out: Record<string, BundleField> = {};
  if (!value || typeof value !== 'object') return out;
  for (const [key, raw] of Object.entries(value as Record<string, Record<string, unknown>>)) {
    out[key] = {
      type: String(raw.type ?? 'string'),
      title: String(raw.title ?? key),
      description: String(raw.description ?? ''),
      required: raw.required === true,
      sensitive: raw.sensitive === true,
      default: raw.default,
    };
  }
  return out;
}

/**
 * The servers.json entry a bundle becomes: its manifest's mcp_config with `${__dirname}` the store
 * folder and each `${user_config.KEY}` the value given (a secret's value being its `${secret:…}`
 * reference, resolved only at start), through `@anthropic-ai/mcpb`'s own substitution.
 */
export async function bundleServerConfig(
  bundle: InstalledBundle,
  values: Record<string, string>,
): Promise<{ command: string; args: string[]; env: Record<string, string> }> {
  const mcpb = await import('@anthropic-ai/mcpb');
  const home = homedir();
  const config = await mcpb.getMcpConfigForManifest({
    manifest: bundle.manifest as unknown as Parameters<typeof mcpb.getMcpConfigForManifest>[0]['manifest'],
    extensionPath: bundle.folder,
    systemDirs: {
      HOME: home,
      DESKTOP: join(home, 'Desktop'),
      DOCUMENTS: join(home, 'Documents'),
      DOWNLOADS: join(home, 'Downloads'),
    },
    userConfig: values,
    pathSeparator: sep,
  });
  if (!config) {
    const missing = Object.entries(bundle.record.userConfig)
      .filter(([key, field]) => field.required && field.default === undefined && !values[key])
      // By the title its form shows, with the key a script passes (`install --set KEY=…`).
      .map(([key, field]) =>
        field.title && field.title !== key ? `${displayText(field.title)} (${key})` : key,
      );
    throw new UserError(
      `the bundle ${bundle.record.name} needs a value for: ${missing.join(', ') || 'its settings'}`,
    );
  }
  return {
    command: config.command,
    args: config.args ?? [],
    env: Object.fromEntries(Object.entries(config.env ?? {}).map(([k, v]) => [k, String(v)])),
  };
}

/** The record kept beside an unpacked bundle, or undefined when it is gone. */
export function readBundleRecord(store: PackageStore, id: string): BundleRecord | undefined {
  return readBundleFile(store, id)?.record;
}

function readBundleFile(
  store: PackageStore,
  id: string,
): { record: BundleRecord; manifest?: Record<string, unknown> } | undefined {
  try {
    return JSON.parse(readFileSync(join(store.root, 'mcpb', `${id}.bundle.json`), 'utf8')) as {
      record: BundleRecord;
      manifest?: Record<string, unknown>;
    };
  } catch {
    return undefined;
  }
}

/** The program a bundle's manifest starts (its mcp_config.command: node, python, its binary). */
function manifestCommand(manifest: Record<string, unknown> | undefined): string | undefined {
  const server = manifest?.server as { mcp_config?: { command?: unknown } } | undefined;
  const command = server?.mcp_config?.command;
  return typeof command === 'string' ? command : undefined;
}

/** A bundle's approval: what it is, who made it, its signature, its entry point (nothing fetched). */
export function bundleCandidate(run: Extract<PackageRun, { kind: 'mcpb' }>, store: PackageStore): Candidate {
  const stored = readBundleFile(store, run.id);
  const record = stored?.record;
  if (!record)
    throw new UserError(`the bundle this server runs (${run.id}) is no longer in the store`, {
      hint: 'install its .mcpb again: switchboard install FILE.mcpb',
    });
  const pin: PackagePin = {
    kind: 'mcpb',
    name: record.name,
    version: record.version,
    lock: record.sha256,
    entry: record.entryPoint,
  };
  const folder = store.folderOf(pin);
  const command = manifestCommand(stored.manifest);
  const signature =
    record.signature === 'signed'
      ? 'signed (its certificate chains to this computer’s trust store)'
      : record.signature === 'self-signed'
        ? 'self-signed: nobody vouches for who made it'
        : 'unsigned: nobody vouches for who made it';
  return {
    run,
    pin,
    lockText: '',
    // What it ships counts as its dependencies; none is installed or runs a script (they came zipped).
    packages: [
      { name: record.name, version: record.version, installScript: false },
      ...(folder === undefined ? [] : bundlePackages(folder)),
    ],
    publishedAt: null,
    latest: null,
    runs: [...(command === undefined ? [] : [command]), ...run.args],
    folder,
    notes: [
      `bundle: ${displayText(record.displayName)} by ${displayText(record.author)}: ${displayText(record.description.slice(0, 300))}`,
      `entry point: ${displayText(record.entryPoint)} (${displayText(record.serverType)} server)`,
      `signature: ${signature}`,
    ],
  };
}

/** A bundle's install, verified (there is nothing to install it again from: the .mcpb is asked for). */
export async function bundleLaunch(pin: PackagePin, store: PackageStore): Promise<string> {
  return store.ensure(pin, () =>
    Promise.reject(
      new StoreChangedError(
        `${pin.name}@${pin.version}`,
        'its unpacked files are gone; install the .mcpb again',
      ),
    ),
  );
}
