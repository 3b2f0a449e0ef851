import { isDeepStrictEqual } from 'node:util';
import { compareNames } from '../text-order.ts';

/**
 * What a sync changes in one file's servers collection, decided from the entries it has: Switchboard's
 * entries no longer wanted go, changed ones are replaced, new ones are added; the user's entries stay,
 * except those import replaces (adopts); a desired server whose name a user's entry already has is a
 * clash (reported, never overwritten). The one place these rules live: every format's plan
 * (jsonc-plan.ts, toml-format.ts, yaml-format.ts) edits its text by what this decides.
 *
 * Import puts the managed entry where the user's stood (renamed to the server's name if need be; a
 * managed entry of that server elsewhere moves there), so that unsync can put the user's text back in
 * the same place: an entry named like its server claims the place first, then the others in the
 * file's order; a second entry of a server that already has a place is taken out.
 */
export interface EntryChanges {
  /** managed entries that go: no longer wanted (`removed`), or moving to a user entry's place */
  toRemove: Set<string>;
  /** entries whose text is replaced: entry name → the server whose managed entry takes its place */
  replace: Map<string, { server: string; entry: Record<string, unknown> }>;
  /** user entries import takes out (another entry of the same server took the place) */
  takenOut: string[];
  toAdd: [string, Record<string, unknown>][];
  added: string[];
  updated: string[];
  removed: string[];
  clashes: string[];
  adopted: string[];
  /** the user's entries as they were (for the guard) */
  userBefore: Map<string, unknown>;
}

/**
 * What deciding the changes reads of a plan's input (file-plan.ts `PlanInput` extends it): declared
 * here so that the plans use this module and not the other way round.
 */
export interface EntrySides {
  /** the managed entries the file must have, by server name */
  desired: ReadonlyMap<string, Record<string, unknown>>;
  /** is this entry (its name in the file, its value) Switchboard's? (ownership.ts ownsEntry) */
  isManaged(name: string, entry: unknown): boolean;
  /** user entries to replace by managed ones (import): entry name → server name */
  adopt?: ReadonlyMap<string, string>;
}

/** Values compared as parsers give them (bigint, Date) and as entries are built (plain JSON). */
export function plainJson(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)) ?? 'null',
  ) as unknown;
}

/**
 * @param adoptable whether import may replace this user entry (the format can give it back exactly);
 *   one it may not stays the user's
 */
export function entryChanges(
  existing: Iterable<[string, unknown]>,
  input: EntrySides,
  adoptable: (entry: string) => boolean = () => true,
): EntryChanges {
  const managed = new Map<string, unknown>();
  const user = new Map<string, unknown>();
  for (const [name, value] of existing) {
    if (managed.has(name) || user.has(name)) continue; // a duplicate: the first one counts
    (input.isManaged(name, value) ? managed : user).set(name, value);
  }
  const changes: EntryChanges = {
    toRemove: new Set(),
    replace: new Map(),
    takenOut: [],
    toAdd: [],
    added: [],
    updated: [],
    removed: [],
    clashes: [],
    adopted: [],
    userBefore: new Map(user),
  };
  for (const name of managed.keys()) {
    if (input.desired.has(name)) continue;
    changes.toRemove.add(name);
    changes.removed.push(name);
  }
  const adopt = new Map([...(input.adopt ?? [])].filter(([key]) => adoptable(key)));
  const claims = new Map<string, string>(); // server → the user entry whose place it takes
  for (const [key, server] of adopt) {
    if (key === server && user.has(key) && input.desired.has(server)) claims.set(server, key);
  }
  for (const key of user.keys()) {
    const server = adopt.get(key);
    if (server === undefined || key === server || !input.desired.has(server)) continue;
    // Never drop the user's entry when the server could not take its place (its name is taken).
    if (user.has(server) && adopt.get(server) !== server) continue;
    if (claims.has(server)) {
      changes.takenOut.push(key);
      continue;
    }
    claims.set(server, key);
    if (managed.has(server)) changes.toRemove.add(server);
  }
  for (const key of [...claims.values(), ...changes.takenOut]) {
    user.delete(key);
    changes.adopted.push(key);
  }
  for (const [name, entry] of input.desired) {
    const claimed = claims.get(name);
    if (claimed !== undefined) {
      changes.replace.set(claimed, { server: name, entry });
    } else if (managed.has(name)) {
      if (!isDeepStrictEqual(plainJson(managed.get(name)), plainJson(entry))) {
        changes.replace.set(name, { server: name, entry });
        changes.updated.push(name);
      }
    } else if (user.has(name)) {
      changes.clashes.push(name);
    } else {
      changes.toAdd.push([name, entry]);
      changes.added.push(name);
    }
  }
  return changes;
}

