import type { EditorId } from '../../../shared/editors.ts';
import type { EditorSettings } from '../../../shared/schema/state.ts';
import { describeError } from '../errors.ts';
import { makeOwnerOnly } from '../fs/owner-only.ts';
import { withoutSecrets } from '../secrets/diff-secrets.ts';
import type { TokenStore } from '../tokens/token-store.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import type { Backups, SecretSpan } from './backups.ts';
import { editorLockFile, readEditorFile } from './editor-file.ts';
import { recordLayout } from './file-record.ts';
import { writeEditorFile, type FileWriteContext } from './file-write.ts';
import { afterGiveBack, fillHeldBack, importRecord, type GiveBack } from './give-back.ts';
import { giveBackMode } from './give-back-mode.ts';
import { ensureHeadersHelper } from './headers-helper.ts';
import { withLock } from './lock.ts';
import { existingToken, managedEntries, TokenOnDemand, type EntrySources } from './managed-entries.ts';
import { ownsEntry } from './ownership.ts';
import { ownAfter, planNote, planSummary } from './plan-summary.ts';
import { blankReport, type EditorReport } from './report.ts';
import type { SyncRun } from './sync-run.ts';
import type { EditorAdapter, OwnershipContext } from './types.ts';

/** What a sync is asked to do besides making entries right (`editors` is the engine's; the rest each file's). */
export interface SyncRequest {
  /** only these editors (they are written even if not detected, and turned back on) */
  editors?: readonly EditorId[] | undefined;
  dryRun?: boolean;
  /** import: user entries to replace by managed ones, per editor (entry name → server name) */
  adopt?: ReadonlyMap<EditorId, ReadonlyMap<string, string>>;
  /** import: literal secrets (already in the keychain) to keep out of the backup, per editor */
  secretsInFile?: ReadonlyMap<EditorId, (text: string) => SecretSpan[]>;
  /** set by unsync, for its one editor */
  giveBack?: GiveBack;
}

/** What syncing one editor's file uses of the engine. */
export interface FileSyncContext extends EntrySources, FileWriteContext {
  /** listed too: unsync gives back a file's mode from its original backup */
  backups: Pick<Backups, 'create' | 'list'>;
  tokens: Pick<TokenStore, 'get' | 'ensure' | 'dir'>;
  state: Pick<AppStateStore, 'updateEditorSettings'>;
  /** the editor's settings as state.json has them now */
  currentSettings(editor: EditorId): EditorSettings;
  /** whose each entry of the editor's file is, by these settings */
  ownership(editor: EditorId, settings: EditorSettings): OwnershipContext;
  /** whether the editor is running (for its restart notice); undefined: cannot tell */
  isRunning(adapter: EditorAdapter): Promise<boolean | undefined>;
  /** how many times a write is retried when someone else changes the file meanwhile */
  attempts: number;
  /** how long to wait for another Switchboard's lock on the same file */
  lockTimeoutMs: number;
}

/** One editor's file to sync: the entries it gets (`names`), with the editor's settings as read. */
export interface FileSyncJob {
  adapter: EditorAdapter;
  file: string;
  names: string[];
  request: SyncRequest;
  settings: EditorSettings;
  run: SyncRun;
}

/**
 * Makes one editor's file hold exactly the managed entries of `names`: under the file's lock, read,
 * plan (pure, see file-format.ts), write (file-write.ts). When someone else changed the file between
 * the read and the write, nothing is written and the whole step is tried again, a few times, then
 * reported.
 */
export async function syncFile(ctx: FileSyncContext, job: FileSyncJob): Promise<EditorReport> {
  const { adapter, file, names } = job;
  for (let attempt = 1; attempt <= ctx.attempts; attempt++) {
    let result: EditorReport | 'conflict';
    const once = () => attemptSync(ctx, job, attempt);
    try {
      // A dry run only reads (the Editors view, `sync --dry-run`): no lock to wait for or leave behind.
      result = job.request.dryRun
        ? await once()
        : await withLock(editorLockFile(ctx.home, adapter.id, file), once, {
            timeoutMs: ctx.lockTimeoutMs,
          });
    } catch (err) {
      return blankReport(adapter, file, 'failed', names, describeError(err));
    }
    if (result !== 'conflict') return result;
    await new Promise((r) => setTimeout(r, 10 + Math.random() * 40 * attempt));
  }
  return blankReport(
    adapter,
    file,
    'failed',
    names,
    `the file kept changing while Switchboard was writing it (${ctx.attempts} tries); nothing was overwritten — try again`,
  );
}

