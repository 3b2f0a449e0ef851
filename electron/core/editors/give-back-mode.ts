import { chmodSync, readFileSync, statSync } from 'node:fs';
import type { EditorId } from '../../../shared/editors.ts';
import { ownerOnly } from '../fs/owner-only.ts';
import type { Backups } from './backups.ts';

/**
 * After unsync wrote an editor's file: gives back the permission bits it had before Switchboard first
 * changed it (its original backup's), when Switchboard is what narrowed them (the file is exactly
 * those bits made owner-only) and no bridge token of this editor is left in it (a person's own copy of
 * an entry keeps it private). A mode the person set since is theirs, and kept. True if it changed.
 */
export function giveBackMode(
  backups: Pick<Backups, 'list'>,
  editor: EditorId,
  target: string,
  token: string | undefined,
): boolean {
  if (process.platform === 'win32') return false;
  const original = backups
    .list()
    .find((b) => b.reason === 'original' && b.editor === editor && b.target === target);
  if (original?.mode === undefined) return false;
  try {
    const now = statSync(target).mode & 0o7777;
    if (now === original.mode || now !== ownerOnly(original.mode)) return false;
    if (token !== undefined && readFileSync(target, 'utf8').includes(token)) return false;
    chmodSync(target, original.mode);
    return true;
  } catch {
    // gone or unreadable meanwhile: nothing to give back
    return false;
  }
}
