import type { EditorId } from '../../../shared/editors.ts';
import type { PlanResult } from './file-plan.ts';
import type { GiveBack } from './give-back.ts';
import type { EditorReport } from './report.ts';

/** A plan that could be made: the file's new text and what changes in it. */
export type PlannedFile = Extract<PlanResult, { ok: true }>;

/** What a file's plan does, in a report's fields. */
export type PlanSummary = Pick<
  EditorReport,
  | 'servers'
  | 'added'
  | 'updated'
  | 'removed'
  | 'clashes'
  | 'adopted'
  | 'restored'
  | 'notRestored'
  | 'secretsPutBack'
  | 'secretsHeldBack'
>;

/**
 * What the file has of Switchboard's once this sync is done: every desired entry but those whose
 * name a user's entry has.
 */
export function ownAfter(desired: Iterable<string>, plan: PlannedFile): string[] {
  return [...desired].filter((name) => !plan.clashes.includes(name)).sort();
}

/**
 * The plan's changes for the report. `own` is ownAfter's answer (the servers this editor gets: not
 * those a user's own entry of the same name keeps out); `filled` the held-back secrets put back.
 */
export function planSummary(
  plan: PlannedFile,
  own: string[],
  give: GiveBack | undefined,
  filled: readonly string[],
): PlanSummary {
  const secretsOf = (entries: readonly string[]) =>
    [
      ...new Set(
        (give?.records ?? [])
          .flatMap((r) => r.entries)
          .filter((e) => entries.includes(e.entry))
          .flatMap((e) => e.secrets.map((x) => x.name)),
      ),
    ].sort();
  const given = secretsOf(plan.restored);
  return {
    servers: own,
    added: plan.added,
    updated: plan.updated,
    removed: plan.removed,
    clashes: plan.clashes,
    adopted: plan.adopted,
    restored: [...plan.restored].sort(),
    notRestored: plan.notRestored,
    secretsPutBack: [...new Set([...given.filter((n) => give?.putBack.has(n)), ...filled])].sort(),
    secretsHeldBack: given.filter((n) => !give?.putBack.has(n)),
  };
}

/**
 * What a person should know about the plan, in words (undefined: nothing): clashes with their own
 * entries, entries that could not be given back, secrets no longer in the keychain.
 */
export function planNote(
  plan: PlannedFile,
  give: GiveBack | undefined,
  editor: EditorId,
): string | undefined {
  const clashNote = plan.clashes.length
    ? `your own entr${plan.clashes.length === 1 ? 'y' : 'ies'} named ${plan.clashes.map((c) => `"${c}"`).join(', ')} kept; Switchboard's server${plan.clashes.length === 1 ? '' : 's'} of that name ${plan.clashes.length === 1 ? 'is' : 'are'} not added (rename one, or import it)`
    : undefined;
  const notRestoredNote = plan.notRestored.length
    ? plan.notRestored
        .map(
          (n) =>
            `your entry "${n.entry}" was not given back: ${n.why} (the backups have it: switchboard backups)`,
        )
        .join('; ')
    : undefined;
  const missing = give?.missing.length
    ? `not in the keychain any more, so their places in the file still say so: ${give.missing.join(', ')} ` +
      `(store each again with: switchboard secret set NAME, then: switchboard unsync --editor ${editor} --restore-secrets)`
    : undefined;
  return [clashNote, notRestoredNote, missing].filter(Boolean).join('; ') || undefined;
}
