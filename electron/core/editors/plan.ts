import { isDeepStrictEqual } from 'node:util';
import { getNodeValue, parseTree, type ParseError } from 'jsonc-parser';
import { detectFormat } from '../config/edit.ts';
import { isPlainObject } from '../config/jsonc-render.ts';
import {
  insertProperties,
  lineIndent,
  objectInfo,
  removeProperties,
  parseJsonc,
  replaceEntries,
  rootInfo,
  type ContainerForm,
  type ObjectInfo,
  type PropInfo,
  type TextFormat,
} from './jsonc-entries.ts';
import { ownedAfter, type EntrySides } from './entry-changes.ts';
import { lineColumn, parseErrorWords } from '../../../shared/jsonc-errors.ts';
import type { ImportedEntry } from '../../../shared/schema/state.ts';

/**
 * What Switchboard remembers about the shape of an editor's file, so that removing every managed
 * entry gives back the user's bytes exactly: whether it created the file (and what was there: nothing,
 * or an empty/whitespace file), whether it created the servers object, and how it inserted into an
 * empty object. Holds no content of the user's beyond whitespace.
 */
export interface FileLayout {
  /** the settings file this record is about; a record for another path is ignored */
  file: string;
  /** set when Switchboard started the file: it did not exist, or held only whitespace (kept here) */
  fileWas?: { existed: boolean; text: string } | undefined;
  /** the servers object was added by Switchboard (and goes again when it is empty) */
  containerCreated?: boolean | undefined;
  rootForm?: ContainerForm | undefined;
  serversForm?: ContainerForm | undefined;
  /** a line break Switchboard added at the end of a file that had none (TOML, YAML) */
  eolAdded?: boolean | undefined;
  /** bridge ports managed entries in this file were written with */
  ports?: number[] | undefined;
}

/** One file's plan: its text and layout, and (EntrySides) the entries it must have and whose are whose. */
export interface PlanInput extends EntrySides {
  /** the file's text as read (BOM included); undefined when there is no file */
  text: string | undefined;
  /** the top-level key of the servers object */
  serversKey: string;
  layout: FileLayout | undefined;
  file: string;
  /**
   * unsync (no desired entries): the user's entries earlier imports replaced, to give back — one list
   * per import, oldest first, each in the order import made its changes (PlanResult.imported)
   */
  restore?: readonly (readonly PlannedImport[])[];
}

/** A user entry import replaced, as the file had it (ImportedEntrySchema, before its secrets are cut out). */
export type PlannedImport = Omit<ImportedEntry, 'secrets'>;

export type PlanResult =
  | {
      ok: true;
      /** the new text; undefined = the file goes (Switchboard had created it) */
      text: string | undefined;
      changed: boolean;
      added: string[];
      updated: string[];
      removed: string[];
      /** desired servers whose name a user entry already has: reported, never overwritten */
      clashes: string[];
      /** user entries replaced by managed ones (import) */
      adopted: string[];
      /** import: what unsync needs to give those entries back, in the order the changes were made */
      imported: PlannedImport[];
      /** unsync: user entries given back */
      restored: string[];
      /** unsync: user entries that could not be given back, and why */
      notRestored: { entry: string; why: string }[];
      layout: FileLayout | undefined;
    }
  | { ok: false; problem: string; line?: number; column?: number };

const NEW_FILE = '{}\n';

/**
 * Computes the new text of one editor file: managed entries added, updated and removed so that they
 * are exactly `desired`; user entries, comments and everything else left byte for byte. Pure: no IO.
 *
 * The file is parsed once (strict JSON first: fast for large app-owned files like ~/.claude.json);
 * every edit then happens on the text of the servers object alone, cut out with the indentation of
 * its line, so the cost does not grow with the rest of the file.
 */
