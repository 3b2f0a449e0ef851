import { unlinkSync } from 'node:fs';
import { UserError } from '../errors.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import type { HomePaths } from '../home.ts';
import type { Keychain } from '../secrets/keychain.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import { sha256, type BackupMeta, type Backups } from './backups.ts';
import { editorLockFile, readEditorFile, unchangedSinceRead } from './editor-file.ts';
import { withLock } from './lock.ts';

/** What restoring a backup did: which file, whether its bytes are the backup's, what was saved first. */
export interface RestoreResult {
  meta: BackupMeta;
  file: string;
  /** false: a secret in it changed in the keychain since, so the bytes differ from the backup */
  exact: boolean;
  /** the backup of what was there before, if it differed */
  saved: string | undefined;
}

/** What a restore uses of the engine: its backups, the editor settings, and the record of its writes. */
export interface RestoreContext {
  home: Pick<HomePaths, 'run'>;
  backups: Pick<Backups, 'get' | 'content' | 'create'>;
  state: Pick<AppStateStore, 'updateEditorSettings'>;
  /** what this process last wrote per file (sha256), so a watcher can tell its own writes */
  written: Map<string, string>;
}

/**
 * Puts a backup's bytes back (through symlinks, mode kept), after backing up what is there now, and
 * turns sync off for that editor so a running Switchboard does not rewrite it.
 */
export async function restoreBackup(
  ctx: RestoreContext,
  id: string,
  keychain: () => Keychain,
): Promise<RestoreResult> {
  const meta = ctx.backups.get(id);
  const { text, exact } = await ctx.backups.content(meta, keychain);
  const saved = await withLock(editorLockFile(ctx.home, meta.editor, meta.file), () => {
    const read = readEditorFile(meta.file);
    if (read.kind === 'problem') throw new UserError(read.problem);
    const same = read.text === text;
    const before = same
      ? undefined
      : ctx.backups.create({
          editor: meta.editor,
          file: meta.file,
          target: read.target,
          text: read.text,
          reason: 'before-restore',
        }).id;
    if (!same) {
      if (text === undefined) {
        if (read.bytes !== undefined) unlinkSync(read.target);
        ctx.written.set(meta.file, sha256(''));
      } else {
        writeFileAtomic(meta.file, text, {
          ...(read.bytes === undefined ? { mode: 0o600 } : {}),
          beforeRename: (target) => {
            if (!unchangedSinceRead(target, read.bytes))
              throw new UserError(
                `${meta.file} changed while Switchboard was restoring it; nothing was written`,
                { hint: 'try again' },
              );
          },
        });
        ctx.written.set(meta.file, sha256(text));
      }
    }
    return before;
  });
  // The file is what the backup holds now: what import replaced there is in it or not, as it was.
  ctx.state.updateEditorSettings(meta.editor, (s) => {
    s.enabled = false;
    delete s.layout;
    const others = (s.imported ?? []).filter((r) => r.file !== meta.file);
    if (others.length) s.imported = others;
    else delete s.imported;
    if (s.heldBack?.file === meta.file) delete s.heldBack;
  });
  return { meta, file: meta.file, exact, saved };
}
