import { isMap, isScalar, isSeq, parseDocument, stringify, type Document, type Node } from 'yaml';
import { isPlainObject } from '../config/jsonc-render.ts';
import { stripBom } from '../fs/bom.ts';
import {
  adoptedInPlace,
  entryChanges,
  noChanges,
  takenOutServer,
  type EntryChanges,
} from './entry-changes.ts';
import type { FileEntries, FileFormat } from './file-format.ts';
import { lineEditProblem, stripUndefined, withoutServers } from './line-edit-guard.ts';
import { takeOut, undoLineImports, type LineFormatOps } from './line-give-back.ts';
import { planStart, type PlanInput, type PlannedImport, type PlanResult } from './file-plan.ts';

/**
 * YAML editor files (Goose's config.yaml, Continue's config.yaml), edited as lines so that the
 * user's comments, quoting and layout stay byte for byte. The `yaml` library gives every node its
 * place in the text; Switchboard's entries are whole blocks of lines it writes itself, after the last
 * entry of the servers collection (or under a collection key it adds at the end of the file), and
 * removed as exactly those lines. Two shapes of collection:
 *
 * - a map by name (Goose: `extensions:` → `NAME: {…}`);
 * - a list of entries named by a field (Continue: `mcpServers:` → `- name: NAME …`).
 *
 * Every result is parsed again and compared with the original: only Switchboard's entries may differ.
 *
 * Import writes Switchboard's entry over the lines of the user's it replaces, and unsync puts those
 * lines back (line-give-back.ts); a list entry that does not start on the line of its `-` is not
 * imported (its lines could not be given back as they were).
 */

type Span = { start: number; end: number };

interface Item {
  name: string;
  value: unknown;
  /** its whole lines */
  span: Span;
  /** a list entry that does not start on the line of its `-`: read, never edited */
  fixed?: boolean;
}

interface Located {
  doc: Document;
  value: Record<string, unknown>;
  /** the collection key's own line, when the collection is there */
  keyLine: Span | undefined;
  /** the key's indentation */
  keyIndent: string;
  /** the collection is there but holds nothing (`key:` alone) */
  nullCollection: boolean;
  items: Item[];
  /** where a new entry goes: after the last entry's line break (undefined: no block collection) */
  insertAt: number | undefined;
  /** the indentation of entries (of `-` for a list) */
  itemIndent: string | undefined;
}

type Problem = { ok: false; problem: string; line?: number; column?: number };

export interface YamlShape {
  /** "map": `key: {NAME: entry}`; "list": `key: [entry]`, each entry's `nameKey` naming it */
  collection: 'map' | 'list';
  /** the field that names a list entry */
  nameKey?: string;
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}

/** Past the line break of the line `at` is on (or the end of the text). */
function lineEnd(text: string, at: number): number {
  const nl = text.indexOf('\n', at);
  return nl < 0 ? text.length : nl + 1;
}

function indentAt(text: string, at: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, at), at))?.[0] ?? '';
}

/** The line span of a node from its key (or its `-`) to the end of its last line. */
function spanOf(text: string, from: number, node: Node | null | undefined, fallbackEnd: number): Span {
  const end = node?.range ? Math.max(node.range[1] - 1, fallbackEnd) : fallbackEnd;
  return { start: lineStart(text, from), end: lineEnd(text, Math.max(end, from)) };
}