export function planFile(input: PlanInput): PlanResult {
  const { serversKey } = input;
  const original = input.text;
  let layout: FileLayout = input.layout?.file === input.file ? { ...input.layout } : { file: input.file };
  const empty = original === undefined || original.trim() === '';
  const bom = !empty && original.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
  const body = empty ? NEW_FILE : original.slice(bom.length);

  const located = locate(body);
  if (!located.ok) return located;
  const { root, strict } = located;
  let container = root.props.find((p) => p.key === serversKey);
  if (container && body[container.valueOffset] !== '{') {
    const { line, column } = lineColumn(body, container.valueOffset);
    return {
      ok: false,
      problem: `"${serversKey}" is not a JSON object (line ${line}, column ${column})`,
      line,
      column,
    };
  }
  // Line endings and indentation, from the start of the file (enough to tell, and cheap for big files).
  const format = detectFormat(body.length > 65_536 ? body.slice(0, 65_536) : body);

  // The servers object as it is: who is whose.
  const managed = new Map<string, unknown>();
  const user = new Map<string, unknown>();
  let window = container ? cut(body, container) : undefined;
  if (window) {
    const node = parseTree(window.text, [], { allowTrailingComma: true, disallowComments: false });
    for (const prop of node?.children ?? []) {
      const key = String(prop.children?.[0]?.value);
      const valueNode = prop.children?.[1];
      if (managed.has(key) || user.has(key)) continue; // a duplicate key: the first one is what counts here
      const value: unknown = valueNode ? getNodeValue(valueNode) : undefined;
      (input.isManaged(key, value) ? managed : user).set(key, value);
    }
  }
  const userBefore = new Map(user);

  const adopt = input.adopt ?? new Map<string, string>();
  const added: string[] = [];
  const updated: string[] = [];
  const removed: string[] = [];
  const clashes: string[] = [];
  const adopted: string[] = [];
  const imported: PlannedImport[] = [];
  let restored: string[] = [];
  let notRestored: { entry: string; why: string }[] = [];

  // 1. Managed entries no longer wanted.
  const stale = new Set<string>();
  for (const key of managed.keys()) {
    if (input.desired.has(key)) continue;
    stale.add(key);
    removed.push(key);
  }
  // Import: which user entry takes which server's place. The managed entry always goes where the
  // user's stood (renamed to the server's name if need be; a managed entry of that server elsewhere
  // moves there), so unsync can put the user's text back in the same place. An entry named like its
  // server first; then the others in the file's order; a second entry of a server that already took
  // a place is taken out.
  const claims = new Map<string, string>(); // server → the user entry whose place it takes
  const takenOut: string[] = [];
  const moved = new Set<string>(); // managed entries that move to a user entry's place
  for (const [key, server] of adopt) {
    if (key === server && user.has(key) && input.desired.has(server)) claims.set(server, key);
  }
  for (const key of user.keys()) {
    const server = adopt.get(key);
    if (server === undefined || key === server || !input.desired.has(server)) continue;
    // Never drop the user's entry when the server could not take its place (its name is taken).
    if (user.has(server) && adopt.get(server) !== server) continue;
    if (claims.has(server)) {
      takenOut.push(key);
      continue;
    }
    claims.set(server, key);
    if (managed.has(server)) moved.add(server);
  }
  for (const key of [...claims.values(), ...takenOut]) {
    user.delete(key);
    adopted.push(key);
  }
  // 2. Updates in place: managed entries that differ, and user entries import replaces.
  const replace = new Map<string, { key: string; value: unknown }>();
  const toAdd: [string, Record<string, unknown>][] = [];
  for (const [name, entry] of input.desired) {
    if (claims.has(name)) {
      replace.set(claims.get(name) ?? name, { key: name, value: entry });
    } else if (managed.has(name)) {
      if (!jsonEqual(managed.get(name), entry)) {
        replace.set(name, { key: name, value: entry });
        updated.push(name);
      }
    } else if (user.has(name)) {
      clashes.push(name);
    } else {
      toAdd.push([name, entry]);
      added.push(name);
    }
  }

  let text = body;
  let rootNow = root;
  let rootChanged = false;
  if (window && container) {
    let w = window.text;
    if (input.restore?.length && input.desired.size === 0) {
      const undone = undoImports(w, input.restore, input.isManaged, format, layout.serversForm);
      w = undone.text;
      ({ restored, notRestored } = undone);
      if (rootInfo(w).props.length === 0) layout.serversForm = undefined;
    } else {
      if (stale.size || moved.size) {
        const result = removeProperties(w, rootInfo(w), new Set([...stale, ...moved]), layout.serversForm);
        w = result.text;
        if (result.emptied) layout.serversForm = undefined;
      }
      // Taken out one at a time, from the last: each with what unsync needs to put it back exactly.
      const out = new Set(takenOut);
      for (let i = rootInfo(w).props.length - 1; i >= 0; i--) {
        const info = rootInfo(w);
        const prop = info.props[i];
        if (!prop || !out.has(prop.key)) continue;
        out.delete(prop.key);
        const prev = info.props[i - 1];
        const next = info.props[i + 1];
        const own = w.slice(prop.offset, prop.end);
        const lead = w.slice(prev ? prev.end : info.open + 1, prop.offset);
        const trail = w.slice(prop.end, next ? next.offset : info.close);
        w = removeProperties(w, info, (_, at) => at === i).text;
        imported.push({
          entry: prop.key,
          server: adopt.get(prop.key) ?? prop.key,
          text: own,
          place: 'taken-out',
          gap: { prev: prev?.key ?? null, next: next?.key ?? null, lead, trail, left: between(w, i - 1) },
        });
      }
      if (replace.size) {
        const info = rootInfo(w);
        for (const prop of info.props) {
          const server = adopt.get(prop.key);
          if (server === undefined || claims.get(server) !== prop.key) continue;
          imported.push({ entry: prop.key, server, text: w.slice(prop.offset, prop.end), place: 'replaced' });
        }
        w = replaceEntries(w, info, replace, format);
      }
      if (toAdd.length) {
        const info = rootInfo(w);
        const result = insertProperties(w, info, toAdd, format);
        w = result.text;
        if (info.props.length === 0) layout.serversForm = result.form;
      }
    }
    ({ text, root: rootNow, container } = paste(text, rootNow, container, window, w));
    window = { ...window, text: w };
  } else if (toAdd.length) {
    // 3. No servers object yet: Switchboard adds one (and remembers it did), then the entries.
    const rootWasEmpty = root.props.length === 0;
    const made = insertProperties(text, root, [[serversKey, {}]], format);
    const keyAt = made.keyOffsets[0] ?? 0;
    const open = keyAt + JSON.stringify(serversKey).length + 2;
    if (made.text[open] !== '{' || made.text[open + 1] !== '}') {
      return { ok: false, problem: 'internal error: could not add the servers object; nothing was written' };
    }
    // The new object is the root's last property; nothing before it moved, the closing brace did.
    container = { key: serversKey, offset: keyAt, valueOffset: open, end: open + 2 };
    rootNow = {
      open: root.open,
      close: root.close + made.text.length - text.length,
      props: [...root.props, container],
    };
    text = made.text;
    rootChanged = true;
    layout.containerCreated = true;
    if (rootWasEmpty) layout.rootForm = made.form;
    if (empty) layout.fileWas = { existed: original !== undefined, text: original ?? '' };
    window = cut(text, container);
    const result = insertProperties(window.text, rootInfo(window.text), toAdd, format);
    layout.serversForm = result.form;
    ({ text, root: rootNow, container } = paste(text, rootNow, container, window, result.text));
    window = { ...window, text: result.text };
  }

  // 4. A servers object Switchboard created goes again once empty; so does a file it created.
  if (container && window) {
    const info = rootInfo(window.text);
    if (info.props.length === 0) {
      layout.serversForm = undefined;
      const inside = window.text.slice(info.open + 1, info.close);
      if (layout.containerCreated && inside.trim() === '') {
        const rootOnly = rootNow.props.length === 1;
        text = removeProperties(
          text,
          rootNow,
          new Set([serversKey]),
          rootOnly ? layout.rootForm : undefined,
        ).text;
        rootChanged = true;
        layout.containerCreated = undefined;
        layout.rootForm = undefined;
      }
    }
  }

  let finalText: string | undefined;
  if (text === body) {
    finalText = original;
  } else if (layout.fileWas && text === NEW_FILE) {
    finalText = layout.fileWas.existed ? layout.fileWas.text : undefined;
    layout = { file: input.file, ports: layout.ports };
  } else {
    finalText = bom + text;
  }
  const summary = { added, updated, removed, clashes, adopted, imported, restored, notRestored };
  if (finalText === original)
    return { ok: true, text: original, changed: false, ...summary, layout: input.layout };
  if (finalText !== undefined && finalText.trim() !== '') {
    const problem = checkResult({
      after: stripBom(finalText),
      serversKey,
      // An entry given back may bring the comments or trailing comma the user's file had before import.
      strict: strict && !(input.restore ?? []).flat().some((e) => restored.includes(e.entry) && lenient(e)),
      valueBefore: located.value,
      window: window?.text.slice(window.lead.length),
      rootChanged,
      input,
      userBefore,
      adopted,
      clashes,
      restored: restoredValues(input.restore, restored),
    });
    if (problem) return { ok: false, problem };
  }
  return { ok: true, text: finalText, changed: true, ...summary, layout };
}