/** The server a user's entry import takes out belongs to (it adopted it), named by the entry. */
export function takenOutServer(input: Pick<EntrySides, 'adopt'>, entry: string): string {
  return input.adopt?.get(entry) ?? entry;
}

/**
 * The server whose managed entry takes a user's entry's place (import adopts it in place), or
 * undefined when the entry replaced is Switchboard's own (an update) or not replaced at all.
 */
export function adoptedInPlace(
  c: Pick<EntryChanges, 'replace' | 'userBefore'>,
  entry: string,
): { server: string; entry: Record<string, unknown> } | undefined {
  return c.userBefore.has(entry) ? c.replace.get(entry) : undefined;
}

/** The user's entries the file must still have after the edit: all as they were, but those import adopted. */
export function userEntriesAfter(c: {
  userBefore: ReadonlyMap<string, unknown>;
  adopted: readonly string[];
}): [string, unknown][] {
  return [...c.userBefore].filter(([k]) => !c.adopted.includes(k));
}

/** Nothing to write. */
export function noChanges(c: EntryChanges): boolean {
  return c.toRemove.size === 0 && c.replace.size === 0 && c.toAdd.length === 0 && c.takenOut.length === 0;
}

/**
 * Whose an entry is once the edit is made: the desired entries (but those whose name a user's entry
 * keeps) are Switchboard's now, even before the record of what it wrote says so (import, a new server).
 */
export function ownedAfter(
  input: EntrySides,
  clashes: readonly string[],
): (name: string, value: unknown) => boolean {
  return (name, value) =>
    (input.desired.has(name) && !clashes.includes(name)) || input.isManaged(name, value);
}

/**
 * The guard's comparison of the servers collection after an edit: the user's entries are what they
 * were (those import replaced aside, those unsync gave back added with the values their texts have),
 * and Switchboard's are exactly the desired ones.
 */
export function collectionProblem(
  after: Iterable<[string, unknown]>,
  input: EntrySides,
  c: Pick<EntryChanges, 'userBefore' | 'adopted' | 'clashes'>,
  restored: ReadonlyMap<string, unknown> = new Map(),
): 'outside' | 'invalid' | undefined {
  const entries = [...after];
  const ours = ownedAfter(input, c.clashes);
  const userAfter = entries.filter(([k, v]) => !ours(k, v));
  const expected = [...userEntriesAfter(c), ...[...restored].filter(([k]) => !c.userBefore.has(k))];
  const sorted = (list: [string, unknown][]) =>
    [...list].map(([k, v]) => [k, plainJson(v)] as const).sort(([a], [b]) => compareNames(a, b));
  if (!isDeepStrictEqual(sorted(userAfter), sorted(expected))) return 'outside';
  const byName = new Map(entries);
  const managedAfter = entries.filter(([k, v]) => ours(k, v)).map(([k]) => k);
  for (const [name, entry] of input.desired) {
    if (c.clashes.includes(name)) continue; // the user's entry stays
    if (!isDeepStrictEqual(plainJson(byName.get(name)), plainJson(entry))) return 'invalid';
  }
  if (managedAfter.some((k) => !input.desired.has(k))) return 'invalid';
  return undefined;
}
