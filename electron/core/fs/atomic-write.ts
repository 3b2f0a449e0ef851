import { randomBytes } from 'node:crypto';
import {
  fchmodSync,
  mkdirSync,
  openSync,
  writeSync,
  fsyncSync,
  closeSync,
  renameSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { permissionBits } from './owner-only.ts';
import { realOrAsGiven } from './real-path.ts';

/**
 * Replaces a file's content so that readers see either the old or the new bytes, never a mix:
 * temp file beside the target, fsync, rename. A symlink is followed and its target written (dotfile
 * managers symlink settings files); the file's mode is kept. `beforeRename` runs last, so a caller can
 * re-check that nobody changed the file meanwhile and throw to abandon the write.
 */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number; beforeRename?: (target: string) => void } = {},
): void {
  // A link is written through; a file not there yet (or a dangling link) where it was asked.
  const target = realOrAsGiven(path);
  const dir = dirname(target);
  const kept = options.mode === undefined ? permissionBits(target) : undefined;
  const mode = options.mode ?? kept ?? 0o644;
  // A private file's missing folders are made private too (the home's pins/, cache/, …).
  mkdirSync(dir, { recursive: true, ...((mode & 0o077) === 0 ? { mode: 0o700 } : {}) });
  const temp = join(dir, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', mode);
  try {
    // The umask narrows what open gives: a kept mode is the file's own (0660 stays 0660).
    if (kept !== undefined) fchmodSync(fd, kept);
    writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    options.beforeRename?.(target);
    renameSync(temp, target);
  } catch (err) {
    unlinkSync(temp);
    throw err;
  }
  syncDirectory(dir);
}

/** Makes the rename itself durable; not possible on Windows, where it is skipped. */
function syncDirectory(dir: string): void {
  if (process.platform === 'win32') return;
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on directories; the rename has still happened.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
