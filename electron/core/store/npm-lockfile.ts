import { createHash } from 'node:crypto';
import { canonicalJson } from '../trust/canonical-json.ts';
import type { StoredPackage } from '../../../shared/store.ts';
import { compareNames } from '../text-order.ts';

/** One package of a package-lock.json (v2/v3) `packages` map, the fields the store reads. */
interface LockEntry {
  name?: string;
  version?: string;
  resolved?: string;
  integrity?: string;
  bin?: Record<string, string>;
  hasInstallScript?: boolean;
  link?: boolean;
  dependencies?: Record<string, string>;
}

export interface NpmLock {
  /** the lockfile as npm wrote it (what `npm ci` installs from) */
  text: string;
  /** sha256 of the canonical JSON of its `packages`: the whole tree with every integrity hash */
  hash: string;
  packages: Record<string, LockEntry>;
}

/** The name the store's own root package has in every lockfile it writes. */
export const STORE_ROOT_NAME = 'switchboard-store-install';

export function parseLock(text: string): NpmLock {
  const parsed = JSON.parse(text) as { lockfileVersion?: number; packages?: Record<string, LockEntry> };
  if (!parsed.packages || (parsed.lockfileVersion ?? 0) < 2)
    throw new Error('not a package-lock.json of lockfileVersion 2 or later');
  return { text, hash: lockHash(parsed.packages), packages: parsed.packages };
}

export function lockHash(packages: unknown): string {
  return createHash('sha256').update(canonicalJson(packages)).digest('hex');
}

/**
 * sha256 of the tree alone: the lockfile's `packages` without the store's root entry, which records
 * only the range written (`latest`, `^1.2.3`). Two resolutions to the same tree have the same one, so
 * they share one install (package-store.ts installId).
 */
export function treeHash(packages: Record<string, unknown>): string {
  return lockHash(Object.fromEntries(Object.entries(packages).filter(([path]) => path !== '')));
}

/** The package name of a `packages` key (`node_modules/a/node_modules/@s/b` → `@s/b`). */
function nameOfPath(path: string, entry: LockEntry): string {
  if (entry.name) return entry.name;
  const at = path.lastIndexOf('node_modules/');
  return path.slice(at + 'node_modules/'.length);
}

/** Every installed package of the tree but the store's root, sorted (name@version, scripts). */
export function lockPackages(lock: NpmLock): StoredPackage[] {
  const out: StoredPackage[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.link) continue;
    out.push({
      name: nameOfPath(path, entry),
      version: entry.version ?? '',
      installScript: entry.hasInstallScript === true,
    });
  }
  return out.sort((a, b) => compareNames(a.name, b.name) || compareNames(a.version, b.version));
}

/** The top-level package the server is (the one the person named). */
export function lockRoot(lock: NpmLock, name: string): LockEntry | undefined {
  return lock.packages[`node_modules/${name}`];
}

/**
 * The bin npx would run for the package (libnpmexec's rule): the one named like the package (without
 * its scope), else the only one (or several names for one file); `wanted` when the line names one.
 * Returns its path inside the package, or a reason there is none.
 */
export function pickBin(
  name: string,
  bin: Record<string, string> | undefined,
  wanted: string | undefined,
): { bin: string; path: string } | { problem: string } {
  const bins = bin ?? {};
  if (wanted !== undefined) {
    const path = bins[wanted];
    return path ? { bin: wanted, path } : { problem: `${name} has no program named "${wanted}"` };
  }
  const files = new Set(Object.values(bins));
  const first = Object.entries(bins)[0];
  if (files.size === 1 && first) return { bin: first[0], path: first[1] };
  const own = name.replace(/^@[^/]+\//, '');
  const path = bins[own];
  if (path) return { bin: own, path };
  return {
    problem:
      files.size === 0
        ? `${name} has no program to run (no "bin" in its package.json)`
        : `${name} has several programs (${Object.keys(bins).join(', ')}) and none is named like it: name one with npx -p ${name} PROGRAM`,
  };
}
