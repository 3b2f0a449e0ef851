import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import {
  applyEdits,
  findNodeAtLocation,
  getNodeValue,
  modify,
  parseTree,
  type Edit,
  type Node,
  type ParseError,
} from 'jsonc-parser';
import { UserError } from '../errors.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { SCHEMA_FILE_NAME, writeSchemaFile } from './schema-file.ts';
import { lineColumn, parseErrorWords } from '../../../shared/jsonc-errors.ts';
import { isPlainObject, renderBlock, renderInline, type TextFormat } from './jsonc-render.ts';

/**
 * Comment- and format-preserving edits of servers.json. The file is the user's: an edit changes only
 * the bytes it must, keeps comments, trailing commas, indentation (spaces or tabs, detected) and line
 * endings (LF or CRLF, detected), and is written atomically. A file that does not parse is never
 * touched. The servers file is JSONC, so comments and trailing commas are allowed everywhere.
 *
 * jsonc-parser's `modify` is used for what it does exactly (replacing a value in place); inserting and
 * removing are done here, because `modify`'s own formatting re-flows the neighbouring entries and,
 * with trailing commas, can remove an only entry into invalid JSON (`{ , }`).
 */

export type JsonPath = (string | number)[];

type Format = TextFormat;

const SERVERS = 'mcpServers';

/** Adds or replaces a server. Replacing keeps comments on the fields that did not change. */
export function setServer(file: string, name: string, config: unknown): void {
  setServers(file, [{ name, config }]);
}

/** Adds or replaces several servers in one write: the file gets all of them or, on an error, none. */
export function setServers(file: string, servers: readonly { name: string; config: unknown }[]): void {
  editServersFile(file, (text, format) => {
    requireServersObject(parseOrThrow(text));
    let out = text;
    for (const { name, config } of servers) {
      const value = toJson(config, `server "${name}"`);
      if (!isPlainObject(value)) throw new UserError(`server "${name}": the config must be a JSON object`);
      out = setAt(out, [SERVERS, name], value, format);
    }
    return out;
  });
}

/** Removes a server; false (and no write) when there is no server of that name. */
export function removeServer(file: string, name: string): boolean {
  let removed = false;
  editServersFile(file, (text) => {
    const root = parseOrThrow(text);
    requireServersObject(root);
    if (!findNodeAtLocation(root, [SERVERS, name])) return text;
    removed = true;
    return removeAt(text, [SERVERS, name]);
  });
  return removed;
}

export interface SetValueOptions {
  /**
   * Only write if the value there is still this one (deep equality); otherwise throw. Lets a caller
   * that read the file earlier make sure nobody changed that value meanwhile.
   */
  ifCurrentValue?: unknown;
}

/**
 * Sets (or with `undefined`, removes) one value inside a server, e.g. `['env', 'GITHUB_TOKEN']`.
 * Missing objects on the way are created. The server must exist.
 */
export function setServerValue(
  file: string,
  name: string,
  path: JsonPath,
  value: unknown,
  options: SetValueOptions = {},
): void {
  editServersFile(file, (text, format, label) => {
    const root = parseOrThrow(text);
    requireServersObject(root);
    const server = findNodeAtLocation(root, [SERVERS, name]);
    if (!server) throw new UserError(`no server named "${name}" in ${label}`);
    if (server.type !== 'object') throw new UserError(`${label}: server "${name}" is not a JSON object`);
    const full = [SERVERS, name, ...path];
    if ('ifCurrentValue' in options) {
      const node = findNodeAtLocation(root, full);
      const current: unknown = node ? getNodeValue(node) : undefined;
      if (!isDeepStrictEqual(current, options.ifCurrentValue)) {
        throw new UserError(
          `${label} changed while Switchboard was editing it (server "${name}", ${describePath(path)})`,
          {
            hint: 'nothing was written; try again',
          },
        );
      }
    }
    if (value === undefined) return removeAt(text, full);
    return setAt(text, full, toJson(value, `server "${name}", ${describePath(path)}`), format);
  });
}