// ---- locating the servers object ------------------------------------------------------------------

type Located =
  | { ok: true; root: ObjectInfo; strict: boolean; value: () => unknown }
  | { ok: false; problem: string; line: number; column: number };

/**
 * Validates the whole file and finds the root object's properties. Strict JSON is checked with
 * JSON.parse (fast) and walked with the scanner at the top level only; anything else is parsed as
 * JSONC, which also reports where it breaks.
 */
function locate(body: string): Located {
  let parsed: unknown;
  let strict = true;
  try {
    parsed = JSON.parse(body);
  } catch {
    strict = false;
  }
  if (strict) {
    if (!isPlainObject(parsed))
      return { ok: false, problem: 'the file is not a JSON object', ...lineColumn(body, body.search(/\S/)) };
    return { ok: true, root: topLevel(body), strict, value: () => parsed };
  }
  const errors: ParseError[] = [];
  const node = parseTree(body, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first || !node) {
    const { line, column } = lineColumn(body, first?.offset ?? 0);
    return {
      ok: false,
      problem: `not valid JSON at line ${line}, column ${column}: ${parseErrorWords(first)}`,
      line,
      column,
    };
  }
  if (node.type !== 'object')
    return { ok: false, problem: 'the file is not a JSON object', ...lineColumn(body, node.offset) };
  return { ok: true, root: objectInfo(node), strict, value: () => getNodeValue(node) };
}

