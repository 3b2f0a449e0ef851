import type { Node } from 'jsonc-parser';
import { serverNameProblem, validateServerConfig } from '../../../shared/server-validation.ts';
import { nodeValue, parseJson, span, type JsonProblem } from './json-lint.ts';

/**
 * JSON pasted from a server's README, read the way people copy it:
 * - `{"mcpServers": {"name": {…}, …}}` — the shape of servers.json and most READMEs
 * - `{"name": {…}, …}` — the servers without their wrapper
 * - `{"command": …, "args": […]}` or `{"url": …}` — one server's entry, which then needs a name
 */
export type SnippetShape = 'mcpServers' | 'servers' | 'entry';

export interface SnippetServer {
  /** '' for a bare entry not named yet */
  name: string;
  config: unknown;
}

export interface SnippetCheck {
  /** undefined while nothing (or nothing readable) is pasted */
  shape: SnippetShape | undefined;
  servers: SnippetServer[];
  /** what is wrong in the text, placed where it is (a bare entry's name problem is not: see nameProblem) */
  problems: JsonProblem[];
  /** only for a bare entry: what is wrong with the name typed for it */
  nameProblem: string | undefined;
  /** something to add and nothing wrong */
  ok: boolean;
}

/** Every field a server entry may have: a pasted object with any of them is one server's entry. */
const ENTRY_FIELDS = new Set([
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'headers',
  'type',
  'enabled',
  'editors',
  'idleTimeout',
  'isolated',
]);

const SHAPES_HINT =
  'paste {"mcpServers": {"name": {…}}}, {"name": {…}}, or one server’s {"command": …, "args": […]}';

/**
 * Reads pasted JSON into the servers it would add, with every problem where it is: JSON syntax, the
 * shape, names (invalid, given twice, or already in servers.json: `existing`) and each entry checked
 * with the core's own schema — the same words the form and the core use.
 */
export function checkSnippet(
  text: string,
  options: { name: string; existing: ReadonlySet<string> },
): SnippetCheck {
  const none = { servers: [], nameProblem: undefined, ok: false };
  if (text.trim() === '') return { shape: undefined, problems: [], ...none };
  const parsed = parseJson(text);
  if (!parsed.ok) return { shape: undefined, problems: [parsed.problem], ...none };
  const { root } = parsed;
  if (root.type !== 'object') {
    return {
      shape: undefined,
      problems: [{ ...span(root, []), message: `not a JSON object: ${SHAPES_HINT}` }],
      ...none,
    };
  }

  const problems: JsonProblem[] = [];
  const props = properties(root);
  const wrapper = props.find((p) => p.key === 'mcpServers');
  let shape: SnippetShape;
  let entries: Property[];
  if (wrapper) {
    shape = 'mcpServers';
    for (const other of props) {
      if (other !== wrapper && other.key !== '$schema')
        problems.push({
          ...keySpan(other),
          message: `"${other.key}": only "mcpServers" is read here; take "${other.key}" out`,
        });
    }
    if (wrapper.value.type !== 'object') {
      problems.push({ ...keySpan(wrapper), message: '"mcpServers" must be an object of servers by name' });
      entries = [];
    } else {
      entries = properties(wrapper.value);
      if (entries.length === 0)
        problems.push({ ...keySpan(wrapper), message: 'there is no server in "mcpServers"' });
    }
  } else if (props.length > 0 && props.every((p) => !ENTRY_FIELDS.has(p.key) && p.value.type === 'object')) {
    shape = 'servers';
    entries = props;
    for (const vscode of props.filter((p) => p.key === 'servers' || p.key === 'mcp'))
      problems.push({
        ...keySpan(vscode),
        message: `"${vscode.key}" is how VS Code wraps its servers: paste what is inside it, or call it "mcpServers"`,
      });
  } else {
    shape = 'entry';
    const config = nodeValue(root);
    const nameProblem = options.name.trim()
      ? nameIssue(options.name.trim(), options.existing)
      : 'give this server a name';
    problems.push(...entryProblems(root, config, undefined));
    if (props.length === 0)
      problems.push({ ...span(root, []), message: `there is no server in it: ${SHAPES_HINT}` });
    const servers = [{ name: options.name.trim(), config }];
    return { shape, servers, problems, nameProblem, ok: problems.length === 0 && !nameProblem };
  }

  const servers: SnippetServer[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const issue = seen.has(entry.key)
      ? `"${entry.key}" is given twice; each server needs its own name`
      : nameIssue(entry.key, options.existing);
    seen.add(entry.key);
    if (issue) problems.push({ ...keySpan(entry), message: issue });
    const config = nodeValue(entry.value);
    problems.push(...entryProblems(entry.value, config, entry));
    servers.push({ name: entry.key, config });
  }
  return {
    shape,
    servers,
    problems,
    nameProblem: undefined,
    ok: problems.length === 0 && servers.length > 0,
  };
}

interface Property {
  key: string;
  keyNode: Node;
  value: Node;
}

function properties(object: Node): Property[] {
  const out: Property[] = [];
  for (const prop of object.children ?? []) {
    const [keyNode, value] = prop.children ?? [];
    if (keyNode && value && typeof keyNode.value === 'string')
      out.push({ key: keyNode.value, keyNode, value });
  }
  return out;
}

function keySpan(p: Property): { from: number; to: number } {
  return { from: p.keyNode.offset, to: p.keyNode.offset + p.keyNode.length };
}

function nameIssue(name: string, existing: ReadonlySet<string>): string | undefined {
  const problem = serverNameProblem(name);
  if (problem) return `server name "${name}": ${problem}`;
  if (existing.has(name))
    return `a server named "${name}" already exists; rename this one, or remove that one first`;
  return undefined;
}

/**
 * One entry checked with the core's schema, each issue on its field ("github: args: …"); an issue of
 * the entry as a whole (no command) on its name.
 */
function entryProblems(value: Node, config: unknown, entry: Property | undefined): JsonProblem[] {
  const result = validateServerConfig(config);
  if (result.ok) return [];
  return result.issues.map((issue) => {
    const field = issue.path.length ? `${issue.path.join('.')}: ` : '';
    return {
      ...(entry && issue.path.length === 0 ? keySpan(entry) : span(value, issue.path)),
      message: `${entry ? `${entry.key}: ` : ''}${field}${issue.message}`,
    };
  });
}