function parse(text: string, serversKey: string, shape: YamlShape): Located | Problem {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: false });
  const error = doc.errors[0];
  if (error) {
    const [line, column] = error.linePos?.[0] ? [error.linePos[0].line, error.linePos[0].col] : [1, 1];
    return {
      ok: false,
      problem: `not valid YAML at line ${line}, column ${column}: ${error.message.split('\n')[0] ?? ''}`,
      line,
      column,
    };
  }
  const value: unknown = doc.toJS();
  if (value !== null && value !== undefined && !isPlainObject(value))
    return { ok: false, problem: 'the file is not a YAML mapping' };
  const located: Located = {
    doc,
    value: isPlainObject(value) ? value : {},
    keyLine: undefined,
    keyIndent: '',
    nullCollection: false,
    items: [],
    insertAt: undefined,
    itemIndent: undefined,
  };
  const root = doc.contents;
  if (!isMap(root)) return located;
  const pair = root.items.find((p) => isScalar(p.key) && p.key.value === serversKey);
  if (!pair || !isScalar(pair.key) || !pair.key.range) return located;
  const keyAt = pair.key.range[0];
  located.keyLine = { start: lineStart(text, keyAt), end: lineEnd(text, pair.key.range[1]) };
  located.keyIndent = indentAt(text, keyAt);
  const coll = pair.value;
  if (coll === null || (isScalar(coll) && coll.value === null)) {
    located.nullCollection = true;
    return located;
  }
  const kind = shape.collection === 'map' ? 'a mapping' : 'a list';
  if (shape.collection === 'map' ? !isMap(coll) : !isSeq(coll))
    return { ok: false, problem: `"${serversKey}" is not ${kind}` };
  if (!isMap(coll) && !isSeq(coll)) return located;
  if (coll.flow) {
    if (coll.items.length === 0) {
      // `key: {}` / `key: []`: entries need a block collection; treated as none there yet.
      return {
        ok: false,
        problem: `"${serversKey}" is written in flow style (${shape.collection === 'map' ? '{}' : '[]'}); write it as a block (or remove it) to let Switchboard add its entries`,
      };
    }
    return {
      ok: false,
      problem: `"${serversKey}" is written in flow style ({ … } or [ … ]); write it as a block to let Switchboard add its entries`,
    };
  }
  if (isMap(coll)) {
    for (const p of coll.items) {
      if (!isScalar(p.key) || !p.key.range) continue;
      const span = spanOf(text, p.key.range[0], p.value as Node | null, p.key.range[1]);
      const v = p.value as { toJSON?: () => unknown } | null;
      located.items.push({
        name: String(p.key.value),
        value: (p.value as Node | null)?.toJS?.(doc) ?? v,
        span,
      });
    }
  } else {
    for (const item of coll.items) {
      if (!isMap(item) || !item.range) continue;
      const start = lineStart(text, item.range[0]);
      const js = item.toJS(doc) as Record<string, unknown>;
      const name = js[shape.nameKey ?? 'name'];
      if (typeof name !== 'string') continue;
      located.items.push({
        name,
        value: js,
        span: spanOf(text, item.range[0], item, item.range[0]),
        // Only entries that start on the line of their `-` (the shape Switchboard writes) are edited.
        fixed: !/^[ \t]*-[ \t]+$/.test(text.slice(start, item.range[0])),
      });
    }
  }
  const first = coll.items[0];
  const firstAt =
    first && (isMap(coll) ? (first as { key?: Node }).key?.range?.[0] : (first as Node).range?.[0]);
  if (firstAt !== undefined)
    located.itemIndent = isSeq(coll)
      ? /^[ \t]*/.exec(text.slice(lineStart(text, firstAt)))?.[0]
      : indentAt(text, firstAt);
  const last = located.items[located.items.length - 1];
  located.insertAt = Math.max(last?.span.end ?? 0, coll.range ? lineEnd(text, coll.range[1] - 1) : 0);
  if (coll.range && coll.range[1] > 0 && text[coll.range[1] - 1] !== '\n') located.insertAt = coll.range[1];
  return located;
}

/** The collection's entries as [name, value], in order (a map's or a list's). */
function collectionEntries(located: Located): [string, unknown][] {
  return located.items.map((i) => [i.name, i.value]);
}

