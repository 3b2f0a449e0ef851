import { findNodeAtLocation, parseTree, type Node, type ParseError } from 'jsonc-parser';
import { lineColumn, parseErrorWords } from '../../../shared/jsonc-errors.ts';
import { validateServerConfig, type FieldIssue } from '../../../shared/server-validation.ts';

export interface JsonProblem {
  from: number;
  to: number;
  message: string;
}

export type JsonCheck =
  | { ok: true; value: unknown; problems: [] }
  | { ok: false; value: unknown; problems: JsonProblem[]; issues: FieldIssue[] };

/**
 * Checks the raw JSON of one server entry as you type: JSON syntax first (comments and trailing commas
 * are fine, as in servers.json), then the core's zod schema, each problem placed on the text it is
 * about (a missing field marks the object's opening brace).
 */
export function checkServerJson(text: string): JsonCheck {
  const parsed = parseJson(text);
  if (!parsed.ok) {
    return {
      ok: false,
      value: undefined,
      problems: [parsed.problem],
      issues: [{ path: [], message: parsed.problem.message }],
    };
  }
  const { root } = parsed;
  const value = nodeValue(root);
  const result = validateServerConfig(value);
  if (result.ok) return { ok: true, value, problems: [] };
  const problems = result.issues.map((issue) => ({
    ...span(root, issue.path),
    message: issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
  }));
  return { ok: false, value, problems, issues: result.issues };
}

/**
 * The document's tree, or its first syntax error. Only the first: once the parser has lost its way
 * (an unterminated string, a missing comma), what it reports after that mostly follows from it — one
 * missing quote would otherwise read as a dozen "expected a value" and "expected ","".
 */
export function parseJson(text: string): { ok: true; root: Node } | { ok: false; problem: JsonProblem } {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (!first && root) return { ok: true, root };
  const error = first ?? { error: 0, offset: 0, length: 0 };
  return {
    ok: false,
    problem: {
      from: error.offset,
      to: error.offset + Math.max(1, error.length),
      message: `not valid JSON: ${parseErrorWords(first)}`,
    },
  };
}

/**
 * The problems list under an editor: each message once, at the line of its first place, in order.
 * (The editor marks every place; the list says what is wrong.)
 */
export function problemList(
  text: string,
  problems: readonly JsonProblem[],
): { line: number; message: string }[] {
  const seen = new Set<string>();
  const out: { line: number; message: string }[] = [];
  for (const problem of problems) {
    if (seen.has(problem.message)) continue;
    seen.add(problem.message);
    out.push({ line: lineColumn(text, problem.from).line, message: problem.message });
  }
  return out;
}

/**
 * Where an issue is marked: a property (key and value) when the field exists, a container's key or
 * opening bracket when the problem is a missing field inside it.
 */
export function span(root: Node, path: (string | number)[]): { from: number; to: number } {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = findNodeAtLocation(root, path.slice(0, depth));
    if (!node) continue;
    const prop = node.parent?.type === 'property' ? node.parent : undefined;
    const key = prop?.children?.[0];
    const container = node.type === 'object' || node.type === 'array';
    if (prop && key && depth > 0) {
      return container
        ? { from: key.offset, to: key.offset + key.length }
        : { from: prop.offset, to: prop.offset + prop.length };
    }
    return container
      ? { from: node.offset, to: node.offset + 1 }
      : { from: node.offset, to: node.offset + node.length };
  }
  return { from: root.offset, to: root.offset + 1 };
}

export function nodeValue(node: Node): unknown {
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const prop of node.children ?? []) {
        const [k, v] = prop.children ?? [];
        if (k && typeof k.value === 'string') out[k.value] = v ? nodeValue(v) : undefined;
      }
      return out;
    }
    case 'array':
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value as unknown;
  }
}
