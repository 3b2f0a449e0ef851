import { applyEdits, createScanner, parseTree, type Edit, type Node, type SyntaxKind } from 'jsonc-parser';
import { renderBlock, renderInline, type TextFormat } from '../config/jsonc-render.ts';

/**
 * Inserting and removing properties of a JSONC object so that removing gives back exactly the bytes
 * there were before inserting, whatever the file looks like (comments, trailing commas, CRLF, tabs,
 * one-line objects). Editor sync relies on it: unsync must return the user's own bytes.
 *
 * An insertion only ever adds text (never replaces any), in one of a few shapes; removal recognises
 * the shape from the punctuation around the property and deletes exactly what was added:
 *
 * - after the last entry, which ends its line: `<eol><indent>"k": v` plus a comma after the previous
 *   entry (or, in a file that uses trailing commas, `<eol><indent>"k": v,` after the previous comma);
 * - after the last entry of a one-line object: `, "k": v` (or ` "k": v,` after a trailing comma);
 * - into an empty object whose inside spans lines ("after-open"): `<eol><indent>"k": v` right after
 *   the line of the `{` — the lines already inside (blank lines, comments) stay below it;
 * - into an empty one-line object `{}` ("before-close"): `<eol><indent>"k": v<eol><outer indent>`
 *   before the `}`.
 *
 * The two empty-object shapes cannot always be told apart afterwards (`{}` and `{\n}` both become
 * `{\n  "k": v\n}`), so the caller keeps which one was used (ContainerForm) and hands it back to
 * removal; without it removal guesses, and the guess never makes the file invalid.
 *
 * Several entries are inserted, removed or updated with one parse: the result is the same as doing
 * them one by one (the property tests check exactly that, through the round trip).
 */

export type ContainerForm = 'after-open' | 'before-close';

export type { TextFormat } from '../config/jsonc-render.ts';

/** An object in the text: where its braces are and where each property (key to value end) is. */
export interface ObjectInfo {
  /** offset of `{` */
  open: number;
  /** offset of `}` */
  close: number;
  props: PropInfo[];
}

export interface PropInfo {
  key: string;
  /** offset of the key's opening quote */
  offset: number;
  /** offset just past the value */
  end: number;
  valueOffset: number;
}

/** Parses JSONC the way every editor file is read here (comments and trailing commas allowed). */
export function parseJsonc(text: string): Node | undefined {
  return parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
}

/** The object node's layout, for the edits below. */
export function objectInfo(node: Node): ObjectInfo {
  return {
    open: node.offset,
    close: node.offset + node.length - 1,
    props: (node.children ?? []).map((p) => ({
      key: String(p.children?.[0]?.value),
      offset: p.offset,
      end: p.offset + p.length,
      valueOffset: p.children?.[1]?.offset ?? p.offset + p.length,
    })),
  };
}

/** The root object of a text that is one JSONC object (the servers object cut out of a file). */
export function rootInfo(text: string): ObjectInfo {
  const root = parseJsonc(text);
  if (!root || root.type !== 'object') throw new Error('internal error: lost the JSON object while editing');
  return objectInfo(root);
}

// ---- insert ---------------------------------------------------------------------------------------

/**
 * Adds the entries at the end of the object. Returns the new text and, when the object was empty, the
 * shape used (to hand back to removal).
 */