function render(
  shape: YamlShape,
  name: string,
  entry: Record<string, unknown>,
  indent: string,
  unit: string,
  eol: string,
): string {
  const options = { indent: unit.length, lineWidth: 0, minContentWidth: 0 } as const;
  const text =
    shape.collection === 'map' ? stringify({ [name]: entry }, options) : stringify([entry], options);
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => indent + line + eol)
    .join('');
}

/** Entries import may not replace (their lines could not be given back as they are), and why. */
function fixedEntries(located: Located, serversKey: string): Map<string, string> {
  return new Map(
    located.items
      .filter((i) => i.fixed)
      .map((i) => [
        i.name,
        `its entry in "${serversKey}" does not start on the line of its "-"; put it there to import it`,
      ]),
  );
}

/** The first line's indentation. */
function firstIndent(text: string): string {
  return /^[ \t]*/.exec(text)?.[0] ?? '';
}

/** The lines of an entry moved to another indentation (lines indented less, like comments, stay). */
function reindent(text: string, to: string): string {
  const from = firstIndent(text);
  if (from === to) return text;
  return text
    .split('\n')
    .map((line) => (line.startsWith(from) && line.trim() !== '' ? to + line.slice(from.length) : line))
    .join('\n');
}

/** The value of an entry's recorded lines: a map's `NAME: …`, or a list's `- …`. */
function entryValue(shape: YamlShape, text: string, entry: string): unknown {
  const doc = parseDocument(reindent(text, ''), { prettyErrors: false, uniqueKeys: false });
  if (doc.errors.length) return undefined;
  const value: unknown = doc.toJS();
  if (shape.collection === 'list') return Array.isArray(value) ? (value[0] as unknown) : undefined;
  return isPlainObject(value) && Object.hasOwn(value, entry) ? value[entry] : undefined;
}

function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** Where a new entry goes in `located`'s text, and with what before it (a line break, a key). */
function insertion(
  located: Located,
  text: string,
  serversKey: string,
  unit: string,
  eol: string,
): { at: number; before: string; indent: string; createdKey: boolean; eolAdded: boolean } {
  const indent = located.itemIndent ?? located.keyIndent + unit;
  let at = located.insertAt;
  if (at === undefined && located.nullCollection && located.keyLine) at = located.keyLine.end;
  if (at !== undefined) {
    const eolAdded = at === text.length && text !== '' && !text.endsWith('\n');
    return { at, before: eolAdded ? eol : '', indent, createdKey: false, eolAdded };
  }
  // No collection yet: the key and the entries go at the end of the file.
  const eolAdded = text !== '' && !text.endsWith('\n');
  return {
    at: text.length,
    before: `${eolAdded ? eol : ''}${serversKey}:${eol}`,
    indent: unit,
    createdKey: true,
    eolAdded,
  };
}

/** How unsync finds, removes and places entries in a YAML file (line-give-back.ts). */
function yamlOps(shape: YamlShape, serversKey: string, unit: string, eol: string): LineFormatOps {
  const read = (text: string) => {
    const located = parse(text, serversKey, shape);
    return 'ok' in located ? undefined : located;
  };
  return {
    read(text) {
      const located = read(text);
      if (!located) return undefined;
      return {
        items: located.items,
        entries: collectionEntries(located),
        settings: withoutServers(located.value, serversKey),
      };
    },
    remove(text, name) {
      const item = read(text)?.items.find((i) => i.name === name && !i.fixed);
      return item ? text.slice(0, item.span.start) + text.slice(item.span.end) : text;
    },
    append(text, e) {
      const located = read(text);
      if (!located) return text;
      const place = insertion(located, text, serversKey, unit, eol);
      return text.slice(0, place.at) + place.before + reindent(e.text, place.indent) + text.slice(place.at);
    },
    value: (e) => entryValue(shape, e.text, e.entry),
  };
}

/** Applies edits from the end backwards, so that offsets stay valid. */
function applyEdits(text: string, edits: { start: number; end: number; text: string }[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start || b.end - a.end))
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

