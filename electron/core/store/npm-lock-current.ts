import semver from 'semver';
import { z } from 'zod';
import type { NpmLock } from './npm-lockfile.ts';

/** What the check needs of a packument (npm's abbreviated form has all of it). */
export const PackumentSchema = z.looseObject({
  'dist-tags': z.record(z.string(), z.string()).optional(),
  versions: z.record(z.string(), z.looseObject({ deprecated: z.unknown().optional() })).optional(),
  /** publish dates (full packuments only) */
  time: z.record(z.string(), z.unknown()).optional(),
});
export type PackumentView = z.infer<typeof PackumentSchema>;

/** A packument by package name, or undefined when the registry would not give it. */
export type PackumentSource = (name: string) => Promise<PackumentView | undefined>;

interface EdgeEntry {
  version?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean } | undefined>;
}

/**
 * Whether npm, resolving `name@range` afresh, would write the same tree as the kept lockfile: true
 * only when every dependency edge of the tree (the root's range too) would pick the very version the
 * lockfile holds for it, which is then the same manifest, with the same edges, down the whole tree.
 * `update` resolves with npm itself; this only lets `outdated` skip npm when nothing could differ.
 * It answers false whenever it is not sure (a packument it cannot get, a range it does not read, a
 * version npm keeps for another reason than being the pick, e.g. deduplicated): those go to npm.
 */
export async function lockStillCurrent(
  lock: NpmLock,
  spec: { name: string; range: string },
  packuments: PackumentSource,
): Promise<boolean> {
  const packages = lock.packages as Record<string, EdgeEntry>;
  const root = packages[''];
  if (root?.dependencies?.[spec.name] !== spec.range) return false;
  const edges: { from: string; name: string; range: string; optional: boolean }[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    if (entry.link) return false;
    const meta = entry.peerDependenciesMeta ?? {};
    for (const [name, range] of Object.entries(entry.dependencies ?? {}))
      edges.push({ from: path, name, range, optional: false });
    for (const [name, range] of Object.entries(entry.optionalDependencies ?? {}))
      edges.push({ from: path, name, range, optional: true });
    for (const [name, range] of Object.entries(entry.peerDependencies ?? {}))
      edges.push({ from: path, name, range, optional: meta[name]?.optional === true });
  }
  const checks = edges.map(async (edge) => {
    const found = locate(packages, edge.from, edge.name);
    if (found === undefined) return edge.optional;
    const packument = await packuments(edge.name);
    return packument !== undefined && wouldPick(packument, edge.range) === found;
  });
  return (await Promise.all(checks)).every(Boolean);
}

/** The locked version an edge from `from` reaches (Node's lookup: own node_modules, then upwards). */
function locate(packages: Record<string, EdgeEntry>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const entry = packages[base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`];
    if (entry) return entry.link ? undefined : entry.version;
    if (base === '') return undefined;
    const at = base.lastIndexOf('/node_modules/');
    base = at < 0 ? '' : base.slice(0, at);
  }
}

/**
 * The version npm picks for a range (npm-pick-manifest's first rule): the tag's version for a tag;
 * `latest` when it satisfies the range; else the highest satisfying one. A deprecated pick is left
 * to npm (it would avoid it), as is anything that is not a plain range or tag (git, files, aliases).
 */
function wouldPick(packument: PackumentView, range: string): string | undefined {
  const tags = packument['dist-tags'] ?? {};
  const versions = Object.keys(packument.versions ?? {});
  let pick: string | undefined;
  const spec = range.trim() === '' ? '*' : range;
  if (semver.validRange(spec, { loose: true }) !== null) {
    const latest = tags.latest;
    pick =
      latest !== undefined && versions.includes(latest) && semver.satisfies(latest, spec, { loose: true })
        ? latest
        : (semver.maxSatisfying(versions, spec, { loose: true }) ?? undefined);
  } else if (/^[a-zA-Z][\w.-]*$/.test(spec)) {
    pick = tags[spec];
  }
  if (pick === undefined || packument.versions?.[pick]?.deprecated) return undefined;
  return pick;
}
