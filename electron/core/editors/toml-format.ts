import { isDeepStrictEqual } from 'node:util';
import { getStaticTOMLValue, parseTOML, type AST } from 'toml-eslint-parser';
import { isPlainObject } from '../config/jsonc-render.ts';
import { collectionProblem, entryChanges, noChanges, type EntryChanges } from './entry-changes.ts';
import type { FileEntries, FileFormat } from './file-format.ts';
import type { FileLayout, PlanInput, PlanResult } from './plan.ts';

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
 */

type Span = { start: number; end: number };

/** Where one entry of the servers table is defined: whole lines of the file. */
interface Definition extends Span {
  /** a `[servers.NAME]` table (replaced in place on update); else key lines or sub-tables */
  wholeTable: boolean;
}

interface Located {
  value: Record<string, unknown>;
  /** the servers table as a value (empty when there is none) */
  servers: Record<string, unknown>;
  definitions: Map<string, Definition[]>;
  /** `servers = { … }`: an inline table, which no [servers.NAME] table may extend */
  inline: boolean;
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
  const define = (name: string | number | undefined, span: Span, wholeTable: boolean) => {
    if (name === undefined) return;
    const key = String(name);
    const list = definitions.get(key) ?? [];
    list.push({ ...lines(text, span), wholeTable });
    definitions.set(key, list);
  };
  let inline = false;
  for (const node of ast.body[0].body) {
    if (node.type === 'TOMLTable') {
      const [first, name] = node.resolvedKey;
      if (first !== serversKey) continue;
      if (node.resolvedKey.length === 1) {
        // [servers] with `NAME.url = …` or `NAME = { … }` lines
        for (const kv of node.body) define(keyNames(kv.key)[0], spanOf(kv), false);
      } else {
        define(name, spanOf(node), node.resolvedKey.length === 2 && node.kind === 'standard');
      }
    } else {
      const keys = keyNames(node.key);
      if (keys[0] !== serversKey) continue;
      if (keys.length === 1) inline = true;
      else define(keys[1], spanOf(node), false);
    }
  }
  return { value, servers: isPlainObject(servers) ? servers : {}, definitions, inline };
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

// ---- the plan -------------------------------------------------------------------------------------

function planToml(input: PlanInput): PlanResult {
  const { serversKey } = input;
  const original = input.text;
  let layout: FileLayout = input.layout?.file === input.file ? { ...input.layout } : { file: input.file };
  const empty = original === undefined || original.trim() === '';
  const bom = !empty && original.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
  const body = empty ? '' : original.slice(bom.length);
  const eol = body.includes('\r\n') ? '\r\n' : '\n';

  const located = parse(body, serversKey);
  if ('ok' in located) return located;

  const changes = entryChanges(Object.entries(located.servers), input);
  const { toRemove, replace, toAdd, added, updated, removed, clashes, adopted } = changes;
  const summary = { added, updated, removed, clashes, adopted };
  if (noChanges(changes))
    return { ok: true, text: original, changed: false, ...summary, layout: input.layout };
  if (located.inline) {
    return {
      ok: false,
      problem: `"${serversKey}" is written as an inline table (${serversKey} = { … }), which TOML does not let Switchboard add its [${serversKey}.NAME] tables to: write your servers as [${serversKey}.NAME] tables`,
    };
  }

  // Edits on whole lines, from the end of the file backwards so that offsets stay valid.
  const edits: { start: number; end: number; text: string }[] = [];
  for (const name of toRemove) {
    for (const d of located.definitions.get(name) ?? [])
      edits.push({ ...(d.wholeTable ? tableWithSeparator(body, d) : d), text: '' });
  }
  for (const [name, entry] of replace) {
    const defs = located.definitions.get(name) ?? [];
    const only = defs.length === 1 ? defs[0] : undefined;
    if (only?.wholeTable) {
      edits.push({ start: only.start, end: only.end, text: renderTable(serversKey, name, entry, eol) });
      continue;
    }
    // Defined some other way (dotted keys, sub-tables): its lines go, the table is added anew.
    for (const d of defs) edits.push({ start: d.start, end: d.end, text: '' });
    toAdd.push([name, entry]);
  }
  edits.sort((a, b) => b.start - a.start);
  let text = body;
  let lastStart = Infinity;
  for (const e of edits) {
    // Two removed tables share the blank line between them: it goes once.
    const end = e.text === '' ? Math.min(e.end, lastStart) : e.end;
    if (end > lastStart)
      return { ok: false, problem: 'internal error: overlapping edits; nothing was written' };
    text = text.slice(0, e.start) + e.text + text.slice(end);
    lastStart = e.start;
  }

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
    return { ok: true, text: original, changed: false, ...summary, layout: input.layout };

  const problem =
    finalText === undefined ? undefined : check(finalText.slice(bom.length), located, input, changes);
  if (problem) return { ok: false, problem };
  return { ok: true, text: finalText, changed: true, ...summary, layout: stripUndefined(layout) };
}

function stripUndefined(layout: FileLayout): FileLayout {
  return Object.fromEntries(Object.entries(layout).filter(([, v]) => v !== undefined)) as FileLayout;
}

/**
 * The guard: the new text parses, every setting but the servers table is what it was, the user's own
 * entries are what they were (those import replaced aside), and Switchboard's are exactly the desired.
 */
function check(after: string, before: Located, input: PlanInput, changes: EntryChanges): string | undefined {
  const invalid = 'internal error: the edit would have made the file invalid; nothing was written';
  const outside =
    "internal error: the edit would have changed settings that are not Switchboard's; nothing was written";
  const now = after.trim() === '' ? undefined : parse(after, input.serversKey);
  if (now && 'ok' in now) return invalid;
  const strip = (v: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(v).filter(([k]) => k !== input.serversKey));
  if (!isDeepStrictEqual(strip(now?.value ?? {}), strip(before.value))) return outside;
  const problem = collectionProblem(Object.entries(now?.servers ?? {}), input, changes);
  return problem === 'outside' ? outside : problem === 'invalid' ? invalid : undefined;
}

function entries(text: string, serversKey: string): FileEntries {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') return { ok: true, entries: [] };
  const located = parse(body, serversKey);
  if ('ok' in located) return { ok: false, problem: located.problem };
  return { ok: true, entries: Object.entries(located.servers) };
}

export const TOML_FORMAT: FileFormat = { name: 'TOML', plan: planToml, entries };