function planYaml(shape: YamlShape, input: PlanInput): PlanResult {
  const { serversKey } = input;
  const start = planStart(input);
  const { original, bom, body } = start;
  let { layout } = start;
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  const unit = /\n( +)\S/.exec(body)?.[1]?.length === 4 ? '    ' : '  ';

  const located = parse(body, serversKey, shape);
  if ('ok' in located) return located;
  const fixed = fixedEntries(located, serversKey);
  const changes = entryChanges(collectionEntries(located), input, (name) => !fixed.has(name));
  const { toRemove, replace, toAdd, added, updated, removed, clashes, adopted } = changes;
  const imported: PlannedImport[] = [];
  let restored: string[] = [];
  let notRestored: { entry: string; why: string }[] = [];
  const summary = () => ({ added, updated, removed, clashes, adopted, imported, restored, notRestored });
  const restoring = (input.restore?.length ?? 0) > 0 && input.desired.size === 0;
  if (!restoring && noChanges(changes))
    return { ok: true, text: original, changed: false, ...summary(), layout: input.layout };
  const internal = {
    ok: false as const,
    problem: 'internal error: lost the servers collection while editing',
  };

  let text = body;
  if (restoring) {
    const undone = undoLineImports(
      body,
      input.restore ?? [],
      input.isManaged,
      yamlOps(shape, serversKey, unit, eol),
    );
    if ('problem' in undone) return { ok: false, problem: undone.problem };
    ({ text, restored, notRestored } = undone);
  } else {
    for (const item of located.items) {
      if (item.fixed && (toRemove.has(item.name) || replace.has(item.name)))
        return {
          ok: false,
          problem: `the entry "${item.name}" of "${serversKey}" does not start on the line of its "-"; put it there to let Switchboard change it`,
        };
    }
    // 1. Switchboard's entries no longer wanted, and those moving to the place of a user's entry.
    text = applyEdits(
      text,
      located.items.filter((i) => toRemove.has(i.name)).map((i) => ({ ...i.span, text: '' })),
    );
    // 2. The user's entries taken out (another of the same server took the place), one at a time
    // from the last: each with what unsync needs to put it back exactly.
    const out = new Set(changes.takenOut);
    while (out.size) {
      const now = parse(text, serversKey, shape);
      if ('ok' in now) return internal;
      const index = now.items.findLastIndex((i) => out.has(i.name));
      const name = now.items[index]?.name;
      if (name === undefined) return internal;
      const taken = takeOut(text, now.items, index, takenOutServer(input, name));
      imported.push(taken.record);
      text = taken.text;
      out.delete(name);
    }
    // 3. In place: the user's entries import replaces, and Switchboard's entries that changed.
    let now = parse(text, serversKey, shape);
    if ('ok' in now) return internal;
    const itemIndent = now.itemIndent ?? now.keyIndent + unit;
    const edits: { start: number; end: number; text: string }[] = [];
    for (const item of now.items) {
      const r = replace.get(item.name);
      if (!r) continue;
      if (adoptedInPlace(changes, item.name))
        imported.push({
          entry: item.name,
          server: r.server,
          text: text.slice(item.span.start, item.span.end),
          place: 'replaced',
        });
      edits.push({ ...item.span, text: render(shape, r.server, r.entry, itemIndent, unit, eol) });
      replace.delete(item.name);
    }
    text = applyEdits(text, edits);
    // 4. New entries, after the collection's last (or under a key added at the end of the file).
    if (toAdd.length) {
      now = parse(text, serversKey, shape);
      if ('ok' in now) return internal;
      const place = insertion(now, text, serversKey, unit, eol);
      if (place.createdKey) {
        if (text === '' && layout.fileWas === undefined)
          layout.fileWas = { existed: original !== undefined, text: original ?? '' };
        layout.containerCreated = true;
      }
      if (place.eolAdded) layout.eolAdded = true;
      const blocks = toAdd
        .map(([name, entry]) => render(shape, name, entry, place.indent, unit, eol))
        .join('');
      text = text.slice(0, place.at) + place.before + blocks + text.slice(place.at);
    }
  }

  // The last entry gone: a collection key Switchboard added goes, and so do its line break and file.
  const managedLeft = [...input.desired.keys()].some((n) => !clashes.includes(n));
  if (!managedLeft) {
    if (layout.containerCreated) {
      const after = parse(text, serversKey, shape);
      if (!('ok' in after) && after.keyLine && after.items.length === 0 && after.nullCollection)
        text = text.slice(0, after.keyLine.start) + text.slice(after.keyLine.end);
      layout.containerCreated = undefined;
    }
    if (layout.eolAdded && text.endsWith(eol)) text = text.slice(0, -eol.length);
    layout.eolAdded = undefined;
  }
  let finalText: string | undefined = bom + text;
  if (!managedLeft && layout.fileWas) {
    if (text === '') finalText = layout.fileWas.existed ? layout.fileWas.text : undefined;
    layout = { file: input.file, ports: layout.ports };
  }
  if (finalText === original)
    return { ok: true, text: original, changed: false, ...summary(), layout: input.layout };
  const given = new Map(
    (input.restore ?? [])
      .flat()
      .filter((e) => restored.includes(e.entry))
      .map((e) => [e.entry, entryValue(shape, e.text, e.entry)]),
  );
  const problem =
    finalText === undefined
      ? undefined
      : check(shape, finalText.slice(bom.length), located, input, changes, given);
  if (problem) return { ok: false, problem };
  return { ok: true, text: finalText, changed: true, ...summary(), layout: stripUndefined(layout) };
}

