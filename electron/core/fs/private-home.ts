import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { HomePaths } from '../home.ts';
import { ownerOnly } from './owner-only.ts';

/** The home's folders whose contents are not Switchboard's to tighten, only the folders themselves. */
const NOT_OURS_INSIDE = new Set(['data', 'store']);

/**
 * The Switchboard home is this user's alone: folders 0700 and files 0600 (an executable of ours, the
 * editors' header helper, stays 0700). servers.json names every server and what it runs, logs/ holds
 * what servers print, pins/ and cache/ what they said: another user must not list or read them.
 *
 * Run at every start (the core's construction), before anything is written: it makes the home if need
 * be, and tightens one made before this rule or by a tool that followed the umask (group and other
 * bits are taken off; nothing is loosened). Inside data/ (each server's own folder) and store/ only
 * the folders are tightened: what a server keeps there is its own, and no one else can reach it once
 * the folder is 0700. Symlinks are left alone (a chmod would change what they point at). Windows has
 * no such modes: the home sits in the user's own profile there.
 */
export function makeHomePrivate(home: Pick<HomePaths, 'root'>, platform = process.platform): void {
  mkdirSync(home.root, { recursive: true, mode: 0o700 });
  if (platform === 'win32') return;
  tighten(home.root, 'deep');
}

/** Creates `dir` (and missing parents) 0700, or takes group and other bits off one that exists. */
export function makePrivateDir(dir: string, platform = process.platform): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (platform !== 'win32') tighten(dir, 'self');
}

function tighten(path: string, depth: 'deep' | 'children' | 'self'): void {
  let mode: number;
  let isDir: boolean;
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    mode = stat.mode & 0o7777;
    isDir = stat.isDirectory();
  } catch {
    return; // gone meanwhile
  }
  const wanted = isDir ? 0o700 : ownerOnly(mode);
  if (mode !== wanted) {
    try {
      chmodSync(path, wanted);
    } catch {
      // not ours to change (owned by another user): nothing more to do here
    }
  }
  if (!isDir || depth === 'self') return;
  let names: string[];
  try {
    names = readdirSync(path);
  } catch {
    return;
  }
  for (const name of names) {
    const child = join(path, name);
    if (depth === 'children') tighten(child, 'self');
    else tighten(child, NOT_OURS_INSIDE.has(name) ? 'children' : 'deep');
  }
}
