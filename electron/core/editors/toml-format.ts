import { getStaticTOMLValue, parseTOML, type AST } from 'toml-eslint-parser';
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
import { takeOut, undoLineImports, type LineFormatOps, type LineItem } from './line-give-back.ts';
import { planStart, type PlanInput, type PlannedImport, type PlanResult } from './file-plan.ts';

/**
 * TOML editor files (Codex's config.toml), edited as text so that everything of the user's stays
 * byte for byte: comments, order, blank lines, quoting. toml-eslint-parser gives every table and
 * key its place in the text; Switchboard's entries are whole tables it writes itself:
 *
 *     <blank line>
 *     [mcp_servers.NAME]
 *     url = "http://127.0.0.1:PORT/mcp/NAME"
 *     http_headers_helper = "…"
 *
 * appended at the end of the file, changed in place, and removed with the blank line before them —
 * which gives back the original bytes. A file without a final line break gets one (remembered in the
 * layout, and taken away again with the last entry). Every result is parsed again and compared with
 * the original: only Switchboard's entries may differ, or nothing is written.
 *
 * Import puts Switchboard's entry where the user's stood, in its form: a table for tables (sub-tables
 * included), one `NAME = { … }` line for key lines (under `[servers]`, or dotted at the top; a table
 * there would take in the keys after it). Unsync gives them back (line-give-back.ts). An entry whose
 * pieces are apart in the file is not imported: it could not be given back as it was.
 */

type Span = { start: number; end: number };

/** Where one entry of the servers table is defined: whole lines of the file. */
interface Definition extends Span {
  /** a `[servers.NAME]` table (replaced in place on update); else key lines or sub-tables */
  wholeTable: boolean;
  /** a table of any kind (`[servers.NAME]`, `[servers.NAME.env]`, `[[servers.NAME.x]]`), not key lines */
  table: boolean;
  /** its place among the pieces of the file (tables, top-level keys, keys of `[servers]`) */
  unit: number;
  /** key lines: what comes before the entry's name in their keys (`servers.` at the top, none under `[servers]`) */
  prefix?: string;
}

/** One entry of the servers table, from its first definition to its last. */
interface Item extends LineItem {
  defs: Definition[];
  /** defined by tables alone (else it starts with key lines) */
  tables: boolean;
  /** its definitions follow each other (nothing else between them but comments and blank lines) */
  together: boolean;
}

interface Located {
  value: Record<string, unknown>;
  /** the servers table as a value (empty when there is none) */
  servers: Record<string, unknown>;
  definitions: Map<string, Definition[]>;
  /** `servers = { … }`: an inline table, which no [servers.NAME] table may extend */
  inline: boolean;
  /** the entries, in the order of their first definitions */
  items: Item[];
}

type Problem = { ok: false; problem: string; line?: number; column?: number };

