import { isDeepStrictEqual } from 'node:util';
import { getNodeValue, parseTree, type ParseError } from 'jsonc-parser';
import { detectFormat } from '../config/edit.ts';
import { isPlainObject } from '../config/jsonc-render.ts';
import {
  insertProperties,
  lineIndent,
  objectInfo,
  removeProperties,
  replaceValues,
  rootInfo,
  type ContainerForm,
  type ObjectInfo,
  type PropInfo,
} from './jsonc-entries.ts';
import { lineColumn, parseErrorWords } from '../../../shared/jsonc-errors.ts';

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

export interface PlanInput {
  /** the file's text as read (BOM included); undefined when there is no file */
  text: string | undefined;
  /** the top-level key of the servers object */
  serversKey: string;
  /** the managed entries the file must have, by server name */
  desired: ReadonlyMap<string, Record<string, unknown>>;
  /** is this entry Switchboard's (points at this bridge)? */
  isManaged(entry: unknown): boolean;
  layout: FileLayout | undefined;
  file: string;
  /** user entries to replace by managed ones (import): entry name → server name */
  adopt?: ReadonlyMap<string, string>;
}

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
      (input.isManaged(value) ? managed : user).set(key, value);
    }
  }
  const userBefore = new Map(user);

  const adopt = input.adopt ?? new Map<string, string>();
  const added: string[] = [];
  const updated: string[] = [];
  const removed: string[] = [];
  const clashes: string[] = [];
  const adopted: string[] = [];

  // 1. Managed entries no longer wanted, and user entries that import replaces under another name.
  const toRemove = new Set<string>();
  for (const key of managed.keys()) {
    if (input.desired.has(key)) continue;
    toRemove.add(key);
    removed.push(key);
  }
  for (const [key, server] of adopt) {
    if (!user.has(key) || key === server || !input.desired.has(server)) continue;
    // Never drop the user's entry when the server could not take its place (its name is taken).
    if (user.has(server) && adopt.get(server) !== server) continue;
    toRemove.add(key);
    user.delete(key);
    adopted.push(key);
  }
  // 2. Updates in place: managed entries that differ, and user entries import replaces by name.
  const replace = new Map<string, unknown>();
  const toAdd: [string, Record<string, unknown>][] = [];
  for (const [name, entry] of input.desired) {
    if (managed.has(name)) {
      if (!jsonEqual(managed.get(name), entry)) {
        replace.set(name, entry);
        updated.push(name);
      }
    } else if (user.has(name)) {
      if (adopt.get(name) === name) {
        replace.set(name, entry);
        adopted.push(name);
        user.delete(name);
      } else {
        clashes.push(name);
      }
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
    if (toRemove.size) {
      const result = removeProperties(w, rootInfo(w), toRemove, layout.serversForm);
      w = result.text;
      if (result.emptied) layout.serversForm = undefined;
    }
    if (replace.size) w = replaceValues(w, rootInfo(w), replace, format);
    if (toAdd.length) {
      const info = rootInfo(w);
      const result = insertProperties(w, info, toAdd, format);
      w = result.text;
      if (info.props.length === 0) layout.serversForm = result.form;
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
  const summary = { added, updated, removed, clashes, adopted };
  if (finalText === original)
    return { ok: true, text: original, changed: false, ...summary, layout: input.layout };
  if (finalText !== undefined && finalText.trim() !== '') {
    const problem = checkResult({
      after: stripBom(finalText),
      serversKey,
      strict,
      valueBefore: located.value,
      window: window?.text.slice(window.lead.length),
      rootChanged,
      input,
      userBefore,
      adopted,
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
  const userAfter = isPlainObject(servers)
    ? Object.entries(servers).filter(([, v]) => !check.input.isManaged(v))
    : [];
  const expected = [...check.userBefore].filter(([k]) => !check.adopted.includes(k));
  if (!jsonEqual(userAfter, expected)) return changedOutside;
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