/** The guard (line-edit-guard.ts) on the new text, read back as YAML of this shape. */
function check(
  shape: YamlShape,
  after: string,
  before: Located,
  input: PlanInput,
  changes: EntryChanges,
  restored: ReadonlyMap<string, unknown>,
): string | undefined {
  const now = after.trim() === '' ? undefined : parse(after, input.serversKey, shape);
  if (now && 'ok' in now) return lineEditProblem('unparsable', before.value, input, changes, restored);
  const listed = now ? collectionEntries(now) : [];
  const nameKey = shape.nameKey ?? 'name';
  const count = (v: Record<string, unknown>) => {
    const c = v[input.serversKey];
    if (Array.isArray(c)) return c.filter((e) => isPlainObject(e) && typeof e[nameKey] === 'string').length;
    return isPlainObject(c) ? Object.keys(c).length : 0;
  };
  // Every entry of the collection was seen (none hidden in a shape the edit does not read).
  const readBack = now && { value: now.value, entries: listed, complete: listed.length === count(now.value) };
  return lineEditProblem(readBack, before.value, input, changes, restored);
}

export function yamlFormat(shape: YamlShape): FileFormat {
  return {
    name: 'YAML',
    plan: (input) => planYaml(shape, input),
    entryValue: (e) => entryValue(shape, e.text, e.entry),
    entryFromValue(e, value) {
      // JSON is YAML too: the value on one line, in the entry's place and indentation.
      const indent = firstIndent(e.text);
      const line =
        shape.collection === 'map'
          ? `${indent}${JSON.stringify(e.entry)}: ${JSON.stringify(value)}`
          : `${indent}- ${JSON.stringify(value)}`;
      return { ...e, text: line + eolOf(e.text) };
    },
    entries(text: string, serversKey: string): FileEntries {
      const body = stripBom(text);
      if (body.trim() === '') return { ok: true, entries: [] };
      const located = parse(body, serversKey, shape);
      if ('ok' in located) return { ok: false, problem: located.problem };
      const fixed = fixedEntries(located, serversKey);
      return { ok: true, entries: collectionEntries(located), ...(fixed.size ? { fixed } : {}) };
    },
  };
}
