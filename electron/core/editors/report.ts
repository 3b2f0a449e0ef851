import { displayText } from '../../../shared/display-text.ts';
import type { EditorId } from '../../../shared/editors.ts';
import type {
  EditorFileReport,
  EditorOutcome,
  EditorSkipReason,
  ImportDone,
} from '../../../shared/editor-report.ts';
import type { EditorsSyncResult, EditorUnsyncResult } from '../../../shared/ui-api.ts';
import { restartCommand } from './restart.ts';
import type { EditorAdapter } from './types.ts';

export type EditorStatus = 'written' | 'unchanged' | 'dry-run' | 'skipped' | 'failed';

/** What a sync (or unsync) did to one editor's file, as the engine reports it. */
export interface EditorReport {
  editor: EditorId;
  label: string;
  file: string;
  status: EditorStatus;
  /** the servers this editor gets */
  servers: string[];
  added: string[];
  updated: string[];
  removed: string[];
  /** a user entry already has this name: reported, not overwritten */
  clashes: string[];
  /** user entries replaced by managed ones (import) */
  adopted: string[];
  /** why it was skipped or failed, in words (with line and column for a file that does not parse) */
  problem?: string | undefined;
  /** why it was not synced, when that is not Switchboard failing: off, not installed, a file that does not parse */
  reason?: EditorSkipReason | undefined;
  /** where a file that does not parse stops parsing */
  location?: { line: number; column: number } | undefined;
  /** said once after this editor's file was written (Gemini CLI's folder trust) */
  afterWrite?: string | undefined;
  /** --dry-run: the unified diff the sync would make */
  diff?: string | undefined;
  /** e.g. Claude Desktop must restart */
  notice?: string | undefined;
  /** whether the editor is running (when a notice is given); undefined = could not tell */
  running?: boolean | undefined;
  /** backups taken now */
  backups: string[];
  /** unsync: the user's own entries given back (those import had replaced) */
  restored: string[];
  /** unsync: entries import replaced that could not be given back, and why */
  notRestored: { entry: string; why: string }[];
  /** unsync: secrets written back into the file, as plain text, at the person's request */
  secretsPutBack: string[];
  /** unsync: secrets left in the keychain; where each stood, the file says how to put it back */
  secretsHeldBack: string[];
  /** the file holds this editor's bridge token and others could read it: it is owner-only (0600) now */
  madePrivate: boolean;
}

/** A report that nothing was changed in (yet): the sync fills in what it did. */
export function blankReport(
  adapter: Pick<EditorAdapter, 'id' | 'label'>,
  file: string,
  status: EditorStatus,
  servers: string[],
  problem?: string,
): EditorReport {
  return {
    editor: adapter.id,
    label: adapter.label,
    file,
    status,
    servers,
    added: [],
    updated: [],
    removed: [],
    clashes: [],
    adopted: [],
    problem,
    backups: [],
    restored: [],
    notRestored: [],
    secretsPutBack: [],
    secretsHeldBack: [],
    madePrivate: false,
  };
}

/** A sync's outcome for one editor as people and scripts see it: a file that does not parse is skipped, not failed. */
export function outcomeOf(r: EditorReport): EditorOutcome {
  if (r.reason) return 'skipped';
  switch (r.status) {
    case 'written':
      return 'written';
    case 'unchanged':
      return 'up-to-date';
    case 'dry-run':
      return 'would-write';
    case 'skipped':
      return 'skipped';
    case 'failed':
      return 'failed';
  }
}

/** The notices a report carries, each said once (restart, owner-only file, Gemini CLI's folder trust). */
function noticesOf(r: EditorReport): string[] {
  const running =
    r.running === true
      ? ` It is running now: ${restartCommand(r.editor)} restarts it (or its button in the Editors view).`
      : r.running === false
        ? ' It is not running: it reads the file when it next starts.'
        : '';
  return [
    ...(r.notice ? [r.notice + running] : []),
    ...(r.madePrivate ? [privateNotice(r.label)] : []),
    ...(r.afterWrite ? [r.afterWrite] : []),
  ];
}

/** One editor's report in the shape of shared/editor-report.ts (`sync --json`, the control API). */
export function fileReport(r: EditorReport): EditorFileReport {
  return {
    editor: r.editor,
    label: r.label,
    file: r.file,
    outcome: outcomeOf(r),
    reason: r.reason ?? (r.status === 'skipped' ? 'not-installed' : null),
    message: r.problem ?? null,
    location: r.location ?? null,
    servers: r.servers,
    added: r.added,
    updated: r.updated,
    removed: r.removed,
    clashes: r.clashes,
    adopted: r.adopted,
    restored: r.restored,
    secretsPutBack: r.secretsPutBack,
    secretsHeldBack: r.secretsHeldBack,
    backups: r.backups,
    notices: noticesOf(r),
    diff: r.diff ?? null,
  };
}