/**
 * The value at `mcpServers.<name>.<path>` as written (references unresolved, no defaults applied), or
 * undefined when absent or when the file does not exist. Throws a UserError if the file does not parse.
 */
export function readServerValue(file: string, name: string, path: JsonPath = []): unknown {
  const text = readIfExists(file);
  if (text === undefined) return undefined;
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const body = text.slice(bom);
  if (body.trim() === '') return undefined;
  try {
    const root = parseOrThrow(body);
    requireServersObject(root);
    const node = findNodeAtLocation(root, [SERVERS, name, ...path]);
    return node ? getNodeValue(node) : undefined;
  } catch (err) {
    if (err instanceof LocatedParseError) throw err.toUserError(file, body);
    throw err;
  }
}

// ---- reading, writing -----------------------------------------------------------------------------

/**
 * Reads the file (or starts from an empty one), runs `edit` on its text without a BOM, and writes the
 * result atomically if it changed — unless someone else changed the file in between.
 */
function editServersFile(file: string, edit: (text: string, format: Format, label: string) => string): void {
  const original = readIfExists(file);
  const bom = original !== undefined && original.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
  let body = original === undefined ? '' : original.slice(bom.length);
  // A new file points editors at the schema written beside it, for completion and checking.
  const created = body.trim() === '';
  if (created) body = `{\n  "$schema": "./${SCHEMA_FILE_NAME}",\n  "${SERVERS}": {}\n}\n`;
  const format = detectFormat(body);
  let next: string;
  try {
    next = edit(body, format, file);
  } catch (err) {
    if (err instanceof LocatedParseError) throw err.toUserError(file, body);
    throw err;
  }
  if (next === body) return;
  const updated = bom + next;
  // The edit must leave a file that parses; anything else is a bug here, and the user's file is kept.
  const errors: ParseError[] = [];
  parseTree(next, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0)
    throw new Error(`internal error: editing ${file} would have produced invalid JSON; nothing was written`);
  writeFileAtomic(file, updated, {
    // servers.json names every server and what it runs: this user's only (the home's rule).
    mode: 0o600,
    beforeRename: (target) => {
      if (readIfExists(target) !== original) {
        throw new UserError(`${file} changed while Switchboard was editing it`, {
          hint: 'nothing was written; try again',
        });
      }
    },
  });
  if (created) writeSchemaFile(file);
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

class LocatedParseError extends Error {
  readonly offset: number;
  readonly what: string;
  constructor(offset: number, what: string) {
    super(what);
    this.offset = offset;
    this.what = what;
  }

  /** `text` without a BOM: editors do not count it as a column. */
  toUserError(file: string, text: string): UserError {
    const { line, column } = lineColumn(text, this.offset);
    return new UserError(`${file}:${line}:${column}: ${this.what}`, {
      hint: 'fix the file by hand (Switchboard left it unchanged), then try again',
    });
  }
}

/** The document's root object; throws a LocatedParseError if the text is not a JSONC object. */
function parseOrThrow(text: string): Node {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first || !root)
    throw new LocatedParseError(first?.offset ?? 0, `not valid JSON: ${parseErrorWords(first)}`);
  if (root.type !== 'object')
    throw new LocatedParseError(root.offset, `the file must be a JSON object with "${SERVERS}"`);
  return root;
}

function requireServersObject(root: Node): void {
  const servers = findNodeAtLocation(root, [SERVERS]);
  if (servers && servers.type !== 'object') {
    throw new LocatedParseError(servers.offset, `"${SERVERS}" must be an object of servers by name`);
  }
}

function describePath(path: JsonPath): string {
  return path.length === 0 ? 'the whole config' : path.map(String).join('.');
}

// ---- format ---------------------------------------------------------------------------------------

