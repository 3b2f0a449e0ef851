import { chmodSync, statSync } from 'node:fs';

/** The mode a file gets when only its owner may read it: the owner's bits kept, everyone else's gone. */
export function ownerOnly(mode: number): number {
  return mode & ~0o077;
}

/** A file's permission bits (a symlink's target's); undefined when it is not there. */
export function permissionBits(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o7777;
  } catch {
    return undefined;
  }
}

/** Whether others (group or anyone) may read or write the file; false on Windows, which has no such bits. */
export function othersHaveAccess(path: string): boolean {
  if (process.platform === 'win32') return false;
  try {
    return (statSync(path).mode & 0o077) !== 0;
  } catch {
    return false;
  }
}

/**
 * Takes everyone's access but the owner's off a file (a symlink's target), if anyone else has some and
 * `when()` says so. True if it changed anything.
 */
export function makeOwnerOnly(path: string, when: () => boolean = () => true): boolean {
  if (!othersHaveAccess(path) || !when()) return false;
  try {
    chmodSync(path, ownerOnly(statSync(path).mode & 0o7777));
    return true;
  } catch {
    return false;
  }
}
