import { unlinkSync } from 'node:fs';
import type { EditorId } from '../../../shared/editors.ts';
import { describeError } from '../errors.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { othersHaveAccess, ownerOnly, permissionBits } from '../fs/owner-only.ts';
import { sha256, type Backups, type SecretSpan } from './backups.ts';
import { readOnlyProblem, unchangedSinceRead, type FileRead } from './editor-file.ts';
import type { SyncRun } from './sync-run.ts';
import type { EditorAdapter } from './types.ts';

/** What writing an editor's file uses: the backups, and the record of this process's writes. */
export interface FileWriteContext {
  backups: Pick<Backups, 'create'>;
  /** what this process last wrote per file (sha256), so a watcher can tell its own writes */
  written: Map<string, string>;
  /** tests: runs right before each write's rename (after the re-check's read) */
  beforeRename?: ((editor: EditorId, target: string, attempt: number) => void) | undefined;
}

export interface FileWrite {
  adapter: Pick<EditorAdapter, 'id' | 'tokenInFile'>;
  file: string;
  /** the file as read before planning */
  read: FileRead;
  /** the text to write; undefined: the file goes */
  next: string | undefined;
  /** the editor's bridge token, if its entries asked for it */
  token: string | undefined;
  /** import replaced user entries: the file before is backed up (if no original backup is taken now) */
  adopted: boolean;
  /** import: the literal secrets (already in the keychain) to keep out of the backup */
  secretsIn: ((text: string) => SecretSpan[]) | undefined;
  run: SyncRun;
  attempt: number;
}

export type WriteOutcome =
  | { kind: 'written'; backups: string[]; madePrivate: boolean }
  /** someone else changed the file since it was read: nothing was written, the caller tries again */
  | { kind: 'conflict' }
  | { kind: 'failed'; problem: string; backups: string[] };

class Conflict extends Error {}

/**
 * Writes (or removes) an editor's file: never a read-only one; its original backed up once (and the
 * file before an import); owner-only when it holds the token; atomically through symlinks, the
 * mode kept, re-checked right before the rename that nobody changed it since it was read.
 */
export function writeEditorFile(ctx: FileWriteContext, job: FileWrite): WriteOutcome {
  const { adapter, file, read, next, token } = job;
  const readOnly = readOnlyProblem(read.target, read.bytes !== undefined);
  if (readOnly) return { kind: 'failed', problem: readOnly, backups: [] };

  const backups: string[] = [];
  // The mode too: unsync gives it back once no token is left in the file (give-back-mode.ts); none
  // when the file went meanwhile (the write's re-check says so).
  const fileMode = read.bytes === undefined ? undefined : permissionBits(read.target);
  const backUp = (reason: 'original' | 'import', secrets: SecretSpan[]) =>
    backups.push(
      ctx.backups.create({
        editor: adapter.id,
        file,
        target: read.target,
        text: read.text,
        reason,
        secrets,
        mode: fileMode,
      }).id,
    );
  if (!job.run.hasOriginal(adapter.id, read.target))
    backUp('original', read.text === undefined ? [] : (job.secretsIn?.(read.text) ?? []));
  if (job.adopted && read.text !== undefined && backups.length === 0)
    backUp('import', job.secretsIn?.(read.text) ?? []);

  // A file that holds this editor's bridge token is readable by its owner only. One whose entries
  // get the token another way (a relay, a header helper, a reference to the token file) keeps its
  // mode: it is no credential. A new file is owner-only anyway.
  let madePrivate = false;
  let mode: number | undefined = read.bytes === undefined ? 0o600 : undefined;
  if (
    mode === undefined &&
    adapter.tokenInFile &&
    token !== undefined &&
    othersHaveAccess(read.target) &&
    (next ?? '').includes(token)
  ) {
    mode = ownerOnly(fileMode ?? 0o600);
    madePrivate = true;
  }
  const unchangedSince = (target: string) => {
    ctx.beforeRename?.(adapter.id, target, job.attempt);
    if (!unchangedSinceRead(target, read.bytes)) throw new Conflict();
  };
  try {
    if (next === undefined) {
      unchangedSince(read.target);
      unlinkSync(read.target);
      ctx.written.set(file, sha256(''));
    } else {
      writeFileAtomic(file, next, {
        beforeRename: unchangedSince,
        ...(mode === undefined ? {} : { mode }),
      });
      ctx.written.set(file, sha256(next));
    }
  } catch (err) {
    if (err instanceof Conflict) return { kind: 'conflict' };
    return { kind: 'failed', problem: `could not write ${file}: ${describeError(err)}`, backups };
  }
  return { kind: 'written', backups, madePrivate };
}
