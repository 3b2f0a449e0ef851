import { readFileSync } from 'node:fs';
import { findNodeAtLocation, parseTree, type Node, type ParseError } from 'jsonc-parser';
import type { z } from 'zod';
import {
  RemoteServerSchema,
  ServerNameSchema,
  StdioServerSchema,
  type ServerConfig,
  type ServersFile,
} from '../../../shared/schema/servers.ts';
import { needsCommandOrUrl, serverIssueWords, unknownField } from '../../../shared/server-validation.ts';
import { lineColumn, parseErrorWords } from '../../../shared/jsonc-errors.ts';
import { stripBom } from '../fs/bom.ts';

/** One thing wrong with servers.json, located for a person: which server, which field, which line. */
export interface ConfigProblem {
  message: string;
  server: string | undefined;
  path: (string | number)[];
  line: number | undefined;
  column: number | undefined;
}

export type ServersFileResult =
  | { ok: true; servers: Map<string, ServerConfig>; text: string }
  | { ok: false; problems: ConfigProblem[]; text: string };

/** Reads servers.json; a missing file is an empty configuration, not an error. */
export function readServersFile(path: string): ServersFileResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, servers: new Map(), text: '' };
    throw err;
  }
  return parseServersFile(text);
}

/** Parses JSONC (comments, trailing commas) and validates every server with the shared zod schema. */
export function parseServersFile(text: string): ServersFileResult {
  const body = stripBom(text);
  const offsetShift = text.length - body.length;
  const at = (offset: number) => lineColumn(text, offset + offsetShift);

  if (body.trim() === '') return { ok: true, servers: new Map(), text };
  const parseErrors: ParseError[] = [];
  const root = parseTree(body, parseErrors, { allowTrailingComma: true, disallowComments: false });
  if (parseErrors.length > 0 || root === undefined) {
    const problems = parseErrors.map((e) => ({
      message: `not valid JSON: ${parseErrorWords(e)}`,
      server: undefined,
      path: [],
      ...at(e.offset),
    }));
    return { ok: false, problems, text };
  }
  if (root.type !== 'object') {
    return {
      ok: false,
      problems: [
        {
          message: 'the file must be a JSON object with "mcpServers"',
          server: undefined,
          path: [],
          ...at(root.offset),
        },
      ],
      text,
    };
  }

  const problems: ConfigProblem[] = [];
  const locate = (path: (string | number)[]) => {
    const node = deepestNode(root, path);
    return node ? at(node.offset) : { line: undefined, column: undefined };
  };
  for (const prop of root.children ?? []) {
    const key = prop.children?.[0]?.value as string;
    if (key !== 'mcpServers' && key !== '$schema') {
      problems.push({
        message: `unknown top-level field "${key}" (servers go under "mcpServers")`,
        server: undefined,
        path: [key],
        ...at(prop.offset),
      });
    }
  }

  const servers = new Map<string, ServerConfig>();
  const serversNode = findNodeAtLocation(root, ['mcpServers']);
  if (serversNode && serversNode.type !== 'object') {
    problems.push({
      message: '"mcpServers" must be an object of servers by name',
      server: undefined,
      path: ['mcpServers'],
      ...at(serversNode.offset),
    });
  }
  for (const prop of serversNode?.type === 'object' ? (serversNode.children ?? []) : []) {
    const name = prop.children?.[0]?.value as string;
    const valueNode = prop.children?.[1];
    const base = ['mcpServers', name];
    const nameCheck = ServerNameSchema.safeParse(name);
    if (!nameCheck.success) {
      problems.push({
        message: `server name "${name}": ${nameCheck.error.issues[0]?.message}`,
        server: name,
        path: base,
        ...at(prop.offset),
      });
      continue;
    }
    const value: unknown = valueNode ? nodeValue(valueNode) : undefined;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.push({
        message: `server "${name}" must be an object`,
        server: name,
        path: base,
        ...locate(base),
      });
      continue;
    }
    const hasUrl = 'url' in value;
    const hasCommand = 'command' in value;
    if (hasUrl === hasCommand) {
      problems.push({
        message: hasUrl
          ? `server "${name}" has both "command" and "url": a server is either a local program or a remote URL`
          : `server "${name}": ${needsCommandOrUrl(value)}`,
        server: name,
        path: base,
        ...locate(base),
      });
      continue;
    }
    const schema: z.ZodType<ServerConfig> = hasUrl ? RemoteServerSchema : StdioServerSchema;
    // The same words as the UI's form ("must be a list in square brackets (found a string)").
    const parsed = schema.safeParse(value, { error: serverIssueWords });
    if (parsed.success) {
      servers.set(name, parsed.data);
      continue;
    }
    for (const issue of parsed.error.issues) {
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
      for (const extra of keys) {
        const path = [
          ...base,
          ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
          ...(extra ? [extra] : []),
        ];
        const field = path.slice(2).join('.');
        const message =
          extra !== undefined
            ? `server "${name}": ${unknownField(field)}`
            : `server "${name}"${field ? `, field "${field}"` : ''}: ${issue.message}`;
        problems.push({ message, server: name, path, ...locate(path) });
      }
    }
  }
  if (problems.length > 0) return { ok: false, problems, text };
  return { ok: true, servers, text };
}

/** "servers.json:4:7: server "x", field "command": …" — the form errors are shown in everywhere. */
export function formatProblem(problem: ConfigProblem, fileName: string): string {
  const where = problem.line === undefined ? fileName : `${fileName}:${problem.line}:${problem.column}`;
  return `${where}: ${problem.message}`;
}

export function formatProblems(problems: ConfigProblem[], fileName: string): string {
  return problems.map((p) => formatProblem(p, fileName)).join('\n');
}

export function serversToFile(servers: Map<string, ServerConfig>): ServersFile {
  return { mcpServers: Object.fromEntries(servers) };
}

function nodeValue(node: Node): unknown {
  switch (node.type) {
    case 'object':
      return Object.fromEntries(
        (node.children ?? []).map((p) => [
          p.children?.[0]?.value as string,
          p.children?.[1] ? nodeValue(p.children[1]) : undefined,
        ]),
      );
    case 'array':
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}

/** The node at path, or the closest ancestor that exists (a missing field is reported at its parent). */
function deepestNode(root: Node, path: (string | number)[]): Node | undefined {
  for (let n = path.length; n >= 0; n--) {
    const node = findNodeAtLocation(root, path.slice(0, n));
    if (node) {
      // For a property, point at its key rather than its value.
      return node.parent?.type === 'property' && n === path.length && typeof path[n - 1] === 'string'
        ? node.parent
        : node;
    }
  }
  return undefined;
}
