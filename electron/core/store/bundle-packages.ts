import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredPackage } from '../../../shared/store.ts';

/** Far more than any real bundle ships; a walk never takes longer than this many folders. */
const MAX_FOLDERS = 50_000;

/**
 * The packages a bundle ships inside it, for its approval ("dependencies: 98"): each node package
 * under a node_modules folder (scoped and nested too) and each Python distribution (`*.dist-info`).
 * Read from the unpacked files; symbolic links are not followed. Nothing of them ever installs or runs
 * a script: they came in the zip.
 */
export function bundlePackages(folder: string): StoredPackage[] {
  const found = new Map<string, StoredPackage>();
  let budget = MAX_FOLDERS;
  const walk = (dir: string, inNodeModules: boolean): void => {
    if (--budget < 0) return;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (!isFolder(path)) continue;
      if (name.endsWith('.dist-info')) {
        const m = /^(.+?)-([^-]+)\.dist-info$/.exec(name);
        if (m) add(found, m[1] ?? name, m[2] ?? '');
        continue;
      }
      if (inNodeModules && name.startsWith('@')) {
        walk(path, true);
        continue;
      }
      if (inNodeModules && !name.startsWith('.')) {
        const pkg = packageJson(path);
        if (pkg) add(found, pkg.name, pkg.version);
      }
      walk(path, name === 'node_modules');
    }
  };
  walk(folder, false);
  return [...found.values()];
}

function add(found: Map<string, StoredPackage>, name: string, version: string): void {
  found.set(`${name}@${version}`, { name, version, installScript: false });
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function packageJson(dir: string): { name: string; version: string } | undefined {
  try {
    const raw = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    return typeof raw.name === 'string' && typeof raw.version === 'string'
      ? { name: raw.name, version: raw.version }
      : undefined;
  } catch {
    return undefined;
  }
}
