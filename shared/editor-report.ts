import { z } from 'zod';
import { EditorIdSchema } from './editors.ts';

/**
 * What a sync (or unsync) did to one editor's file: `written`, `up-to-date`, `would-write` (dry run),
 * `skipped` (and why: `reason`), or `failed` (Switchboard tried and could not: `message` says why).
 * Only `failed` makes `sync` exit 1.
 */
export const EditorOutcomeSchema = z.enum(['written', 'up-to-date', 'would-write', 'skipped', 'failed']);
export type EditorOutcome = z.infer<typeof EditorOutcomeSchema>;

/**
 * Why an editor was skipped: sync is turned off for it (`switchboard sync --all` turns it back on),
 * it is not installed, or its file does not parse (left as it is; `location` says where).
 */
export const EditorSkipReasonSchema = z.enum(['sync-off', 'not-installed', 'unparseable']);
export type EditorSkipReason = z.infer<typeof EditorSkipReasonSchema>;

/** One editor's line of a sync or unsync report (`sync --json`, `unsync --json`, the control API). */
export const EditorFileReportSchema = z.object({
  editor: EditorIdSchema,
  label: z.string(),
  file: z.string(),
  outcome: EditorOutcomeSchema,
  /** set when skipped */
  reason: EditorSkipReasonSchema.nullable(),
  /** why it was skipped or failed, or a note (a name clash), in words with what to do */
  message: z.string().nullable(),
  /** where an unparseable file stops parsing (1-based) */
  location: z.object({ line: z.number().int(), column: z.number().int() }).nullable(),
  /** the servers this editor gets */
  servers: z.array(z.string()),
  added: z.array(z.string()),
  updated: z.array(z.string()),
  removed: z.array(z.string()),
  /** the user's own entries of those names: kept, the server is not added */
  clashes: z.array(z.string()),
  /** import: the user's own entries replaced by managed ones */
  adopted: z.array(z.string()),
  /** unsync: the user's entries import had replaced, given back */
  restored: z.array(z.string()),
  /** unsync: secrets written back into the file as plain text, at the person's request */
  secretsPutBack: z.array(z.string()),
  /** unsync: secrets left in the keychain; their places in the file say how to put them back */
  secretsHeldBack: z.array(z.string()),
  /** backups taken now (`switchboard backups restore ID`) */
  backups: z.array(z.string()),
  /** things to know once: restart the editor, file made owner-only, Gemini CLI's folder trust */
  notices: z.array(z.string()),
  /** dry run: the unified diff (tokens and literal secrets hidden) */
  diff: z.string().nullable(),
});
export type EditorFileReport = z.infer<typeof EditorFileReportSchema>;

/** `switchboard sync --json` */
export const SyncCliResultSchema = z.object({
  dryRun: z.boolean(),
  /** a running Switchboard did the writing */
  throughInstance: z.boolean(),
  editors: z.array(EditorFileReportSchema),
});
export type SyncCliResult = z.infer<typeof SyncCliResultSchema>;

/** `switchboard unsync --json` */
export const UnsyncCliResultSchema = z.object({
  editors: z.array(EditorFileReportSchema),
  /** the editors sync is now off for (`switchboard sync --all` turns it back on) */
  syncOff: z.array(EditorIdSchema),
});
export type UnsyncCliResult = z.infer<typeof UnsyncCliResultSchema>;

