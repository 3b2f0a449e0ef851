import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { EditorIdSchema, type EditorId } from '../../../shared/editors.ts';
import { SecretSpanSchema } from '../../../shared/schema/state.ts';
import { UserError } from '../errors.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import type { Keychain } from '../secrets/keychain.ts';
import { secretReference } from '../secrets/references.ts';
import { cutSecrets, fillSecrets, inJsonString, type SecretSpan } from './secret-spans.ts';
import { compareNames } from '../text-order.ts';

/**
 * backups/: an editor file's bytes before Switchboard first changed it ("original"), before import
 * replaced entries the user wrote ("import"), and before a restore overwrote it ("before-restore").
 * Each backup is <id>.json (what, where, when, sha256 of the bytes) plus <id>.bak (the bytes), both
 * readable only by the user.
 *
 * A literal secret that import moved into the keychain is not kept in a backup either: its text is
 * replaced by `${secret:NAME}` in the stored copy and its place recorded, so a restore puts the exact
 * original bytes back (reading the value from the keychain) while no file holds the secret.
 */

export const BACKUP_REASONS = ['original', 'import', 'before-restore'] as const;

export const BackupMetaSchema = z.object({
  id: z.string(),
  editor: EditorIdSchema,
  /** the editor's settings file, as Switchboard locates it */
  file: z.string(),
  /** the file actually written (symlinks followed) */
  target: z.string(),
  createdAt: z.number(),
  reason: z.enum(BACKUP_REASONS),
  /** false: there was no file (restoring removes it) */
  existed: z.boolean(),
  /** sha256 of the original bytes, secrets included */
  sha256: z.string(),
  size: z.number().int(),
  /** secrets cut out of the stored copy: where the placeholder stands, and the keychain name */
  secrets: z.array(SecretSpanSchema).default([]),
  /**
   * the file's permission bits when it was backed up (an original: before Switchboard made it
   * owner-only), so unsync can give them back; absent in backups of older versions
   */
  mode: z.number().int().min(0).max(0o7777).optional(),
});
export type BackupMeta = z.infer<typeof BackupMetaSchema>;
export type BackupReason = BackupMeta['reason'];

export type { SecretSpan };

