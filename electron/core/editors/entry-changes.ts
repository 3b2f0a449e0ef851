import { isDeepStrictEqual } from 'node:util';
import type { PlanInput } from './plan.ts';

/**
 * What a sync changes in one file's servers collection, decided from the entries it has: Switchboard's
 * entries no longer wanted go, changed ones are replaced, new ones are added; the user's entries stay,
 * except those import replaces (adopts); a desired server whose name a user's entry already has is a
 * clash (reported, never overwritten). The same rules as plan.ts, for the formats edited as lines
 * (TOML, YAML).
 */
export interface EntryChanges {
  toRemove: Set<string>;
  replace: Map<string, Record<string, unknown>>;
  toAdd: [string, Record<string, unknown>][];
  added: string[];
  updated: string[];
  removed: string[];
  clashes: string[];
  adopted: string[];
  /** the user's entries as they were (for the guard) */
  userBefore: Map<string, unknown>;
}

/** Values compared as parsers give them (bigint, Date) and as entries are built (plain JSON). */
export function plainJson(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)) ?? 'null',
  ) as unknown;
}

export function entryChanges(existing: Iterable<[string, unknown]>, input: PlanInput): EntryChanges {
  const managed = new Map<string, unknown>();
  const user = new Map<string, unknown>();
  for (const [name, value] of existing) {
    if (managed.has(name) || user.has(name)) continue; // a duplicate: the first one counts
    (input.isManaged(value) ? managed : user).set(name, value);
  }
  const changes: EntryChanges = {
    toRemove: new Set(),
    replace: new Map(),
    toAdd: [],
    added: [],
    updated: [],
    removed: [],
    clashes: [],
    adopted: [],
    userBefore: new Map(user),
  };
  const adopt = input.adopt ?? new Map<string, string>();
  for (const name of managed.keys()) {
    if (input.desired.has(name)) continue;
    changes.toRemove.add(name);
    changes.removed.push(name);
  }
  for (const [key, server] of adopt) {
    if (!user.has(key) || key === server || !input.desired.has(server)) continue;
    // Never drop the user's entry when the server could not take its place (its name is taken).
    if (user.has(server) && adopt.get(server) !== server) continue;
    changes.toRemove.add(key);
    user.delete(key);
    changes.adopted.push(key);
  }
  for (const [name, entry] of input.desired) {
    if (managed.has(name)) {
      if (!isDeepStrictEqual(plainJson(managed.get(name)), plainJson(entry))) {
        changes.replace.set(name, entry);
        changes.updated.push(name);
      }
    } else if (user.has(name)) {
      if (adopt.get(name) === name) {
        changes.replace.set(name, entry);
        changes.adopted.push(name);
        user.delete(name);
      } else {
        changes.clashes.push(name);
      }
    } else {
      changes.toAdd.push([name, entry]);
      changes.added.push(name);
    }
  }
  return changes;
}

/** Nothing to write. */
export function noChanges(c: EntryChanges): boolean {
  return c.toRemove.size === 0 && c.replace.size === 0 && c.toAdd.length === 0;
}

/**
 * The guard's comparison of the servers collection after an edit: the user's entries are what they
 * were (those import replaced aside), and Switchboard's are exactly the desired ones.
 */
export function collectionProblem(
  after: Iterable<[string, unknown]>,
  input: PlanInput,
  c: EntryChanges,
): 'outside' | 'invalid' | undefined {
  const entries = [...after];
  const userAfter = entries.filter(([, v]) => !input.isManaged(v));
  const expected = [...c.userBefore].filter(([k]) => !c.adopted.includes(k));
  const sorted = (list: [string, unknown][]) =>
    [...list].map(([k, v]) => [k, plainJson(v)] as const).sort(([a], [b]) => a.localeCompare(b));
  if (!isDeepStrictEqual(sorted(userAfter), sorted(expected))) return 'outside';
  const byName = new Map(entries);
  for (const [name, entry] of input.desired) {
    if (c.clashes.includes(name)) continue; // the user's entry stays
    if (!isDeepStrictEqual(plainJson(byName.get(name)), plainJson(entry))) return 'invalid';
  }
  return undefined;
}
