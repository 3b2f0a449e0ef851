import { isDeepStrictEqual } from 'node:util';
import { isMap, isScalar, isSeq, parseDocument, stringify, type Document, type Node } from 'yaml';
import { isPlainObject } from '../config/jsonc-render.ts';
import { collectionProblem, entryChanges, noChanges, type EntryChanges } from './entry-changes.ts';
import type { FileEntries, FileFormat } from './file-format.ts';
import type { FileLayout, PlanInput, PlanResult } from './plan.ts';

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

function planYaml(shape: YamlShape, input: PlanInput): PlanResult {
  const { serversKey } = input;
  const original = input.text;
  let layout: FileLayout = input.layout?.file === input.file ? { ...input.layout } : { file: input.file };
  const empty = original === undefined || original.trim() === '';
  const bom = !empty && original.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
  const body = empty ? '' : original.slice(bom.length);
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  const unit = /\n( +)\S/.exec(body)?.[1]?.length === 4 ? '    ' : '  ';

  const located = parse(body, serversKey, shape);
  if ('ok' in located) return located;
  const changes = entryChanges(collectionEntries(located), input);
  const { toRemove, replace, toAdd, added, updated, removed, clashes, adopted } = changes;
  const summary = { added, updated, removed, clashes, adopted };
  if (noChanges(changes))
    return { ok: true, text: original, changed: false, ...summary, layout: input.layout };

  const itemIndent = located.itemIndent ?? located.keyIndent + unit;
  const edits: { start: number; end: number; text: string }[] = [];
  for (const item of located.items) {
    if (item.fixed && (toRemove.has(item.name) || replace.has(item.name)))
      return {
        ok: false,
        problem: `the entry "${item.name}" of "${serversKey}" does not start on the line of its "-"; put it there to let Switchboard change it`,
      };
    if (toRemove.has(item.name)) edits.push({ ...item.span, text: '' });
    const entry = replace.get(item.name);
    if (entry) {
      edits.push({ ...item.span, text: render(shape, item.name, entry, itemIndent, unit, eol) });
      replace.delete(item.name);
    }
  }
  let text = body;
  let insertAt = located.insertAt;
  if (toAdd.length) {
    const blocks = toAdd.map(([name, entry]) => render(shape, name, entry, itemIndent, unit, eol)).join('');
    if (insertAt === undefined && located.nullCollection && located.keyLine) {
      insertAt = located.keyLine.end;
    }
    if (insertAt !== undefined) {
      let add = blocks;
      if (insertAt === text.length && text !== '' && !text.endsWith('\n')) {
        add = eol + add;
        layout.eolAdded = true;
      }
      edits.push({ start: insertAt, end: insertAt, text: add });
    } else {
      // No collection yet: the key and the entries go at the end of the file.
      let add = `${serversKey}:${eol}${toAdd.map(([n, e]) => render(shape, n, e, unit, unit, eol)).join('')}`;
      if (text === '') {
        if (layout.fileWas === undefined)
          layout.fileWas = { existed: original !== undefined, text: original ?? '' };
      } else if (!text.endsWith('\n')) {
        add = eol + add;
        layout.eolAdded = true;
      }
      layout.containerCreated = true;
      edits.push({ start: text.length, end: text.length, text: add });
    }
  }
  edits.sort((a, b) => b.start - a.start || b.end - a.end);
  for (const e of edits) text = text.slice(0, e.start) + e.text + text.slice(e.end);

  // The last entry gone: a collection key Switchboard added goes, and so do its line break and file.
  const remaining = located.items.length - toRemove.size + toAdd.length;
  const managedLeft = [...input.desired.keys()].some((n) => !clashes.includes(n));
  if (!managedLeft) {
    if (layout.containerCreated && remaining === 0) {
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
    return { ok: true, text: original, changed: false, ...summary, layout: input.layout };
  const problem =
    finalText === undefined ? undefined : check(shape, finalText.slice(bom.length), located, input, changes);
  if (problem) return { ok: false, problem };
  return { ok: true, text: finalText, changed: true, ...summary, layout: stripUndefined(layout) };
}

function stripUndefined(layout: FileLayout): FileLayout {
  return Object.fromEntries(Object.entries(layout).filter(([, v]) => v !== undefined)) as FileLayout;
}

/** The guard: parses, nothing but the collection changed, the collection is what it should be. */
function check(
  shape: YamlShape,
  after: string,
  before: Located,
  input: PlanInput,
  changes: EntryChanges,
): string | undefined {
  const invalid = 'internal error: the edit would have made the file invalid; nothing was written';
  const outside =
    "internal error: the edit would have changed settings that are not Switchboard's; nothing was written";
  const now = after.trim() === '' ? undefined : parse(after, input.serversKey, shape);
  if (now && 'ok' in now) return invalid;
  const strip = (v: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(v).filter(([k]) => k !== input.serversKey));
  if (!isDeepStrictEqual(strip(now?.value ?? {}), strip(before.value))) return outside;
  const listed = now ? collectionEntries(now) : [];
  const nameKey = shape.nameKey ?? 'name';
  const count = (v: Record<string, unknown>) => {
    const c = v[input.serversKey];
    if (Array.isArray(c)) return c.filter((e) => isPlainObject(e) && typeof e[nameKey] === 'string').length;
    return isPlainObject(c) ? Object.keys(c).length : 0;
  };
  // Every entry of the collection was seen (none hidden in a shape the edit does not read).
  if (now && listed.length !== count(now.value)) return invalid;
  const problem = collectionProblem(listed, input, changes);
  return problem === 'outside' ? outside : problem === 'invalid' ? invalid : undefined;
}

export function yamlFormat(shape: YamlShape): FileFormat {
  return {
    name: 'YAML',
    plan: (input) => planYaml(shape, input),
    entries(text: string, serversKey: string): FileEntries {
      const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
      if (body.trim() === '') return { ok: true, entries: [] };
      const located = parse(body, serversKey, shape);
      if ('ok' in located) return { ok: false, problem: located.problem };
      return { ok: true, entries: collectionEntries(located) };
    },
  };
}