/**
 * The root object's properties of a document already known to be valid JSON, found with one pass over
 * its characters that only keeps track of strings and nesting (large app-owned files like
 * ~/.claude.json are mostly nested history, which is skipped without being tokenised).
 */
function topLevel(body: string): ObjectInfo {
  const root: ObjectInfo = { open: body.indexOf('{'), close: -1, props: [] };
  let depth = 0;
  let current: PropInfo | undefined;
  let expectKey = true;
  const n = body.length;
  for (let i = root.open; i < n; i++) {
    const c = body.charCodeAt(i);
    if (c === 34 /* " */) {
      const start = i;
      for (i++; i < n; i++) {
        const d = body.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
      if (depth !== 1) continue;
      if (expectKey) {
        current = {
          key: JSON.parse(body.slice(start, i + 1)) as string,
          offset: start,
          end: i + 1,
          valueOffset: i + 1,
        };
      } else if (current) {
        current.valueOffset = start;
        current.end = i + 1;
        root.props.push(current);
        current = undefined;
      }
      continue;
    }
    if (c === 123 /* { */ || c === 91 /* [ */) {
      if (depth === 1 && current) current.valueOffset = i;
      depth++;
      continue;
    }
    if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
      if (depth === 0) {
        root.close = i;
        break;
      }
      if (depth === 1 && current) {
        current.end = i + 1;
        root.props.push(current);
        current = undefined;
      }
      continue;
    }
    if (depth !== 1) continue;
    if (c === 44 /* , */) expectKey = true;
    else if (c === 58 /* : */) expectKey = false;
    else if (current && c > 32) {
      // a number, true, false or null
      const start = i;
      while (i + 1 < n && !/[\s,}\]]/.test(body[i + 1] ?? '')) i++;
      current.valueOffset = start;
      current.end = i + 1;
      root.props.push(current);
      current = undefined;
    }
  }
  return root;
}

interface Window {
  /** the indentation of the line the servers object starts on, then the object's text */
  text: string;
  lead: string;
  /** where the object starts in the file */
  at: number;
  /** its length in the file */
  length: number;
}

/** The servers object's text, behind the indentation of its line (so edits indent as in the file). */
function cut(text: string, prop: PropInfo): Window {
  const lead = lineIndent(text, prop.valueOffset);
  return {
    text: lead + text.slice(prop.valueOffset, prop.end),
    lead,
    at: prop.valueOffset,
    length: prop.end - prop.valueOffset,
  };
}

/** Puts an edited window back, moving what follows it. */
function paste(
  text: string,
  root: ObjectInfo,
  container: PropInfo,
  window: Window,
  edited: string,
): { text: string; root: ObjectInfo; container: PropInfo } {
  const inner = edited.slice(window.lead.length);
  const delta = inner.length - window.length;
  const out = text.slice(0, window.at) + inner + text.slice(window.at + window.length);
  const move = (p: PropInfo): PropInfo =>
    p.offset > container.offset
      ? { ...p, offset: p.offset + delta, end: p.end + delta, valueOffset: p.valueOffset + delta }
      : p;
  const props = root.props.map((p) => (p === container ? { ...p, end: p.end + delta } : move(p)));
  const moved = props[root.props.indexOf(container)] ?? container;
  return { text: out, root: { open: root.open, close: root.close + delta, props }, container: moved };
}

// ---- giving imported entries back -----------------------------------------------------------------

