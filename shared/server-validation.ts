import type { z } from 'zod';
import { editDistance } from './edit-distance.ts';
import { EDITOR_IDS } from './editors.ts';
import {
  RemoteServerSchema,
  ServerNameSchema,
  StdioServerSchema,
  type ServerConfig,
} from './schema/servers.ts';

/** One thing wrong with a server's config, at a field path inside the server (`['env', 'TOKEN']`). */
export interface FieldIssue {
  path: (string | number)[];
  message: string;
}

export type ServerValidation = { ok: true; config: ServerConfig } | { ok: false; issues: FieldIssue[] };

/**
 * Validates one server entry (as written in servers.json) with the same zod schemas and the same
 * stdio-or-remote decision the core uses when it reads the file (config/servers-file.ts), so the UI
 * shows exactly the errors the core would, at the field they belong to.
 */
export function validateServerConfig(value: unknown): ServerValidation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, issues: [{ path: [], message: 'a server must be a JSON object' }] };
  }
  const hasUrl = 'url' in value;
  const hasCommand = 'command' in value;
  if (hasUrl && hasCommand) {
    return {
      ok: false,
      issues: [
        {
          path: [],
          message: 'a server has either "command" (a local program) or "url" (a remote server), not both',
        },
      ],
    };
  }
  if (!hasUrl && !hasCommand) {
    return { ok: false, issues: [{ path: [], message: needsCommandOrUrl(value) }] };
  }
  const schema: z.ZodType<ServerConfig> = hasUrl ? RemoteServerSchema : StdioServerSchema;
  const parsed = schema.safeParse(value, { error: serverIssueWords });
  if (parsed.success) return { ok: true, config: parsed.data };
  const issues: FieldIssue[] = [];
  // One issue per field, the first: an empty command is not also "a shell command line".
  const seen = new Set<string>();
  for (const issue of parsed.error.issues) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) issues.push({ path: [...path, key], message: unknownField(key) });
    } else if (!seen.has(JSON.stringify(path))) {
      seen.add(JSON.stringify(path));
      issues.push({ path, message: issue.message });
    }
  }
  return { ok: false, issues };
}

/** Every field a server entry may have (stdio or remote). */
const FIELDS = [
  ...new Set([...Object.keys(StdioServerSchema.shape), ...Object.keys(RemoteServerSchema.shape)]),
];

/** `unknown field "arg" (did you mean "args"?)` */
export function unknownField(key: string): string {
  const near = nearest(key, FIELDS);
  return `unknown field "${key}"${near ? ` (did you mean "${near}"?)` : ''}`;
}

/** Neither "command" nor "url": says so, and names the key that was probably meant as one. */
export function needsCommandOrUrl(entry: object): string {
  const base = 'a server needs "command" (a local program) or "url" (a remote server)';
  for (const key of Object.keys(entry)) {
    const near = nearest(key, ['command', 'url']);
    if (near) return `${base}; is "${key}" meant to be "${near}"?`;
  }
  return base;
}

/** The name among `known` a typo most likely meant: same letters in another case, or one or two edits away. */
function nearest(typed: string, known: readonly string[]): string | undefined {
  const lower = typed.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = name.toLowerCase() === lower ? 0 : editDistance(lower, name.toLowerCase());
    const allowed = Math.min(2, Math.floor(name.length / 3));
    if (distance <= allowed && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** What was found instead, in words, never the value itself (it could be a secret). */
function found(input: unknown): string {
  if (Array.isArray(input)) return 'a list';
  if (input === null) return 'null';
  switch (typeof input) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return input ? 'true' : 'false';
    case 'object':
      return 'an object';
    default:
      return 'nothing';
  }
}

const EXAMPLES: Record<string, string> = {
  args: 'a list of strings, one per argument, like ["-y", "some-package"]',
  editors: `a list of editor ids, like ["zed", "vscode"]`,
  env: 'an object of names to values, like {"API_URL": "https://…", "TOKEN": "${secret:NAME}"}',
  headers: 'an object of header names to values, like {"Authorization": "Bearer ${secret:NAME}"}',
  idleTimeout: 'a number of seconds without quotes, like 600 (0: always running)',
};

/**
 * zod's own wording ("Invalid input: expected array, received string") in the words the form uses:
 * what the field must be, with an example, and what was found instead. Schema-level messages (an
 * empty or shell-form command, a bad URL) take precedence over this; anything not covered here keeps
 * zod's message. Pass it as `safeParse(value, { error: serverIssueWords })`.
 */
export const serverIssueWords: z.core.$ZodErrorMap = (issue) => {
  const [field] = issue.path ?? [];
  const key = typeof field === 'string' ? field : '';
  const inside = issue.path !== undefined && issue.path.length > 1;
  switch (issue.code) {
    case 'invalid_type': {
      const instead = `(found ${found(issue.input)})`;
      if (issue.expected === 'string' && inside) {
        if (key === 'args') return `each argument must be a string in double quotes ${instead}`;
        if (key === 'env' || key === 'headers')
          return `must be a string in double quotes, like "8080" or "true" ${instead}`;
      }
      if (!inside && EXAMPLES[key]) return `must be ${EXAMPLES[key]} ${instead}`;
      if (issue.expected === 'array') return `must be a list in square brackets ${instead}`;
      if (issue.expected === 'record' || issue.expected === 'object')
        return `must be an object in curly braces ${instead}`;
      if (issue.expected === 'boolean') return `must be true or false, without quotes ${instead}`;
      if (issue.expected === 'string') return `must be a string in double quotes ${instead}`;
      return undefined;
    }
    case 'invalid_value': {
      // editor ids are not secrets: saying which one is wrong helps
      if (key === 'editors')
        return `${JSON.stringify(issue.input)} is not an editor Switchboard knows; use one of: ${EDITOR_IDS.join(', ')}`;
      const values = issue.values.map((v) => JSON.stringify(v));
      if (key === 'type' && values.length === 1) return `must be ${values[0]} (or leave "type" out)`;
      return `must be one of ${values.join(', ')}`;
    }
    case 'too_small':
      return issue.origin === 'string' ? 'is empty: give a value, or leave it out' : undefined;
    default:
      return undefined;
  }
};

/** The zod message for an invalid server name, or undefined when the name is fine. */
export function serverNameProblem(name: string): string | undefined {
  const parsed = ServerNameSchema.safeParse(name);
  return parsed.success ? undefined : (parsed.error.issues[0]?.message ?? 'invalid server name');
}