/** Line endings and one level of indentation, as the file already uses them (2 spaces if unknown). */
export function detectFormat(text: string): Format {
  const firstNewline = text.indexOf('\n');
  const eol = firstNewline > 0 && text[firstNewline - 1] === '\r' ? '\r\n' : '\n';
  let tabs = 0;
  let spaceLines = 0;
  let smallest = Infinity;
  for (const line of text.split('\n')) {
    const match = /^([ \t]+)[^\s*]/.exec(line);
    if (!match?.[1]) continue;
    if (match[1].startsWith('\t')) tabs++;
    else {
      spaceLines++;
      smallest = Math.min(smallest, match[1].length);
    }
  }
  if (tabs > spaceLines) return { eol, unit: '\t' };
  return { eol, unit: spaceLines > 0 && smallest <= 8 ? ' '.repeat(smallest) : '  ' };
}

// ---- edits on text --------------------------------------------------------------------------------

function parse(text: string): Node {
  const root = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  if (!root) throw new Error('internal error: lost the JSON document while editing');
  return root;
}

/**
 * Makes the value at `path` equal `value`. Objects are merged key by key (absent keys removed, changed
 * ones set), so comments on untouched fields stay; anything else is replaced in place.
 */
export function setAt(text: string, path: JsonPath, value: unknown, format: Format): string {
  const root = parse(text);
  const node = findNodeAtLocation(root, path);
  if (node) {
    if (isPlainObject(value) && node.type === 'object') {
      let out = text;
      const keep = new Set(Object.keys(value));
      for (const prop of node.children ?? []) {
        const key = prop.children?.[0]?.value as string;
        if (!keep.has(key)) out = removeAt(out, [...path, key]);
      }
      for (const [key, v] of Object.entries(value)) out = setAt(out, [...path, key], v, format);
      return out;
    }
    if (isDeepStrictEqual(getNodeValue(node), value)) return text;
    return replaceNode(text, node, path, value, format);
  }
  // Find the nearest container that exists and insert what is missing below it.
  for (let depth = path.length - 1; depth >= 0; depth--) {
    const parent = findNodeAtLocation(root, path.slice(0, depth));
    if (!parent) continue;
    let nested: unknown = value;
    for (let i = path.length - 1; i > depth; i--) {
      const segment = path[i];
      nested = typeof segment === 'number' ? [nested] : { [String(segment)]: nested };
    }
    return insertInto(text, parent, path[depth], nested, format);
  }
  throw new Error('internal error: no container to insert into');
}

/** Replaces a value where it stands (jsonc-parser's modify, which is exact for this). */
function replaceNode(text: string, node: Node, path: JsonPath, value: unknown, format: Format): string {
  const edits = modify(text, path, value, {});
  const raw = text.slice(node.offset, node.offset + node.length);
  // An array or object keeps its one-line or multi-line look; a scalar turning into one follows its neighbours.
  const wasContainer = node.type === 'array' || node.type === 'object';
  const multiline =
    raw.includes('\n') || (!wasContainer && !isInlineContext(text, node) && isNonEmptyContainer(value));
  const rendered = multiline
    ? renderBlock(value, lineIndent(text, node.offset), format)
    : renderInline(value);
  const exact: Edit[] = edits.map((e) =>
    e.offset === node.offset && e.length === node.length ? { ...e, content: rendered } : e,
  );
  return applyEdits(text, exact);
}

/** Is the node written on one line together with its siblings, like `{ "a": 1, "b": 2 }`? */
function isInlineContext(text: string, node: Node): boolean {
  const container = node.parent?.type === 'property' ? node.parent.parent : node.parent;
  if (!container) return false;
  return !text.slice(container.offset, container.offset + container.length).includes('\n');
}