/** The text between property `i` (-1: the opening brace) and the one after it (or the closing brace). */
function between(w: string, i: number): string {
  const info = rootInfo(w);
  const from = i < 0 ? info.open + 1 : (info.props[i]?.end ?? info.open + 1);
  return w.slice(from, info.props[i + 1]?.offset ?? info.close);
}

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
function lenient(e: PlannedImport): boolean {
  const errors: ParseError[] = [];
  parseTree(`{${e.text}}`, errors, { allowTrailingComma: false, disallowComments: true });
  if (errors.length) return true;
  const around = e.gap ? e.gap.lead + e.gap.trail : '';
  return /\/[/*]/.test(around) || (e.gap?.next === null && e.gap.trail.includes(','));
}

function restoredValues(batches: PlanInput['restore'], restored: readonly string[]): Map<string, unknown> {
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
function undoImports(
  window: string,
  batches: readonly (readonly PlannedImport[])[],
  isManaged: PlanInput['isManaged'],
  format: TextFormat,
  form: ContainerForm | undefined,
): { text: string; restored: string[]; notRestored: { entry: string; why: string }[] } {
  const all = batches.flat();
  const replaced = all.filter((e) => e.place === 'replaced');
  const replacedBy = new Set(replaced.map((e) => e.server));
  // Managed entries that stood next to an entry import took out (a neighbour named like an entry
  // import replaced was that user entry, which comes back first).
  const users = new Set(
    all.filter((e) => e.entry !== e.server || e.place === 'taken-out').map((e) => e.entry),
  );
  const neighbours = new Set(
    all
      .flatMap((e) => (e.gap ? [e.gap.prev, e.gap.next] : []))
      .filter((k): k is string => k !== null && !users.has(k)),
  );
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

  dropManaged((key) => replacedBy.has(key) || neighbours.has(key));
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

// ---- the guard ------------------------------------------------------------------------------------

/** Equal as JSON (jsonc-parser builds objects without a prototype, which isDeepStrictEqual tells apart). */
function jsonEqual(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a) ?? 'null'), JSON.parse(JSON.stringify(b) ?? 'null'));
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The guard against a bug here ever reaching a user's file: the result must parse (as strict JSON if
 * the file was), the user's own entries must be what they were (in order), and when the servers object
 * itself was added or removed, every other setting too. When only the servers object changed, the
 * text around it is the original by construction, and checking the object is enough.
 */
function checkResult(check: {
  after: string;
  serversKey: string;
  strict: boolean;
  valueBefore: () => unknown;
  window: string | undefined;
  rootChanged: boolean;
  input: PlanInput;
  userBefore: ReadonlyMap<string, unknown>;
  adopted: readonly string[];
  clashes: readonly string[];
  /** unsync: user entries given back, and the values they must have */
  restored: ReadonlyMap<string, unknown>;
}): string | undefined {
  const invalid = 'internal error: the edit would have made the file invalid; nothing was written';
  const changedOutside =
    "internal error: the edit would have changed settings that are not Switchboard's; nothing was written";
  const parse = (text: string): { value: unknown } | undefined => {
    if (check.strict) {
      try {
        return { value: JSON.parse(text) as unknown };
      } catch {
        return undefined;
      }
    }
    const errors: ParseError[] = [];
    const node = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
    return errors.length || !node ? undefined : { value: getNodeValue(node) };
  };
  let servers: unknown;
  let whole: unknown;
  if (check.rootChanged || check.window === undefined) {
    const parsed = parse(check.after);
    if (!parsed || !isPlainObject(parsed.value)) return invalid;
    whole = parsed.value;
    servers = parsed.value[check.serversKey];
  } else {
    const parsed = parse(check.window);
    if (!parsed || !isPlainObject(parsed.value)) return invalid;
    servers = parsed.value;
  }
  const ours = ownedAfter(check.input, check.clashes);
  const userAfter = isPlainObject(servers) ? Object.entries(servers).filter(([k, v]) => !ours(k, v)) : [];
  const expected = [...check.userBefore].filter(([k]) => !check.adopted.includes(k));
  const kept = userAfter.filter(([k]) => !check.restored.has(k) || check.userBefore.has(k));
  if (!jsonEqual(kept, expected)) return changedOutside;
  for (const [key, value] of check.restored) {
    if (!isPlainObject(servers) || !jsonEqual(servers[key], value)) return changedOutside;
  }
  if (whole !== undefined) {
    const strip = (value: unknown): unknown => {
      if (!isPlainObject(value)) return value;
      return Object.fromEntries(Object.entries(value).filter(([k]) => k !== check.serversKey));
    };
    // Both from the same parser: equal settings serialise to the same text (keys in the same order),
    // which compares a large file several times faster than a deep comparison.
    if (JSON.stringify(strip(check.valueBefore())) !== JSON.stringify(strip(whole))) return changedOutside;
  }
  return undefined;
}