/** One server found in an editor's file that Switchboard does not manage (`import --json`). */
export const ImportCandidateListingSchema = z.object({
  editor: EditorIdSchema,
  label: z.string(),
  /** its name in the editor's file */
  entry: z.string(),
  /** importable; cannot-import (`problem` says why); already in servers.json; the same server as an earlier one */
  verdict: z.enum(['importable', 'cannot-import', 'already-imported', 'duplicate']),
  /** the name it gets (or has) in servers.json */
  name: z.string(),
  problem: z.string().nullable(),
  duplicateOf: z.string().nullable(),
  /**
   * already-imported or duplicate: the env variables (headers) and `cwd` it sets differently from the
   * server it maps to, whose values the editor then gets (names only, compared as written)
   */
  differs: z.array(z.string()),
  /** the same, said for a person: what the editor will get and how to keep this one (null: none) */
  differenceNote: z.string().nullable(),
  /** the keys whose literal secrets move into the keychain (env variable, header, `args[N]`, `url`) */
  movesToKeychain: z.array(z.string()),
  /** what it runs, line by line, as the listing shows it (secret values never shown) */
  shows: z.array(z.string()),
  /** the program its approval pins (stdio, importable only) */
  runs: z.string().nullable(),
});
export type ImportCandidateListing = z.infer<typeof ImportCandidateListingSchema>;

/** What an import did: servers added and approved, secrets moved, editors' files, entries left. */
export const ImportDoneSchema = z.object({
  servers: z.array(z.string()),
  secrets: z.array(z.object({ name: z.string(), server: z.string(), key: z.string() })),
  editors: z.array(EditorFileReportSchema),
  skipped: z.array(z.object({ editor: EditorIdSchema, entry: z.string(), problem: z.string() })),
});
export type ImportDone = z.infer<typeof ImportDoneSchema>;

/** `switchboard import --json` (with `--yes`: `imported` says what was done) */
export const ImportCliResultSchema = z.object({
  candidates: z.array(ImportCandidateListingSchema),
  /** editors whose file could not be read */
  problems: z.array(z.object({ editor: EditorIdSchema, message: z.string() })),
  imported: ImportDoneSchema.nullable(),
});
export type ImportCliResult = z.infer<typeof ImportCliResultSchema>;

// ---- the CLI's editor commands through a running Switchboard --------------------------------------
// While `switchboard serve` (or the desktop app) runs, it alone writes editors' files and state.json:
// `sync`, `unsync`, `import` and `backups restore` from the CLI ask it to (control token only), so its
// drift repair and the command never work on the same files at once.

export const EditorCliRoutes = {
  /** POST EditorsUnsyncRequest → EditorsUnsyncResult */
  unsync: '/api/editors/unsync',
  /** POST ImportRequest → ImportDone */
  import: '/api/editors/import',
  /** POST BackupRestoreRequest → BackupRestoreResult */
  restore: '/api/editors/restore-backup',
} as const;

export const EditorsUnsyncRequestSchema = z
  .object({
    /** absent: every editor (sync is turned off for each, installed or not) */
    editors: z.array(EditorIdSchema).optional(),
    restoreSecrets: z.boolean(),
  })
  .strict();
export type EditorsUnsyncRequest = z.infer<typeof EditorsUnsyncRequestSchema>;
export const EditorsUnsyncResultSchema = z.object({ editors: z.array(EditorFileReportSchema) });
export type EditorsUnsyncResult = z.infer<typeof EditorsUnsyncResultSchema>;

export const ImportRequestSchema = z
  .object({
    from: z.array(EditorIdSchema).optional(),
    /**
     * the listing the person was shown (`importListing` of it): refused if the editors' files say
     * something else by now, so what is imported and approved is exactly what was shown
     */
    listing: z.string(),
  })
  .strict();
export type ImportRequest = z.infer<typeof ImportRequestSchema>;

export const BackupRestoreRequestSchema = z.object({ backup: z.string().max(200) }).strict();
export const BackupRestoreResultSchema = z.object({
  editor: EditorIdSchema,
  file: z.string(),
  /** false: the file did not exist when the backup was taken (it was removed now) */
  existed: z.boolean(),
  /** false: a secret in it changed in the keychain since, so the bytes differ from the backup */
  exact: z.boolean(),
  /** the backup of what was there before the restore */
  saved: z.string().nullable(),
});
export type BackupRestoreResult = z.infer<typeof BackupRestoreResultSchema>;