function insertInto(
  text: string,
  container: Node,
  key: string | number | undefined,
  value: unknown,
  format: Format,
): string {
  if (container.type !== 'object' && container.type !== 'array') {
    throw new UserError(`cannot add "${String(key)}": the value there is not an object or array`);
  }
  const entryFor = (rendered: string) =>
    container.type === 'object' ? `${JSON.stringify(String(key))}: ${rendered}` : rendered;
  const children = container.children ?? [];
  const open = container.offset;
  const close = container.offset + container.length - 1;
  const outerIndent = lineIndent(text, open);
  const last = children[children.length - 1];

  if (!last) {
    const interior = text.slice(open + 1, close);
    if (interior.trim() === '' && isInlineContext(text, container)) {
      return applyEdits(text, [
        { offset: open + 1, length: close - open - 1, content: ` ${entryFor(renderInline(value))} ` },
      ]);
    }
    const childIndent = outerIndent + format.unit;
    const entry = entryFor(renderBlock(value, childIndent, format));
    if (interior.trim() === '') {
      return applyEdits(text, [
        {
          offset: open + 1,
          length: close - open - 1,
          content: `${format.eol}${childIndent}${entry}${format.eol}${outerIndent}`,
        },
      ]);
    }
    // Only comments inside: add the entry after them, on its own line before the closing bracket.
    const closeLineStart = lineStart(text, close);
    if (text.slice(closeLineStart, close).trim() === '') {
      return applyEdits(text, [
        { offset: closeLineStart, length: 0, content: `${childIndent}${entry}${format.eol}` },
      ]);
    }
    return applyEdits(text, [
      { offset: close, length: 0, content: `${format.eol}${childIndent}${entry}${format.eol}${outerIndent}` },
    ]);
  }

  const lastEnd = last.offset + last.length;
  const after = scanAfter(text, lastEnd);
  const ownLine = text.slice(lineStart(text, last.offset), last.offset).trim() === '';
  if (!ownLine) {
    // An inline container: `{ "command": "x" }` → `{ "command": "x", "env": { … } }`
    const entry = entryFor(renderInline(value));
    if (after.comma !== undefined)
      return applyEdits(text, [{ offset: after.comma + 1, length: 0, content: ` ${entry},` }]);
    return applyEdits(text, [{ offset: lastEnd, length: 0, content: `, ${entry}` }]);
  }
  const childIndent = lineIndent(text, last.offset);
  const entry = entryFor(renderBlock(value, childIndent, format));
  // Keep a trailing-comma style, and keep the last entry's end-of-line comment on its line.
  const content = `${format.eol}${childIndent}${entry}${after.comma !== undefined ? ',' : ''}`;
  const at = after.lineRestEnd ?? (after.comma !== undefined ? after.comma + 1 : lastEnd);
  if (after.comma !== undefined) return applyEdits(text, [{ offset: at, length: 0, content }]);
  if (at === lastEnd) return applyEdits(text, [{ offset: lastEnd, length: 0, content: `,${content}` }]);
  return applyEdits(text, [
    { offset: lastEnd, length: 0, content: ',' },
    { offset: at, length: 0, content },
  ]);
}

/**
 * What follows a value on its line: an optional comma, then optional comments. `lineRestEnd` is where
 * the line ends if nothing but those follow (undefined if more JSON follows on the same line).
 */
function scanAfter(
  text: string,
  from: number,
): { comma: number | undefined; end: number; lineRestEnd: number | undefined } {
  let i = skipInlineSpace(text, from);
  let comma: number | undefined;
  if (text[i] === ',') {
    comma = i;
    i = skipInlineSpace(text, i + 1);
  }
  let end = comma !== undefined ? comma + 1 : from;
  for (;;) {
    if (text.startsWith('//', i)) {
      i = lineEnd(text, i);
      end = i;
      break;
    }
    if (text.startsWith('/*', i)) {
      const close = text.indexOf('*/', i + 2);
      if (close < 0 || text.slice(i, close).includes('\n')) break;
      i = skipInlineSpace(text, close + 2);
      end = close + 2;
      continue;
    }
    break;
  }
  const atLineEnd = i >= text.length || text[i] === '\n' || text[i] === '\r';
  return { comma, end, lineRestEnd: atLineEnd ? i : undefined };
}