async function attemptSync(
  /** (how often to try, and how long to wait for the lock, are the caller's) */
  ctx: Omit<FileSyncContext, 'attempts' | 'lockTimeoutMs'>,
  job: FileSyncJob,
  attempt: number,
): Promise<EditorReport | 'conflict'> {
  const { adapter, file, names, request, settings, run } = job;
  const read = readEditorFile(file);
  if (read.kind === 'problem') return blankReport(adapter, file, 'failed', names, read.problem);
  // Whose each entry is, as recorded now (under the file's lock: another sync may just have written).
  const ownership = ctx.ownership(adapter.id, request.dryRun ? settings : ctx.currentSettings(adapter.id));
  const token = new TokenOnDemand(ctx.tokens, adapter.id, request.dryRun === true);
  const entries = managedEntries(adapter, names, settings.discovery === true, ctx, token);
  const adopt = request.adopt?.get(adapter.id);
  const give = request.giveBack;
  const plan = adapter.format.plan({
    text: read.text,
    serversKey: adapter.serversKey,
    desired: entries.desired,
    isManaged: (name, entry) => ownsEntry(adapter, ownership, name, entry),
    layout: settings.layout,
    file,
    ...(adopt ? { adopt } : {}),
    ...(give ? { restore: give.batches } : {}),
  });
  if (!plan.ok) {
    const report = blankReport(adapter, file, 'failed', names, `${file}: ${plan.problem} — left unchanged`);
    // The user's file does not parse (or its servers key is not an object): not Switchboard failing.
    if (plan.problem.startsWith('internal error')) return report;
    return {
      ...report,
      reason: 'unparseable',
      ...(plan.line !== undefined && plan.column !== undefined
        ? { location: { line: plan.line, column: plan.column } }
        : {}),
    };
  }
  // Entries naming the header helper need it in place, also when the file is already up to date.
  if (entries.helperUsed && !request.dryRun) ensureHeadersHelper(ctx.home, ctx.platform);
  const { next, filled } = fillHeldBack(plan.text, adapter.id, give);
  const changed = next !== read.text;
  // Recorded also when the file was already right (a record-less home).
  const own = ownAfter(entries.desired.keys(), plan);
  const summary = planSummary(plan, own, give, filled);
  const note = planNote(plan, give, adapter.id);
  // What unsync learnt goes into state.json with the rest of the run: the records it used up, and
  // which secrets now stand as placeholders in the file.
  const afterUnsync = (text: string | undefined) => {
    if (!give || request.dryRun) return;
    run.changes.push([adapter.id, afterGiveBack(give, adapter.id, file, text)]);
    if (text !== undefined) giveBackMode(ctx.backups, adapter.id, read.target, ctx.tokens.get(adapter.id));
  };
  // Saved at once, under the file's lock, so that the next sync of this file knows its entries.
  const recordOwn = () => {
    if (!request.dryRun)
      ctx.state.updateEditorSettings(adapter.id, (s) => void (s.entries = { file, names: own }));
  };
  if (!changed) {
    afterUnsync(read.text);
    recordOwn();
    const unchanged = { ...blankReport(adapter, file, 'unchanged', names, note), ...summary };
    // A file that already holds the token (synced by an older Switchboard, or loosened by hand).
    const issued = token.asked;
    if (!request.dryRun && adapter.tokenInFile && issued !== undefined && read.bytes !== undefined)
      unchanged.madePrivate = makeOwnerOnly(read.target, () => (read.text ?? '').includes(issued));
    return unchanged;
  }
  if (request.dryRun) {
    // Loaded by the first dry run (a preview, the Editors view): a serve that only syncs never needs it.
    const { createTwoFilesPatch } = await import('diff');
    const diff = createTwoFilesPatch(
      file,
      file,
      read.text ?? '',
      next ?? '',
      read.text === undefined ? '(no file)' : 'current',
      next === undefined ? '(file removed)' : give ? 'after unsync' : 'after sync',
    );
    // The diff is for people (`sync --dry-run`, the Editors view): the editor's bridge token is
    // shown by name, and any other token or literal secret in the file's text is hidden.
    const shownToken = existingToken(ctx.tokens, adapter.id);
    const shown = withoutSecrets(diff.split(shownToken).join(`<${adapter.id} token>`));
    return { ...blankReport(adapter, file, 'dry-run', names, note), ...summary, diff: shown };
  }
  // The relay, the header helper and file references read the editor's token when the editor
  // connects: it must exist before the entry does (and so must the helper).
  if (names.length) token.get();
  const written = writeEditorFile(ctx, {
    adapter,
    file,
    read,
    next,
    token: token.asked,
    adopted: plan.adopted.length > 0,
    secretsIn: request.secretsInFile?.get(adapter.id),
    run,
    attempt,
  });
  if (written.kind === 'conflict') return 'conflict';
  if (written.kind === 'failed')
    return {
      ...blankReport(adapter, file, 'failed', names, written.problem),
      ...summary,
      backups: written.backups,
    };
  // An editor that reads its file only at start: one started before now has not read this.
  if (adapter.restartNotice) {
    const writtenAt = Date.now();
    run.changes.push([adapter.id, (s) => void (s.writtenAt = writtenAt)]);
  }
  run.changes.push([adapter.id, (s) => recordLayout(s, file, ctx.port, plan.layout, names.length > 0)]);
  recordOwn();
  if (plan.imported.length) {
    const record = importRecord(
      file,
      plan.imported,
      request.secretsInFile?.get(adapter.id),
      adapter.format,
      adapter.serversKey,
    );
    run.changes.push([adapter.id, (s) => void (s.imported = [...(s.imported ?? []), record])]);
  }
  afterUnsync(next);
  const report: EditorReport = {
    ...blankReport(adapter, file, 'written', names, note),
    ...summary,
    backups: written.backups,
    madePrivate: written.madePrivate,
  };
  // Once: when the file gets its first entries (not on every later change).
  if (adapter.afterWriteNotice && plan.added.length && plan.added.length === names.length)
    report.afterWrite = adapter.afterWriteNotice;
  if (adapter.restartNotice) {
    report.notice = adapter.restartNotice;
    report.running = await ctx.isRunning(adapter);
  }
  return report;
}