export class Backups {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /**
   * Stores `text` (undefined: there was no file). `secrets` are spans of `text` holding literal secrets
   * already in the keychain: they are stored as references, never as values.
   */
  create(input: {
    editor: EditorId;
    file: string;
    target: string;
    text: string | undefined;
    reason: BackupReason;
    secrets?: SecretSpan[];
    /** the file's permission bits, when it exists */
    mode?: number | undefined;
    now?: number;
  }): BackupMeta {
    this.#ensureDir();
    const now = input.now ?? Date.now();
    const id = this.#newId(input.editor, now);
    const bytes = input.text === undefined ? Buffer.alloc(0) : Buffer.from(input.text, 'utf8');
    const { text: stored, secrets: spans } = cutSecrets(input.text ?? '', input.secrets ?? []);
    const meta: BackupMeta = {
      id,
      editor: input.editor,
      file: input.file,
      target: input.target,
      createdAt: now,
      reason: input.reason,
      existed: input.text !== undefined,
      sha256: sha256(bytes),
      size: bytes.length,
      secrets: spans,
      ...(input.mode === undefined ? {} : { mode: input.mode }),
    };
    // The bytes go to a fresh name (no temp file needed) and are fsync'ed; the metadata is written
    // last, atomically, and its folder fsync makes both names durable: a backup without its .json is
    // an interrupted one and never listed.
    if (input.text !== undefined) writeDurably(this.#bak(id), stored);
    writeFileAtomic(this.#meta(id), JSON.stringify(meta, null, 2) + '\n', { mode: 0o600 });
    return meta;
  }

  /** Every backup, newest first. */
  list(): BackupMeta[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    const metas: BackupMeta[] = [];
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      try {
        const parsed = BackupMetaSchema.safeParse(JSON.parse(readFileSync(join(this.dir, name), 'utf8')));
        if (parsed.success) metas.push(parsed.data);
      } catch {
        // a half-written or foreign file: not a backup
      }
    }
    return metas.sort((a, b) => b.createdAt - a.createdAt || compareNames(b.id, a.id));
  }

  get(id: string): BackupMeta {
    if (!/^[A-Za-z0-9._-]+$/.test(id))
      throw new UserError(`"${id}" is not a backup id`, { hint: 'see: switchboard backups list' });
    const found = this.list().find((b) => b.id === id);
    if (!found)
      throw new UserError(`no backup "${id}" in ${this.dir}`, { hint: 'see: switchboard backups list' });
    return found;
  }

  /**
   * The backup's original bytes (undefined when there was no file), with secrets read back from the
   * keychain. `exact` is false if they no longer hash to what was backed up (a secret changed since).
   */
  async content(
    meta: BackupMeta,
    keychain: () => Keychain,
  ): Promise<{ text: string | undefined; exact: boolean }> {
    if (!meta.existed) return { text: undefined, exact: true };
    const values = new Map<string, string>();
    for (const name of new Set(meta.secrets.map((s) => s.name))) {
      const value = await keychain().get(name);
      if (value === undefined) {
        throw new UserError(
          `backup ${meta.id} needs secret "${name}" from the keychain, and it is not there`,
          {
            hint: `store it again with: switchboard secret set ${name}`,
          },
        );
      }
      values.set(name, inJsonString(value));
    }
    const text = fillSecrets(
      readFileSync(this.#bak(meta.id), 'utf8'),
      meta.secrets,
      (name) => values.get(name) ?? '',
    );
    return { text, exact: sha256(Buffer.from(text, 'utf8')) === meta.sha256 };
  }

  /**
   * Replaces every copy of a literal secret's text in every stored backup by its reference (after
   * import moved it into the keychain), so no backup keeps it either. Returns how many changed.
   */
  scrub(raw: string, name: string): number {
    if (raw.length < 8) return 0; // too short to be told from ordinary text safely
    let changed = 0;
    for (const meta of this.list()) {
      if (!meta.existed) continue;
      const stored = readFileSync(this.#bak(meta.id), 'utf8');
      if (!stored.includes(raw)) continue;
      const spans: SecretSpan[] = [];
      let from = 0;
      for (let at = stored.indexOf(raw, from); at >= 0; at = stored.indexOf(raw, from)) {
        const inside = meta.secrets.some((s) => at < s.offset + s.length && at + raw.length > s.offset);
        if (!inside) spans.push({ name, offset: at, length: raw.length });
        from = at + raw.length;
      }
      if (spans.length === 0) continue;
      let text = stored;
      let secrets = meta.secrets.map((s) => ({ ...s }));
      for (const span of spans.sort((a, b) => b.offset - a.offset)) {
        const placeholder = secretReference(name);
        text = text.slice(0, span.offset) + placeholder + text.slice(span.offset + span.length);
        const delta = placeholder.length - span.length;
        secrets = secrets.map((s) => (s.offset > span.offset ? { ...s, offset: s.offset + delta } : s));
        secrets.push({ name, offset: span.offset, length: placeholder.length });
      }
      writeFileAtomic(this.#bak(meta.id), text, { mode: 0o600 });
      const updated: BackupMeta = { ...meta, secrets: secrets.sort((a, b) => a.offset - b.offset) };
      writeFileAtomic(this.#meta(meta.id), JSON.stringify(updated, null, 2) + '\n', { mode: 0o600 });
      changed++;
    }
    return changed;
  }

  #ensureDir(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
  }

  #newId(editor: EditorId, now: number): string {
    const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace('.', '-');
    let id = `${stamp}-${editor}`;
    while (existsSync(this.#meta(id)) || existsSync(this.#bak(id)))
      id = `${stamp}-${editor}-${randomBytes(2).toString('hex')}`;
    return id;
  }

  #meta(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  #bak(id: string): string {
    return join(this.dir, `${id}.bak`);
  }
}

/** Writes a new file (it must not exist) and fsyncs it. */
function writeDurably(path: string, text: string): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, Buffer.from(text, 'utf8'));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