/**
 * Removes the value at `path` with its comma and its comments (end-of-line, and whole-line comments
 * directly above it); whole lines when it had lines of its own.
 */
export function removeAt(text: string, path: JsonPath): string {
  const root = parse(text);
  const node = findNodeAtLocation(root, path);
  if (!node) return text;
  const entry = node.parent?.type === 'property' ? node.parent : node;
  const container = entry.parent;
  if (!container) throw new UserError('cannot remove the whole document');
  const children = container.children ?? [];
  const index = children.indexOf(entry);
  const prev = children[index - 1];
  const next = children[index + 1];
  const start = entry.offset;
  const after = scanAfter(text, entry.offset + entry.length);
  const ownLine = text.slice(lineStart(text, start), start).trim() === '' && after.lineRestEnd !== undefined;

  const edits: Edit[] = [];
  if (ownLine) {
    // Whole-line comments right above the entry describe it and go with it.
    let from = lineStart(text, start);
    while (from > 0) {
      const above = lineStart(text, from - 1);
      const line = text.slice(above, from).trim();
      if (!(
        line.startsWith('//') ||
        (line.startsWith('/*') && line.endsWith('*/') && !line.slice(2, -2).includes('*/'))
      ))
        break;
      from = above;
    }
    let to = after.lineRestEnd ?? after.end;
    if (text[to] === '\r') to++;
    if (text[to] === '\n') to++;
    edits.push({ offset: from, length: to - from, content: '' });
    // The previous entry's comma would now be a trailing comma the file did not use: drop it.
    if (!next && after.comma === undefined && prev) {
      const prevAfter = scanAfter(text, prev.offset + prev.length);
      if (prevAfter.comma !== undefined) edits.push({ offset: prevAfter.comma, length: 1, content: '' });
    }
  } else if (next) {
    edits.push({ offset: start, length: next.offset - start, content: '' });
  } else if (prev) {
    const from = prev.offset + prev.length;
    edits.push({ offset: from, length: after.end - from, content: '' });
  } else {
    edits.push({ offset: start, length: after.end - start, content: '' });
  }
  let out = applyEdits(text, edits);

  // An object or array left with nothing but whitespace inside becomes {} / [].
  const parentPath = path.slice(0, -1);
  const left = findNodeAtLocation(parse(out), parentPath);
  if (left && (left.children ?? []).length === 0) {
    const inside = out.slice(left.offset + 1, left.offset + left.length - 1);
    if (inside.trim() === '')
      out = applyEdits(out, [{ offset: left.offset + 1, length: inside.length, content: '' }]);
  }
  return out;
}

// ---- rendering ------------------------------------------------------------------------------------

function isNonEmptyContainer(value: unknown): boolean {
  return (
    (Array.isArray(value) && value.length > 0) || (isPlainObject(value) && Object.keys(value).length > 0)
  );
}

/** A JSON-safe copy (drops undefined fields as JSON does); refuses what JSON cannot hold. */
function toJson(value: unknown, what: string): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new UserError(`${what}: the value cannot be written as JSON`, { cause: err });
  }
  if (text === undefined) throw new UserError(`${what}: the value cannot be written as JSON`);
  return JSON.parse(text) as unknown;
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function lineEnd(text: string, offset: number): number {
  let i = offset;
  while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
  return i;
}

function lineIndent(text: string, offset: number): string {
  const start = lineStart(text, offset);
  return /^[ \t]*/.exec(text.slice(start, offset))?.[0] ?? '';
}

function skipInlineSpace(text: string, from: number): number {
  let i = from;
  while (text[i] === ' ' || text[i] === '\t') i++;
  return i;
}
