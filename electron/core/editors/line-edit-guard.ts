import { isDeepStrictEqual } from 'node:util';
import { collectionProblem, type EntryChanges, type EntrySides } from './entry-changes.ts';
import type { FileLayout } from './file-plan.ts';

// The formats edited as lines (TOML, YAML) check what they wrote before it is written: one guard, so
// both refuse the same things with the same words.

const INVALID = 'internal error: the edit would have made the file invalid; nothing was written';
const OUTSIDE =
  "internal error: the edit would have changed settings that are not Switchboard's; nothing was written";

/** A file's text read back by its format, as the guard compares it. */
export interface ReadBack {
  /** every setting of the file */
  value: Record<string, unknown>;
  /** the servers collection's entries as the format reads them */
  entries: Iterable<[string, unknown]>;
  /** false: the collection holds entries the format's edit does not read (hidden in another shape) */
  complete?: boolean;
}

/**
 * The guard: the new text parses, every setting but the servers collection is what it was, the user's
 * own entries are what they were (those import replaced aside, those unsync gave back added), and
 * Switchboard's are exactly the desired. Returns the problem (nothing may be written), or undefined.
 *
 * @param after the new text read back: undefined when it is empty, 'unparsable' when it does not parse
 * @param before the settings of the text the edit started from
 * @param restored entries unsync gave back, with the values their texts have
 */
export function lineEditProblem(
  after: ReadBack | 'unparsable' | undefined,
  before: Record<string, unknown>,
  input: EntrySides & { serversKey: string },
  changes: Pick<EntryChanges, 'userBefore' | 'adopted' | 'clashes'>,
  restored: ReadonlyMap<string, unknown>,
): string | undefined {
  if (after === 'unparsable') return INVALID;
  const settingsAfter = withoutServers(after?.value ?? {}, input.serversKey);
  if (!isDeepStrictEqual(settingsAfter, withoutServers(before, input.serversKey))) return OUTSIDE;
  if (after?.complete === false) return INVALID;
  const problem = collectionProblem(after?.entries ?? [], input, changes, restored);
  return problem === 'outside' ? OUTSIDE : problem === 'invalid' ? INVALID : undefined;
}

/** A file's settings but its servers collection. */
export function withoutServers(value: Record<string, unknown>, serversKey: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([k]) => k !== serversKey));
}

/** The layout to record: fields the edit cleared are left out. */
export function stripUndefined(layout: FileLayout): FileLayout {
  return Object.fromEntries(Object.entries(layout).filter(([, v]) => v !== undefined)) as FileLayout;
}