/**
 * What an import did (import.ts `ImportResult` is one), as `import --json` prints it: done by the CLI
 * or by the running serve for it.
 */
export function importDone(result: {
  imported: string[];
  secrets: ImportDone['secrets'];
  reports: EditorReport[];
  skipped: readonly { editor: EditorId; entry: string; problem: string | undefined }[];
}): ImportDone {
  return {
    servers: result.imported,
    secrets: result.secrets,
    editors: result.reports.map(fileReport),
    skipped: result.skipped.map((c) => ({ editor: c.editor, entry: c.entry, problem: c.problem ?? '' })),
  };
}

/** One or two lines per editor report, for the CLI and serve's output. */
export function describeReports(reports: readonly EditorReport[]): string[] {
  return reports.flatMap((r) => describeFileReport(fileReport(r)));
}

/** One editor's report in words: what happened, and why when it was skipped or failed. */
export function describeFileReport(r: EditorFileReport): string[] {
  const lines: string[] = [];
  const past = r.outcome !== 'would-write';
  const changes = [
    r.added.length ? `${past ? 'added' : 'add'} ${r.added.join(', ')}` : '',
    r.updated.length ? `${past ? 'updated' : 'update'} ${r.updated.join(', ')}` : '',
    r.removed.length ? `${past ? 'removed' : 'remove'} ${r.removed.join(', ')}` : '',
    r.adopted.length
      ? // the user's own entry names: escaped, they could carry bidi or control characters
        `${past ? 'replaced' : 'replace'} your entr${r.adopted.length === 1 ? 'y' : 'ies'} ${r.adopted.map(displayText).join(', ')}`
      : '',
    r.restored.length
      ? `${past ? 'gave back' : 'give back'} your entr${r.restored.length === 1 ? 'y' : 'ies'} ${r.restored.join(', ')}`
      : '',
  ]
    .filter(Boolean)
    .join('; ');
  switch (r.outcome) {
    case 'written':
      lines.push(`${r.label}: ${changes || 'updated'} (${r.file})`);
      break;
    case 'would-write':
      lines.push(`${r.label}: would ${changes || 'change the file'} (${r.file})`);
      break;
    case 'up-to-date':
      lines.push(
        `${r.label}: up to date (${r.servers.length} server${r.servers.length === 1 ? '' : 's'}; ${r.file})`,
      );
      break;
    case 'skipped':
      lines.push(
        r.reason === 'unparseable'
          ? `${r.label}: skipped — its file does not parse: ${r.message ?? r.file}. Fix it, then sync again.`
          : `${r.label}: skipped — ${r.message ?? ''}`,
      );
      break;
    case 'failed':
      lines.push(`${r.label}: failed — ${r.message ?? 'unknown problem'}`);
      break;
  }
  if (r.outcome !== 'skipped' && r.outcome !== 'failed' && r.message) lines.push(`  note: ${r.message}`);
  if (r.backups.length)
    lines.push(`  backup of the previous file: ${r.backups.join(', ')} (switchboard backups restore ID)`);
  if (r.secretsPutBack.length)
    lines.push(
      `  ${past ? 'put' : 'would put'} back into the file as plain text (they stay in the keychain too): ${r.secretsPutBack.join(', ')}`,
    );
  if (r.secretsHeldBack.length)
    lines.push(
      `  ${past ? 'held' : 'would hold'} back (in the keychain; their places in the file say so): ${r.secretsHeldBack.join(', ')}. ` +
        `To put them back: switchboard unsync --editor ${r.editor} --restore-secrets`,
    );
  for (const notice of r.notices) lines.push(`  ${notice}`);
  return lines;
}

/** Said once, when Switchboard takes other users' access off an editor's file that holds a token. */
export function privateNotice(label: string): string {
  return `this file is now readable only by you (0600): it holds ${label}'s Switchboard token, which other users of this computer could read and use`;
}

/** A sync's reports as the UI's "sync now" answer (shared/ui-api.ts EditorsSyncResult). */
export function syncResult(reports: readonly EditorReport[]): EditorsSyncResult {
  return {
    ok: true,
    changed: reports.filter((r) => r.status === 'written').map((r) => r.editor),
    problems: reports
      .filter((r) => r.status === 'failed')
      .map((r) => ({ editor: r.editor, message: r.problem ?? 'not synced' })),
    notices: reports
      .filter((r) => r.madePrivate)
      .map((r) => ({ editor: r.editor, message: `${r.file}: ${privateNotice(r.label)}` })),
    reports: reports.map(fileReport),
  };
}

/** An unsync's report as the UI's answer (shared/ui-api.ts EditorUnsyncResult). */
export function unsyncResult(report: EditorReport): EditorUnsyncResult {
  return {
    ok: true,
    editor: report.editor,
    written: report.status === 'written',
    removed: [...report.removed].sort(),
    restored: report.restored,
    secretsPutBack: report.secretsPutBack,
    secretsHeldBack: report.secretsHeldBack,
    problem: report.problem ?? null,
  };
}