export function insertProperties(
  text: string,
  obj: ObjectInfo,
  entries: readonly (readonly [string, unknown])[],
  format: TextFormat,
): { text: string; form: ContainerForm | undefined; keyOffsets: number[] } {
  if (entries.length === 0) return { text, form: undefined, keyOffsets: [] };
  const { open, close } = obj;
  const last = obj.props[obj.props.length - 1];
  const { eol } = format;
  const keyOf = (k: string) => JSON.stringify(k);

  // Each shape is: optionally a comma right after the last entry, then one piece of text at `at`
  // made of one segment per entry (`before` + entry + `after`), then `tail`.
  let comma: number | undefined;
  let at: number;
  let segments: { before: string; entry: string; after: string }[];
  let tail = '';
  let form: ContainerForm | undefined;
  if (last) {
    const existingComma = findComma(text, last.end, close);
    const restEnd = lineRestEnd(text, existingComma === undefined ? last.end : existingComma + 1);
    if (isOwnLine(text, last.offset) && restEnd !== undefined) {
      const indent = lineIndent(text, last.offset);
      const rendered = entries.map(([k, v]) => `${keyOf(k)}: ${renderBlock(v, indent, format)}`);
      at = restEnd;
      if (existingComma !== undefined) {
        segments = rendered.map((entry) => ({ before: eol + indent, entry, after: ',' }));
      } else {
        comma = last.end;
        segments = rendered.map((entry, i) => ({ before: (i ? ',' : '') + eol + indent, entry, after: '' }));
      }
    } else {
      const rendered = entries.map(([k, v]) => `${keyOf(k)}: ${renderInline(v)}`);
      if (existingComma !== undefined) {
        at = existingComma + 1;
        segments = rendered.map((entry) => ({ before: ' ', entry, after: ',' }));
      } else {
        at = last.end;
        segments = rendered.map((entry) => ({ before: ', ', entry, after: '' }));
      }
    }
  } else {
    const outer = lineIndent(text, open);
    const indent = outer + format.unit;
    const rendered = entries.map(([k, v]) => `${keyOf(k)}: ${renderBlock(v, indent, format)}`);
    segments = rendered.map((entry, i) => ({ before: (i ? ',' : '') + eol + indent, entry, after: '' }));
    if (text.slice(open + 1, close).includes('\n')) {
      at = lineRestEnd(text, open + 1) ?? open + 1;
      form = 'after-open';
    } else {
      at = close;
      tail = eol + outer;
      form = 'before-close';
    }
  }
  const keyOffsets: number[] = [];
  let cursor = at + (comma !== undefined && comma <= at ? 1 : 0);
  for (const s of segments) {
    keyOffsets.push(cursor + s.before.length);
    cursor += s.before.length + s.entry.length + s.after.length;
  }
  const content = segments.map((s) => s.before + s.entry + s.after).join('') + tail;
  const edits: Edit[] = [{ offset: at, length: 0, content }];
  if (comma !== undefined) {
    // One insertion when both land in the same place, so their order is certain.
    if (comma === at) edits[0] = { offset: at, length: 0, content: ',' + content };
    else edits.push({ offset: comma, length: 0, content: ',' });
  }
  return { text: splice(text, edits), form, keyOffsets };
}

// ---- remove ---------------------------------------------------------------------------------------

/**
 * Removes the properties named in `keys` (or those it picks, by their place in `obj.props`), each with
 * the punctuation and line breaks insertion added for it. `form` is what insertion returned when the
 * object was empty; it is used when the last property goes. Returns the new text and whether the
 * object is now empty.
 */
export function removeProperties(
  text: string,
  obj: ObjectInfo,
  keys: ReadonlySet<string> | ((prop: PropInfo, index: number) => boolean),
  form?: ContainerForm,
): { text: string; emptied: boolean } {
  const picked = typeof keys === 'function' ? keys : (prop: PropInfo) => keys.has(prop.key);
  // Removed from the last to the first: every edit then lies after the properties still to be
  // visited, so their offsets stay valid; only positions after an edit (the next property kept, the
  // closing brace) move, and are tracked.
  const props = obj.props.map((p) => ({ ...p, removed: false }));
  let close = obj.close;
  let out = text;
  const apply = (edits: Edit[]) => {
    for (const edit of [...edits].sort((a, b) => b.offset - a.offset)) {
      out = out.slice(0, edit.offset) + out.slice(edit.offset + edit.length);
      const shift = (pos: number) => (pos >= edit.offset + edit.length ? pos - edit.length : pos);
      close = shift(close);
      for (const p of props) {
        if (p.removed || p.offset < edit.offset) continue;
        p.offset = shift(p.offset);
        p.end = shift(p.end);
        p.valueOffset = shift(p.valueOffset);
      }
    }
  };
  for (let i = props.length - 1; i >= 0; i--) {
    const prop = props[i];
    const given = obj.props[i];
    if (!prop || !given || !picked(given, i)) continue;
    let prev: (typeof props)[number] | undefined;
    for (let j = i - 1; j >= 0 && !prev; j--) if (!props[j]?.removed) prev = props[j];
    let next: (typeof props)[number] | undefined;
    for (let j = i + 1; j < props.length && !next; j++) if (!props[j]?.removed) next = props[j];
    apply(removalEdits(out, obj.open, close, prop, prev, next, prev || next ? undefined : form));
    prop.removed = true;
  }
  return { text: out, emptied: props.every((p) => p.removed) };
}

/** The deletions that take `prop` out again, given its neighbours that stay. */
function removalEdits(
  text: string,
  open: number,
  close: number,
  prop: PropInfo,
  prev: PropInfo | undefined,
  next: PropInfo | undefined,
  form: ContainerForm | undefined,
): Edit[] {
  const { offset: start, end } = prop;
  const comma = findComma(text, end, next ? next.offset : close);
  const own = isOwnLine(text, start) ? eolStart(text, start) : undefined;
  // Inline: the space insertion put before the entry goes with it.
  const inlineStart = text[start - 1] === ' ' ? start - 1 : start;
  const del = (from: number, to: number): Edit => ({ offset: from, length: to - from, content: '' });

  if (next) return [del(own ?? inlineStart, comma === undefined ? next.offset : comma + 1)];
  if (prev) {
    if (comma !== undefined) return [del(own ?? inlineStart, comma + 1)];
    const prevComma = findComma(text, prev.end, start);
    if (own !== undefined) {
      const edits = [del(own, end)];
      if (prevComma !== undefined && prevComma < own) edits.push(del(prevComma, prevComma + 1));
      return edits;
    }
    return [del(prevComma ?? start, end)];
  }

  // The only entry.
  const to = comma === undefined ? end : comma + 1;
  if (own === undefined) return [del(inlineStart, to)];
  const tail = text.slice(to, close);
  const head = text.slice(open + 1, own);
  const lineComment = hasLineComment(head);
  const shape =
    form ?? (tail.trim() === '' && !head.includes('\n') && !lineComment ? 'before-close' : 'after-open');
  if (shape === 'before-close' && tail.trim() === '' && !lineComment) return [del(own, close)];
  return [del(own, to)];
}

