import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';

/**
 * How the store knows an install is still what was installed, cheaply at every start:
 * - `content`: sha256 over every file's path, type, exec bit and bytes (and every link's target),
 *   taken once after installing;
 * - `stat`: sha256 over every entry's inode, size, mode, mtime and ctime. Any write, chmod, rename or
 *   added/removed entry changes a ctime (which no program can set back), so comparing this one is
 *   enough at start: one lstat per entry, no reading.
 * When the stat stamp differs (a copy or restore of the home changes every ctime too), the content is
 * hashed again: the same content is accepted (and re-stamped); anything else is a changed store.
 */
export interface TreeStamp {
  /** paths inside the install, sorted, folders included ("" is the install's own folder) */
  paths: string[];
  content: string;
  stat: string;
}

export function stampTree(root: string): TreeStamp {
  const paths = listTree(root);
  return { paths, content: contentDigest(root, paths), stat: statDigest(root, paths) ?? '' };
}

export type TreeCheck = { ok: true; restamped?: TreeStamp } | { ok: false; changed: string };

/** Checks an install against its stamp: the quick stat comparison, then the content if need be. */
export function checkTree(root: string, stamp: TreeStamp): TreeCheck {
  if (statDigest(root, stamp.paths) === stamp.stat) return { ok: true };
  const paths = listTree(root);
  if (paths.join('\0') !== stamp.paths.join('\0')) {
    const before = new Set(stamp.paths);
    const now = new Set(paths);
    const added = paths.find((p) => !before.has(p));
    const removed = stamp.paths.find((p) => !now.has(p));
    return {
      ok: false,
      changed: added !== undefined ? `${added} was added` : `${removed ?? '?'} was removed`,
    };
  }
  if (contentDigest(root, paths) !== stamp.content) {
    return { ok: false, changed: firstChangedFile(root, paths, stamp) };
  }
  return { ok: true, restamped: { paths, content: stamp.content, stat: statDigest(root, paths) ?? '' } };
}

function listTree(root: string): string[] {
  const out: string[] = [''];
  const walk = (rel: string) => {
    for (const dirent of readdirSync(join(root, rel), { withFileTypes: true })) {
      const path = rel === '' ? dirent.name : `${rel}/${dirent.name}`;
      out.push(path);
      if (dirent.isDirectory()) walk(path);
    }
  };
  walk('');
  return out.sort();
}

/** undefined when an entry is gone */
function statDigest(root: string, paths: readonly string[]): string | undefined {
  const hash = createHash('sha256');
  for (const path of paths) {
    let s: BigIntStats;
    try {
      s = lstatSync(join(root, path), { bigint: true });
    } catch {
      return undefined;
    }
    hash.update(`${path}\0${s.ino}\0${s.size}\0${s.mode}\0${s.mtimeNs}\0${s.ctimeNs}\n`);
  }
  return hash.digest('hex');
}

function entryDigest(root: string, path: string): string {
  const full = join(root, path);
  const s = lstatSync(full);
  if (s.isSymbolicLink()) return `l ${readlinkSync(full)}`;
  if (s.isDirectory()) return 'd';
  const exec = (s.mode & 0o111) !== 0 ? 'x' : '-';
  return `f${exec} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`;
}

function contentDigest(root: string, paths: readonly string[]): string {
  const hash = createHash('sha256');
  for (const path of paths) hash.update(`${path}\0${entryDigest(root, path)}\n`);
  return hash.digest('hex');
}

/** Names a file whose content differs (the stamp keeps only the total, so this says which kind). */
function firstChangedFile(root: string, paths: readonly string[], _stamp: TreeStamp): string {
  // Without per-file hashes on record, the newest change is the best pointer.
  let newest = { path: '', ctime: -1n };
  for (const path of paths) {
    const s = lstatSync(join(root, path), { bigint: true });
    if (s.isFile() && s.ctimeNs > newest.ctime) newest = { path, ctime: s.ctimeNs };
  }
  return newest.path ? `a file changed (most recently ${newest.path})` : 'a file changed';
}
