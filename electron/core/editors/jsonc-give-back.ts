import { getNodeValue, parseTree, type ParseError } from 'jsonc-parser';
import type { PlanInput, PlannedImport } from './file-plan.ts';
import {
  insertProperties,
  objectInfo,
  parseJsonc,
  removeProperties,
  type ContainerForm,
  type ObjectInfo,
  type TextFormat,
} from './jsonc-entries.ts';
import { between } from './jsonc-window.ts';
import { managedInUserPlaces } from './give-back-places.ts';

// Giving back the user's entries import replaced in a JSON/JSONC file (unsync after import).

/** The servers object's properties and their values. */
function propsOf(w: string): { info: ObjectInfo; values: unknown[] } {
  const node = parseJsonc(w);
  if (!node || node.type !== 'object') throw new Error('internal error: lost the JSON object while editing');
  return {
    info: objectInfo(node),
    values: (node.children ?? []).map((p) => {
      const value = p.children?.[1];
      return value ? getNodeValue(value) : undefined;
    }),
  };
}

/** The value of one entry's text (`"key": value`). */
export function entryValue(text: string): unknown {
  const node = parseJsonc(`{${text}}`);
  const value = node?.children?.[0]?.children?.[1];
  return value ? getNodeValue(value) : undefined;
}

/** Whether an entry's text, or the text around it, is JSONC rather than strict JSON. */
export function lenient(e: PlannedImport): boolean {
  const errors: ParseError[] = [];
  parseTree(`{${e.text}}`, errors, { allowTrailingComma: false, disallowComments: true });
  if (errors.length) return true;
  const around = e.gap ? e.gap.lead + e.gap.trail : '';
  return /\/[/*]/.test(around) || (e.gap?.next === null && e.gap.trail.includes(','));
}

export function restoredValues(
  batches: PlanInput['restore'],
  restored: readonly string[],
): Map<string, unknown> {
  const values = new Map<string, unknown>();
  for (const e of (batches ?? []).flat())
    if (restored.includes(e.entry)) values.set(e.entry, entryValue(e.text));
  return values;
}

/**
 * Unsync after import: every managed entry goes, and the user's entries import replaced come back,
 * undoing the changes in the reverse order they were made so that the bytes are the user's again:
 * first the managed entries that came later (not involved in an import), then each import from the
 * newest (an entry replaced in place gets its own text back; one taken out goes back between its
 * neighbours when the text there is as import left it), then the remaining managed entries. An entry
 * whose place is gone goes back at the end of the object; one whose name a user entry now has stays
 * out (reported).
 */
export function undoImports(
  window: string,
  batches: readonly (readonly PlannedImport[])[],
  isManaged: PlanInput['isManaged'],
  format: TextFormat,
  form: ContainerForm | undefined,
): { text: string; restored: string[]; notRestored: { entry: string; why: string }[] } {
  const all = batches.flat();
  const placesOfUserEntries = managedInUserPlaces(all);
  const restored: string[] = [];
  const notRestored: { entry: string; why: string }[] = [];
  let w = window;
  let now = propsOf(w);
  const dropManaged = (keep: (key: string) => boolean) => {
    w = removeProperties(w, now.info, (p, i) => isManaged(p.key, now.values[i]) && !keep(p.key), form).text;
    now = propsOf(w);
  };
  const userHas = (key: string) =>
    now.info.props.some((p, i) => p.key === key && !isManaged(p.key, now.values[i]));
  const splice = (from: number, to: number, content: string) => {
    w = w.slice(0, from) + content + w.slice(to);
    now = propsOf(w);
  };
  const taken = (e: PlannedImport) =>
    notRestored.push({ entry: e.entry, why: `the file has an entry named "${e.entry}" again` });

  dropManaged(placesOfUserEntries);
  const later: PlannedImport[] = [];
  for (const batch of [...batches].reverse()) {
    for (const e of [...batch].reverse()) {
      if (userHas(e.entry)) {
        taken(e);
        continue;
      }
      if (e.place === 'replaced') {
        const at = now.info.props.findIndex((p, i) => p.key === e.server && isManaged(p.key, now.values[i]));
        const prop = now.info.props[at];
        if (!prop) later.push(e);
        else splice(prop.offset, prop.end, e.text);
        if (prop) restored.push(e.entry);
        continue;
      }
      const gap = e.gap;
      const props = now.info.props;
      const prevAt = gap?.prev === null ? -1 : props.findIndex((p) => p.key === gap?.prev);
      const next = props[prevAt + 1];
      const adjacent =
        gap !== undefined &&
        (gap.prev === null || prevAt >= 0) &&
        (gap.next === null ? next === undefined : next?.key === gap.next);
      if (!gap || !adjacent || between(w, prevAt) !== gap.left) {
        later.push(e);
        continue;
      }
      const from = prevAt < 0 ? now.info.open + 1 : (props[prevAt]?.end ?? 0);
      splice(from, next ? next.offset : now.info.close, gap.lead + e.text + gap.trail);
      restored.push(e.entry);
    }
  }
  dropManaged(() => false);
  for (const e of later) {
    if (userHas(e.entry)) {
      taken(e);
      continue;
    }
    // Where it stood is gone: at the end of the object, in the file's layout, with its own text.
    const key = JSON.stringify(e.entry);
    const made = insertProperties(w, now.info, [[e.entry, 0]], format);
    const at = made.keyOffsets[0] ?? 0;
    w = made.text.slice(0, at) + e.text + made.text.slice(at + key.length + ': 0'.length);
    now = propsOf(w);
    restored.push(e.entry);
  }
  return { text: w, restored, notRestored };
}
