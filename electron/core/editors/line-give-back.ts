import { isDeepStrictEqual } from 'node:util';
import { plainJson } from './entry-changes.ts';
import type { PlanInput, PlannedImport } from './file-plan.ts';
import { managedInUserPlaces } from './give-back-places.ts';
import { compareNames } from '../text-order.ts';

/**
 * Import and unsync for the formats edited as lines (TOML, YAML): what import records of a user entry
 * it takes out, and how unsync gives back the entries import replaced. The same order of undoing as
 * JSON's (jsonc-give-back.ts): the user's text goes back where the managed entry that replaced it
 * stands, or between the neighbours it was taken from when the text there is as import left it, or
 * else at the end of the collection. Each placement is parsed again and kept only if the entry then has exactly the value
 * its text had and no other setting or entry changed; otherwise the next way is tried.
 */

export type Span = { start: number; end: number };

/** One entry of the servers collection: its whole lines (items are in the text's order, apart). */
export interface LineItem {
  name: string;
  value: unknown;
  span: Span;
}

export interface LineRead {
  /** entries that may be placed next to (neighbours of a gap, places of managed entries) */
  items: LineItem[];
  /** every entry of the collection, as [name, value] */
  entries: [string, unknown][];
  /** the file's settings other than the servers collection */
  settings: unknown;
}

/** What giving back needs from a format. */
export interface LineFormatOps {
  /** undefined: the text does not parse */
  read(text: string): LineRead | undefined;
  /** the text without Switchboard's entry `name` */
  remove(text: string, name: string): string;
  /** the text with an entry whose place is gone put at the end of the collection */
  append(text: string, e: PlannedImport): string;
  /** the value an entry's recorded text stands for */
  value(e: PlannedImport): unknown;
}

/**
 * Takes the user's entry `items[index]` out of the text, with what unsync needs to put it back
 * exactly: its lines, its neighbours and the text between them and it.
 */
export function takeOut(
  text: string,
  items: readonly LineItem[],
  index: number,
  server: string,
): { text: string; record: PlannedImport } {
  const item = items[index];
  if (!item) throw new Error('internal error: no entry to take out');
  const prev = items[index - 1];
  const next = items[index + 1];
  const lead = prev ? text.slice(prev.span.end, item.span.start) : '';
  const trail = next ? text.slice(item.span.end, next.span.start) : '';
  return {
    text: text.slice(0, item.span.start) + text.slice(item.span.end),
    record: {
      entry: item.name,
      server,
      text: text.slice(item.span.start, item.span.end),
      place: 'taken-out',
      gap: { prev: prev?.name ?? null, next: next?.name ?? null, lead, trail, left: lead + trail },
    },
  };
}

/**
 * Unsync after import: every managed entry goes and the user's entries come back, undoing the
 * imports from the newest (see jsonc-give-back.ts undoImports for the order).
 */
export function undoLineImports(
  text: string,
  batches: readonly (readonly PlannedImport[])[],
  isManaged: PlanInput['isManaged'],
  ops: LineFormatOps,
): { text: string; restored: string[]; notRestored: { entry: string; why: string }[] } | { problem: string } {
  const all = batches.flat();
  const placesOfUserEntries = managedInUserPlaces(all);
  const internal = { problem: 'internal error: lost the servers collection while giving entries back' };
  let w = text;
  let now = ops.read(w);
  if (!now) return internal;
  const settings = now.settings;
  const restored: string[] = [];
  const notRestored: { entry: string; why: string }[] = [];
  const userEntries = (read: LineRead) => read.entries.filter(([k, v]) => !isManaged(k, v));
  const userHas = (key: string) => userEntries(now as LineRead).some(([k]) => k === key);
  const dropManaged = (keep: (key: string) => boolean): boolean => {
    for (;;) {
      const name = (now as LineRead).entries.find(([k, v]) => isManaged(k, v) && !keep(k))?.[0];
      if (name === undefined) return true;
      const without = ops.remove(w, name);
      const next = ops.read(without);
      if (!next || next.entries.length >= (now as LineRead).entries.length) return false;
      w = without;
      now = next;
    }
  };
  /** Takes the candidate text if the entry came back as recorded and nothing else changed. */
  const accept = (candidate: string, e: PlannedImport): boolean => {
    const read = ops.read(candidate);
    if (!read || !isDeepStrictEqual(plainJson(read.settings), plainJson(settings))) return false;
    const expected = [...userEntries(now as LineRead), [e.entry, ops.value(e)] as [string, unknown]];
    const sorted = (list: [string, unknown][]) =>
      list.map(([k, v]) => [k, plainJson(v)] as const).sort(([a], [b]) => compareNames(a, b));
    if (!isDeepStrictEqual(sorted(userEntries(read)), sorted(expected))) return false;
    w = candidate;
    now = read;
    restored.push(e.entry);
    return true;
  };
  const taken = (e: PlannedImport) =>
    notRestored.push({ entry: e.entry, why: `the file has an entry named "${e.entry}" again` });

  if (!dropManaged(placesOfUserEntries)) return internal;
  const later: PlannedImport[] = [];
  for (const batch of [...batches].reverse()) {
    for (const e of [...batch].reverse()) {
      if (userHas(e.entry)) {
        taken(e);
        continue;
      }
      const items = now.items;
      if (e.place === 'replaced') {
        const item = items.find((p) => p.name === e.server && isManaged(p.name, p.value));
        const done = item && accept(w.slice(0, item.span.start) + e.text + w.slice(item.span.end), e);
        if (!done) later.push(e);
        continue;
      }
      const gap = e.gap;
      const prevAt = gap?.prev === null ? -1 : items.findIndex((p) => p.name === gap?.prev);
      const prev = items[prevAt];
      const next = items[prevAt + 1];
      let candidate: string | undefined;
      if (gap && (gap.prev === null || prev) && (gap.next === null ? !next : next?.name === gap.next)) {
        if (prev && next && w.slice(prev.span.end, next.span.start) === gap.left)
          candidate = w.slice(0, prev.span.end) + gap.lead + e.text + gap.trail + w.slice(next.span.start);
        else if (!prev && next && w.slice(0, next.span.start).endsWith(gap.trail)) {
          const at = next.span.start - gap.trail.length;
          candidate = w.slice(0, at) + e.text + w.slice(at);
        } else if (prev && !next && w.slice(prev.span.end).startsWith(gap.lead)) {
          const at = prev.span.end + gap.lead.length;
          candidate = w.slice(0, at) + e.text + w.slice(at);
        }
      }
      if (candidate === undefined || !accept(candidate, e)) later.push(e);
    }
  }
  if (!dropManaged(() => false)) return internal;
  for (const e of later) {
    if (userHas(e.entry)) {
      taken(e);
      continue;
    }
    // Where it stood is gone: at the end of the collection.
    if (!accept(ops.append(w, e), e))
      notRestored.push({ entry: e.entry, why: 'its place in the file could not be found again' });
  }
  return { text: w, restored, notRestored };
}
