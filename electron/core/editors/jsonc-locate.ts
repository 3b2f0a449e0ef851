import { getNodeValue, parseTree, type ParseError } from 'jsonc-parser';
import { lineColumn, parseErrorWords } from '../../../shared/jsonc-errors.ts';
import { isPlainObject } from '../config/jsonc-render.ts';
import { objectInfo, type ObjectInfo, type PropInfo } from './jsonc-entries.ts';

// Locating the servers object of a JSON/JSONC editor file: the root object's properties, found fast.

export type Located =
  | { ok: true; root: ObjectInfo; strict: boolean; value: () => unknown }
  | { ok: false; problem: string; line: number; column: number };

/**
 * Validates the whole file and finds the root object's properties. Strict JSON is checked with
 * JSON.parse (fast) and walked with the scanner at the top level only; anything else is parsed as
 * JSONC, which also reports where it breaks.
 */
export function locate(body: string): Located {
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
