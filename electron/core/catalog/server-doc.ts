import {
  OFFICIAL_META_KEY,
  OfficialMetaSchema,
  RegistryServerHeadSchema,
  RegistryServerResponseSchema,
  type CatalogEntry,
  type InstallKind,
} from '../../../shared/catalog.ts';
import { clip, displayText, hasHiddenCharacters } from '../../../shared/display-text.ts';

/** A server.json as the catalog reads it: the head checked, packages and remotes kept raw. */
export interface ServerDoc {
  name: string;
  version: string;
  title: string | undefined;
  description: string;
  websiteUrl: string | undefined;
  repositoryUrl: string | undefined;
  /** raw, each read on its own (one broken package must not hide the others) */
  packages: unknown[];
  remotes: unknown[];
  /** what is wrong with the lists themselves ("packages is not a list") */
  problems: string[];
  /** the registry's own view: active, deprecated, deleted */
  status: string | undefined;
  statusMessage: string | undefined;
  publishedAt: string | undefined;
}

export type DocResult = { ok: true; doc: ServerDoc } | { ok: false; reason: string };

/**
 * Reads one item of a v0.1 answer (`{server, _meta}`). An item without a usable name and version is
 * not listed at all (there is nothing to show or install); everything else is kept and judged where
 * it is used.
 */
export function readServerResponse(item: unknown): DocResult {
  const response = RegistryServerResponseSchema.safeParse(item);
  if (!response.success) return { ok: false, reason: 'not an object with a "server"' };
  const head = RegistryServerHeadSchema.safeParse(response.data.server);
  if (!head.success) {
    const issue = head.error.issues[0];
    return { ok: false, reason: `${issue?.path.join('.') || 'server'}: ${issue?.message ?? 'invalid'}` };
  }
  const h = head.data;
  // The version travels back in requests and names what gets installed: it must read as it is.
  if (hasHiddenCharacters(h.version) || /\s/.test(h.version))
    return { ok: false, reason: 'version: has spaces or hidden characters' };
  const official = OfficialMetaSchema.safeParse(response.data._meta?.[OFFICIAL_META_KEY] ?? {});
  const meta = official.success ? official.data : {};
  const problems: string[] = [];
  const list = (value: unknown, what: string): unknown[] => {
    if (value === undefined || value === null) return [];
    if (Array.isArray(value)) return value;
    problems.push(`its ${what} are not a list, so they cannot be read`);
    return [];
  };
  return {
    ok: true,
    doc: {
      name: h.name,
      version: h.version,
      title: h.title,
      description: h.description ?? '',
      websiteUrl: h.websiteUrl,
      repositoryUrl: h.repository?.url,
      packages: list(h.packages, 'packages'),
      remotes: list(h.remotes, 'remotes'),
      problems,
      status: meta.status,
      statusMessage: meta.statusMessage,
      publishedAt: meta.publishedAt,
    },
  };
}

/** How each package or remote runs, in the entry's order, each kind once. */
export function installKinds(doc: ServerDoc): InstallKind[] {
  const kinds: InstallKind[] = [];
  for (const pkg of doc.packages) {
    const type = (pkg as { registryType?: unknown } | null)?.registryType;
    kinds.push(type === 'npm' || type === 'pypi' || type === 'oci' ? type : 'other');
  }
  if (doc.remotes.length > 0) kinds.push('remote');
  return [...new Set(kinds)];
}

/** The list entry for a document: every text display-safe and of a length a list can show. */
export function catalogEntry(doc: ServerDoc): CatalogEntry {
  return {
    name: doc.name,
    version: doc.version,
    title: doc.title ? displayText(clip(doc.title, 100)) : null,
    description: displayText(clip(doc.description, 500)),
    kinds: installKinds(doc),
    status: doc.status && doc.status !== 'active' ? displayText(clip(doc.status, 40)) : null,
  };
}

// clip lives with displayText now (the store's refusals use it too); the catalog's files import it here.
export { clip };

/** An http(s) link to show (repository, website), or null: never a javascript: or file: link. */
export function webLink(url: string | undefined): string | null {
  if (!url || url.length > 2048 || hasHiddenCharacters(url)) return null;
  const parsed = URL.parse(url);
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) return null;
  if (parsed.username || parsed.password) return null;
  return parsed.href;
}