function parse(text: string, serversKey: string): Located | Problem {
  let ast: AST.TOMLProgram;
  try {
    ast = parseTOML(text);
  } catch (err) {
    const e = err as { message?: string; lineNumber?: number; column?: number };
    const line = e.lineNumber ?? 1;
    const column = (e.column ?? 0) + 1;
    return {
      ok: false,
      problem: `not valid TOML at line ${line}, column ${column}: ${e.message ?? String(err)}`,
      line,
      column,
    };
  }
  const value = getStaticTOMLValue(ast) as Record<string, unknown>;
  const servers = value[serversKey];
  if (servers !== undefined && !isPlainObject(servers))
    return { ok: false, problem: `"${serversKey}" is not a table` };
  const definitions = new Map<string, Definition[]>();
  let unit = 0;
  const define = (
    name: string | number | undefined,
    span: Span,
    wholeTable: boolean,
    table: boolean,
    prefix?: string,
  ) => {
    if (name === undefined) return;
    const key = String(name);
    const list = definitions.get(key) ?? [];
    list.push({ ...lines(text, span), wholeTable, table, unit, ...(prefix === undefined ? {} : { prefix }) });
    definitions.set(key, list);
  };
  let inline = false;
  for (const node of ast.body[0].body) {
    unit++;
    if (node.type === 'TOMLTable') {
      const [first, name] = node.resolvedKey;
      if (first !== serversKey) continue;
      if (node.resolvedKey.length === 1) {
        // [servers] with `NAME.url = …` or `NAME = { … }` lines
        for (const kv of node.body) {
          unit++;
          define(keyNames(kv.key)[0], spanOf(kv), false, false, '');
        }
      } else {
        define(name, spanOf(node), node.resolvedKey.length === 2 && node.kind === 'standard', true);
      }
    } else {
      const keys = keyNames(node.key);
      if (keys[0] !== serversKey) continue;
      if (keys.length === 1) inline = true;
      else define(keys[1], spanOf(node), false, false, `${tomlKey(serversKey)}.`);
    }
  }
  const items: Item[] = [];
  const entries = isPlainObject(servers) ? servers : {};
  for (const [name, defs] of definitions) {
    const first = defs[0];
    const last = defs[defs.length - 1];
    if (!first || !last) continue;
    items.push({
      name,
      value: entries[name],
      span: { start: first.start, end: last.end },
      defs,
      tables: defs.every((d) => d.table),
      together: defs.every((d, i) => i === 0 || d.unit === (defs[i - 1]?.unit ?? 0) + 1),
    });
  }
  items.sort((a, b) => a.span.start - b.span.start);
  return { value, servers: entries, definitions, inline, items };
}

/** Entries import may not replace (their lines could not be given back as they are), and why. */
function fixedEntries(located: Located, serversKey: string): Map<string, string> {
  const fixed = new Map<string, string>();
  for (const name of Object.keys(located.servers)) {
    if (located.inline)
      fixed.set(
        name,
        `"${serversKey}" is written as an inline table (${serversKey} = { … }); write your servers as [${serversKey}.NAME] tables to import them`,
      );
  }
  for (const item of located.items) {
    if (!item.together)
      fixed.set(
        item.name,
        `it is written in more than one place of the file; put its [${serversKey}.${tomlKey(item.name)}] tables (or keys) one after the other to import it`,
      );
  }
  return fixed;
}

function keyNames(key: AST.TOMLKey): string[] {
  return key.keys.map((k) => (k.type === 'TOMLBare' ? k.name : k.value));
}

function spanOf(node: { range: [number, number] }): Span {
  return { start: node.range[0], end: node.range[1] };
}

/** A node's whole lines: from the start of its first line to past the line break of its last. */
function lines(text: string, span: Span): Span {
  const start = text.lastIndexOf('\n', span.start - 1) + 1;
  const nl = text.indexOf('\n', span.end);
  return { start, end: nl < 0 ? text.length : nl + 1 };
}

/**
 * A whole table of Switchboard's with the blank line insertion put before it; at the very start of
 * the file (a file it created), with the blank line after it instead.
 */
function tableWithSeparator(text: string, span: Span): Span {
  const blank = (from: number, to: number) => /^[ \t]*\r?\n$/.test(text.slice(from, to));
  if (span.start === 0) {
    const nl = text.indexOf('\n', span.end);
    return nl >= 0 && blank(span.end, nl + 1) ? { start: 0, end: nl + 1 } : span;
  }
  const prevStart = span.start >= 2 ? text.lastIndexOf('\n', span.start - 2) + 1 : 0;
  return blank(prevStart, span.start) ? { start: prevStart, end: span.end } : span;
}

// ---- rendering ------------------------------------------------------------------------------------

function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

/** A TOML basic string: JSON's escapes are TOML's, plus DEL, which TOML wants escaped. */
function tomlString(value: string): string {
  return JSON.stringify(value).replace(/\x7f/g, '\\u007F');
}

