import { accessSync, constants, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { EditorId } from '../../../shared/editors.ts';
import { describeError } from '../errors.ts';
import type { HomePaths } from '../home.ts';
import { sha256 } from './backups.ts';

// An editor's settings file on disk: read without losing a byte, checked before it is written.

/** An editor's file as read: its text and bytes (undefined: no file), and the file behind its symlinks. */
export interface FileRead {
  kind: 'ok';
  text: string | undefined;
  bytes: Buffer | undefined;
  target: string;
}

export type ReadResult = FileRead | { kind: 'problem'; problem: string };

/**
 * Reads an editor file through symlinks. Refuses what cannot be edited without losing bytes: bytes
 * that are not UTF-8 (decoding would replace them), a symlink to nowhere (writing would replace the
 * link by a file), something that is not a file.
 */
export function readEditorFile(file: string): ReadResult {
  let target = file;
  try {
    const link = lstatSync(file);
    if (link.isSymbolicLink()) {
      try {
        target = realpathSync(file);
      } catch {
        return {
          kind: 'problem',
          problem: `${file} is a symbolic link to a file that does not exist; left unchanged`,
        };
      }
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return { kind: 'ok', text: undefined, bytes: undefined, target: file };
    return { kind: 'problem', problem: `cannot read ${file}: ${describeError(err)}` };
  }
  let bytes: Buffer;
  try {
    if (!statSync(target).isFile())
      return { kind: 'problem', problem: `${file} is not a regular file; left unchanged` };
    bytes = readFileSync(target);
  } catch (err) {
    return { kind: 'problem', problem: `cannot read ${file}: ${describeError(err)}` };
  }
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) {
    return { kind: 'problem', problem: `${file} is not UTF-8 text; left unchanged` };
  }
  return { kind: 'ok', text, bytes, target };
}

/**
 * Whether `target` still holds the bytes read before (undefined: there was no file), checked right
 * before a write's rename: someone else may have changed the file since.
 */
export function unchangedSinceRead(target: string, bytes: Buffer | undefined): boolean {
  const now = readBytes(target);
  return now === undefined ? bytes === undefined : bytes !== undefined && now.equals(bytes);
}

function readBytes(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** A file without write permission is the user's way of saying "do not change this": never forced. */
export function readOnlyProblem(target: string, exists: boolean): string | undefined {
  if (!exists) return undefined;
  try {
    const mode = statSync(target).mode;
    // Checked on the mode bits too: root may write anything, and must still respect a read-only file.
    if ((mode & 0o222) === 0)
      return `${target} is read-only; left unchanged (make it writable to let Switchboard sync it)`;
    accessSync(target, constants.W_OK);
  } catch {
    return `${target} is not writable; left unchanged`;
  }
  return undefined;
}

/** Where the lock of one editor's file lives (per file: an editor's path can change with the env). */
export function editorLockFile(home: Pick<HomePaths, 'run'>, editor: EditorId, file: string): string {
  return join(home.run, 'locks', `editor-${editor}-${sha256(file).slice(0, 12)}.lock`);
}