// ---- update ---------------------------------------------------------------------------------------

/**
 * Replaces the values of existing properties with new ones, each rendered where it stands (multi-line
 * if it was, in the file's indentation and line endings). Only for Switchboard's own entries: the old
 * value's text goes entirely.
 */
export function replaceValues(
  text: string,
  obj: ObjectInfo,
  values: ReadonlyMap<string, unknown>,
  format: TextFormat,
): string {
  return replaceEntries(text, obj, new Map([...values].map(([key, value]) => [key, { key, value }])), format);
}

/**
 * Like replaceValues, and the key may change too (import puts a managed entry named after its server
 * where the user's entry of another name stood): the property keeps its place in the object.
 */
export function replaceEntries(
  text: string,
  obj: ObjectInfo,
  entries: ReadonlyMap<string, { key: string; value: unknown }>,
  format: TextFormat,
): string {
  const edits: Edit[] = [];
  const done = new Set<string>();
  for (const prop of obj.props) {
    const next = entries.get(prop.key);
    if (!next || done.has(prop.key)) continue; // a duplicate key: the first one only
    done.add(prop.key);
    const old = text.slice(prop.valueOffset, prop.end);
    const rendered = old.includes('\n')
      ? renderBlock(next.value, lineIndent(text, prop.offset), format)
      : renderInline(next.value);
    edits.push({ offset: prop.valueOffset, length: prop.end - prop.valueOffset, content: rendered });
    if (next.key !== prop.key) {
      const keyEnd = stringEnd(text, prop.offset);
      edits.push({ offset: prop.offset, length: keyEnd - prop.offset, content: JSON.stringify(next.key) });
    }
  }
  return splice(text, edits);
}

/** Just past the JSON string that starts (with its quote) at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}

// ---- scanning -------------------------------------------------------------------------------------

// jsonc-parser's SyntaxKind is a const enum, which erasable TypeScript cannot read: its values here.
const COMMA = 5 as SyntaxKind;
const LINE_COMMENT = 12 as SyntaxKind;
const EOF = 17 as SyntaxKind;

/** The offset of the comma between `from` and `to` outside comments, if any. */
function findComma(text: string, from: number, to: number): number | undefined {
  const scanner = createScanner(text.slice(from, to), false);
  for (let kind = scanner.scan(); kind !== EOF; kind = scanner.scan()) {
    if (kind === COMMA) return from + scanner.getTokenOffset();
  }
  return undefined;
}

/**
 * Where the line that `from` is on ends, if nothing but spaces and comments follow `from` on it
 * (undefined when more JSON follows on the same line).
 */
function lineRestEnd(text: string, from: number): number | undefined {
  let i = from;
  for (;;) {
    while (text[i] === ' ' || text[i] === '\t') i++;
    if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
      break;
    }
    if (text.startsWith('/*', i)) {
      const close = text.indexOf('*/', i + 2);
      if (close < 0 || /[\r\n]/.test(text.slice(i, close))) return undefined;
      i = close + 2;
      continue;
    }
    break;
  }
  return i >= text.length || text[i] === '\n' || text[i] === '\r' ? i : undefined;
}

function hasLineComment(fragment: string): boolean {
  if (!fragment.includes('//')) return false;
  const scanner = createScanner(fragment, false);
  for (let kind = scanner.scan(); kind !== EOF; kind = scanner.scan()) {
    if (kind === LINE_COMMENT) return true;
  }
  return false;
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** Only spaces/tabs before `offset` on its line, and it is not the first line. */
function isOwnLine(text: string, offset: number): boolean {
  const start = lineStart(text, offset);
  return start > 0 && /^[ \t]*$/.test(text.slice(start, offset));
}

/** Where the line break before `offset`'s line starts (the "\r" of a CRLF). */
function eolStart(text: string, offset: number): number {
  const start = lineStart(text, offset);
  return start >= 2 && text[start - 2] === '\r' ? start - 2 : start - 1;
}

export function lineIndent(text: string, offset: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, offset), offset))?.[0] ?? '';
}

function splice(text: string, edits: Edit[]): string {
  return edits.length ? applyEdits(text, edits) : text;
}

// ---- rendering ------------------------------------------------------------------------------------