function tomlValue(value: unknown): string {
  if (typeof value === 'string') return tomlString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (isPlainObject(value)) {
    const items = Object.entries(value).map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`);
    return items.length ? `{ ${items.join(', ')} }` : '{}';
  }
  throw new Error(`internal error: cannot write ${typeof value} to TOML`);
}

/** `[servers.NAME]` and its keys, each line ending with `eol`. */
function renderTable(serversKey: string, name: string, entry: Record<string, unknown>, eol: string): string {
  const out = [`[${tomlKey(serversKey)}.${tomlKey(name)}]`];
  for (const [k, v] of Object.entries(entry)) out.push(`${tomlKey(k)} = ${tomlValue(v)}`);
  return out.map((line) => line + eol).join('');
}

/** One key line for an entry, `NAME = { … }`, under `prefix` (see Definition). */
function renderKeyLine(prefix: string, name: string, entry: Record<string, unknown>, eol: string): string {
  return `${prefix}${tomlKey(name)} = ${tomlValue(entry)}${eol}`;
}

/**
 * An entry's text in the form of the item whose place it takes: a `[servers.NAME]` table where tables
 * stood, one key line where key lines did (a table there would take in the keys after it).
 */
function renderLike(
  item: Item,
  serversKey: string,
  name: string,
  entry: Record<string, unknown>,
  eol: string,
): string {
  const prefix = item.defs[0]?.prefix;
  return prefix === undefined
    ? renderTable(serversKey, name, entry, eol)
    : renderKeyLine(prefix, name, entry, eol);
}

// ---- the plan -------------------------------------------------------------------------------------

/** Applies whole-line edits (from the end backwards, so offsets stay valid); undefined: they overlap. */
function applyEdits(text: string, edits: { start: number; end: number; text: string }[]): string | undefined {
  let out = text;
  let lastStart = Infinity;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) {
    // Two removed tables share the blank line between them: it goes once.
    const end = e.text === '' ? Math.min(e.end, lastStart) : e.end;
    if (end > lastStart) return undefined;
    out = out.slice(0, e.start) + e.text + out.slice(end);
    lastStart = e.start;
  }
  return out;
}

/** The text without these entries (Switchboard's tables go with the blank line put before them). */
function removeEntries(text: string, located: Located, names: Iterable<string>): string | undefined {
  const edits: { start: number; end: number; text: string }[] = [];
  for (const name of names) {
    for (const d of located.definitions.get(name) ?? [])
      edits.push({ ...(d.wholeTable ? tableWithSeparator(text, d) : d), text: '' });
  }
  return applyEdits(text, edits);
}

/** Whether an entry's recorded lines are tables (they may go wherever a table may: the end of the file). */
function isTables(text: string): boolean {
  return /^[ \t]*\[/.test(text);
}

/** The value of an entry's lines: whole tables, dotted keys at the top, or keys of `[servers]`. */
function entryValue(text: string, entry: string, serversKey: string): unknown {
  for (const prefix of ['', `[${tomlKey(serversKey)}]\n`]) {
    try {
      const value = getStaticTOMLValue(parseTOML(prefix + text)) as Record<string, unknown>;
      const servers = value[serversKey];
      if (isPlainObject(servers) && Object.hasOwn(servers, entry)) return servers[entry];
    } catch {
      // not this way
    }
  }
  return undefined;
}

function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** How unsync finds, removes and places entries in a TOML file (line-give-back.ts). */
function tomlOps(serversKey: string, eol: string): LineFormatOps {
  const read = (text: string) => {
    const located = parse(text, serversKey);
    return 'ok' in located ? undefined : located;
  };
  return {
    read(text) {
      const located = read(text);
      if (!located) return undefined;
      return {
        items: located.items.filter((i) => i.together),
        entries: Object.entries(located.servers),
        settings: withoutServers(located.value, serversKey),
      };
    },
    remove(text, name) {
      const located = read(text);
      return (located && removeEntries(text, located, [name])) ?? text;
    },
    append(text, e) {
      // Tables go at the end of the file; key lines, which belong to the table above them, are
      // written as a table of their own (the same value).
      const value = entryValue(e.text, e.entry, serversKey);
      const table = isTables(e.text)
        ? e.text
        : isPlainObject(value)
          ? renderTable(serversKey, e.entry, value, eol)
          : undefined;
      if (table === undefined) return text;
      if (text.trim() === '') return table;
      return (text.endsWith('\n') ? text : text + eol) + eol + table;
    },
    value: (e) => entryValue(e.text, e.entry, serversKey),
  };
}

function planToml(input: PlanInput): PlanResult {
  const { serversKey } = input;
  const start = planStart(input);
  const { original, bom, body } = start;
  let { layout } = start;
  const eol = body.includes('\r\n') ? '\r\n' : '\n';

  const located = parse(body, serversKey);
  if ('ok' in located) return located;

  const fixed = fixedEntries(located, serversKey);
  const changes = entryChanges(Object.entries(located.servers), input, (name) => !fixed.has(name));
  const { replace, toAdd, added, updated, removed, clashes, adopted } = changes;
  const imported: PlannedImport[] = [];
  let restored: string[] = [];
  let notRestored: { entry: string; why: string }[] = [];
  const summary = () => ({ added, updated, removed, clashes, adopted, imported, restored, notRestored });
  const restoring = (input.restore?.length ?? 0) > 0 && input.desired.size === 0;
  if (!restoring && noChanges(changes))
    return { ok: true, text: original, changed: false, ...summary(), layout: input.layout };
  if (located.inline) {
    return {
      ok: false,
      problem: `"${serversKey}" is written as an inline table (${serversKey} = { … }), which TOML does not let Switchboard add its [${serversKey}.NAME] tables to: write your servers as [${serversKey}.NAME] tables`,
    };
  }
  const internal = { ok: false as const, problem: 'internal error: overlapping edits; nothing was written' };

  let text = body;
  if (restoring) {
    const undone = undoLineImports(body, input.restore ?? [], input.isManaged, tomlOps(serversKey, eol));
    if ('problem' in undone) return { ok: false, problem: undone.problem };
    ({ text, restored, notRestored } = undone);
  } else {
    // 1. Switchboard's entries no longer wanted, and those moving to the place of a user's entry.
    const removedText = removeEntries(text, located, changes.toRemove);
    if (removedText === undefined) return internal;
    text = removedText;
    // 2. The user's entries taken out (another of the same server took the place), one at a time
    // from the last: each with what unsync needs to put it back exactly.
    const out = new Map(changes.takenOut.map((name) => [name, takenOutServer(input, name)]));
    while (out.size) {
      const now = parse(text, serversKey);
      if ('ok' in now) return internal;
      const items = now.items.filter((i) => i.together);
      const index = items.findLastIndex((i) => out.has(i.name));
      const name = items[index]?.name;
      if (name === undefined) return internal;
      const taken = takeOut(text, items, index, out.get(name) ?? name);
      imported.push(taken.record);
      text = taken.text;
      out.delete(name);
    }
    // 3. In place: the user's entries import replaces (their whole lines become Switchboard's
    // entry, in the same form), and Switchboard's entries that changed.
    const now = parse(text, serversKey);
    if ('ok' in now) return internal;
    const edits: { start: number; end: number; text: string }[] = [];
    for (const item of now.items) {
      const r = replace.get(item.name);
      if (!r) continue;
      if (adoptedInPlace(changes, item.name)) {
        imported.push({
          entry: item.name,
          server: r.server,
          text: text.slice(item.span.start, item.span.end),
          place: 'replaced',
        });
        edits.push({ ...item.span, text: renderLike(item, serversKey, r.server, r.entry, eol) });
        continue;
      }
      const only = item.defs.length === 1 ? item.defs[0] : undefined;
      if (only?.wholeTable || (item.together && !item.tables)) {
        edits.push({ ...item.span, text: renderLike(item, serversKey, item.name, r.entry, eol) });
        continue;
      }
      // Defined some other way (dotted keys, sub-tables): its lines go, the table is added anew.
      for (const d of item.defs) edits.push({ start: d.start, end: d.end, text: '' });
      toAdd.push([item.name, r.entry]);
    }
    const edited = applyEdits(text, edits);
    if (edited === undefined) return internal;
    text = edited;

    // 4. New entries, at the end of the file.
    if (toAdd.length) {
      const tables = toAdd.map(([name, entry]) => renderTable(serversKey, name, entry, eol));
      if (text === '') {
        if (layout.fileWas === undefined)
          layout.fileWas = { existed: original !== undefined, text: original ?? '' };
        text = tables.join(eol);
      } else {
        if (!text.endsWith('\n')) {
          text += eol;
          layout.eolAdded = true;
        }
        text += tables.map((t) => eol + t).join('');
      }
    }
  }

  // The last of Switchboard's entries gone: the line break it added goes too, and a file it created.
  const managedLeft = [...input.desired.keys()].some((n) => !clashes.includes(n));
  let finalText: string | undefined = bom + text;
  if (!managedLeft) {
    if (layout.eolAdded && text.endsWith(eol)) text = text.slice(0, -eol.length);
    layout.eolAdded = undefined;
    finalText = bom + text;
    if (layout.fileWas && text === '') finalText = layout.fileWas.existed ? layout.fileWas.text : undefined;
    if (layout.fileWas) layout = { file: input.file, ports: layout.ports };
  }
  if (finalText === original)
    return { ok: true, text: original, changed: false, ...summary(), layout: input.layout };

  const given = new Map(
    (input.restore ?? [])
      .flat()
      .filter((e) => restored.includes(e.entry))
      .map((e) => [e.entry, entryValue(e.text, e.entry, serversKey)]),
  );
  const problem =
    finalText === undefined ? undefined : check(finalText.slice(bom.length), located, input, changes, given);
  if (problem) return { ok: false, problem };
  return { ok: true, text: finalText, changed: true, ...summary(), layout: stripUndefined(layout) };
}

/** The guard (line-edit-guard.ts) on the new text, read back as TOML. */
function check(
  after: string,
  before: Located,
  input: PlanInput,
  changes: EntryChanges,
  restored: ReadonlyMap<string, unknown>,
): string | undefined {
  const now = after.trim() === '' ? undefined : parse(after, input.serversKey);
  const readBack =
    now && 'ok' in now ? 'unparsable' : now && { value: now.value, entries: Object.entries(now.servers) };
  return lineEditProblem(readBack, before.value, input, changes, restored);
}

function entries(text: string, serversKey: string): FileEntries {
  const body = stripBom(text);
  if (body.trim() === '') return { ok: true, entries: [] };
  const located = parse(body, serversKey);
  if ('ok' in located) return { ok: false, problem: located.problem };
  const fixed = fixedEntries(located, serversKey);
  return { ok: true, entries: Object.entries(located.servers), ...(fixed.size ? { fixed } : {}) };
}

export const TOML_FORMAT: FileFormat = {
  name: 'TOML',
  plan: planToml,
  entries,
  entryValue: (e, serversKey) => entryValue(e.text, e.entry, serversKey),
  entryFromValue(e, value, serversKey) {
    if (!isPlainObject(value)) return e;
    const eol = eolOf(e.text);
    if (isTables(e.text)) return { ...e, text: renderTable(serversKey, e.entry, value, eol) };
    // Key lines: one line, dotted from the top as the entry's own were, or under `[servers]`.
    const dotted = (() => {
      try {
        const top = getStaticTOMLValue(parseTOML(e.text)) as Record<string, unknown>;
        return isPlainObject(top[serversKey]);
      } catch {
        return false;
      }
    })();
    return { ...e, text: renderKeyLine(dotted ? `${tomlKey(serversKey)}.` : '', e.entry, value, eol) };
  },
};
