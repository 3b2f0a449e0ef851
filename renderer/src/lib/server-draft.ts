import { EDITOR_IDS, type EditorId } from '../../../shared/editors.ts';
import {
  serverNameProblem,
  validateServerConfig,
  type FieldIssue,
} from '../../../shared/server-validation.ts';

/** One env variable (stdio) or header (remote) row in the form. */
export interface KeyValueRow {
  id: number;
  key: string;
  value: string;
}

/** What the server form edits; turned into the servers.json entry by configFromDraft. */
export interface Draft {
  kind: 'stdio' | 'remote';
  command: string;
  /** one argument per line */
  args: string;
  env: KeyValueRow[];
  cwd: string;
  url: string;
  headers: KeyValueRow[];
  editorsMode: 'all' | 'some';
  editors: EditorId[];
  /** one process per editor session instead of one shared by every editor */
  isolated: boolean;
}

let nextRowId = 1;
export const newRow = (key = '', value = ''): KeyValueRow => ({ id: nextRowId++, key, value });

export function emptyDraft(): Draft {
  return {
    kind: 'stdio',
    command: '',
    args: '',
    env: [],
    cwd: '',
    url: '',
    headers: [],
    editorsMode: 'all',
    editors: [],
    isolated: false,
  };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));

function rows(value: unknown): KeyValueRow[] {
  return isObject(value) ? Object.entries(value).map(([k, v]) => newRow(k, str(v))) : [];
}

/** The form's view of an entry as written (whatever the form cannot show stays in the entry). */
export function draftFromConfig(config: unknown): Draft {
  const c = isObject(config) ? config : {};
  const editors = Array.isArray(c.editors)
    ? c.editors.filter((e): e is EditorId => (EDITOR_IDS as readonly string[]).includes(String(e)))
    : [];
  return {
    kind: 'url' in c ? 'remote' : 'stdio',
    command: str(c.command),
    args: Array.isArray(c.args) ? c.args.map(str).join('\n') : '',
    env: rows(c.env),
    cwd: str(c.cwd),
    url: str(c.url),
    headers: rows(c.headers),
    editorsMode: Array.isArray(c.editors) ? 'some' : 'all',
    editors,
    isolated: c.isolated === true,
  };
}

function recordOf(list: KeyValueRow[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const row of list) if (row.key.trim() !== '') out[row.key.trim()] = row.value;
  return out;
}

/** Arguments, one per line; trailing blank lines are not arguments. */
export function splitArgs(text: string): string[] {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * The servers.json entry for a draft. Starts from the entry as written, so fields the form does not
 * show ($comment, enabled, type) are kept, and fields that were absent stay absent when left empty.
 */
export function configFromDraft(draft: Draft, original: unknown = {}): Json {
  const base: Json = isObject(original) ? { ...original } : {};
  const had = (key: string) => isObject(original) && key in original;
  const setOrDrop = (key: string, value: unknown, empty: boolean) => {
    if (empty && !had(key)) Reflect.deleteProperty(base, key);
    else base[key] = value;
  };
  if (draft.kind === 'stdio') {
    delete base.url;
    delete base.headers;
    if (base.type !== undefined && base.type !== 'stdio') delete base.type;
    base.command = draft.command.trim();
    const args = splitArgs(draft.args);
    setOrDrop('args', args, args.length === 0);
    const env = recordOf(draft.env);
    setOrDrop('env', env, Object.keys(env).length === 0);
    if (draft.cwd.trim()) base.cwd = draft.cwd.trim();
    else delete base.cwd;
  } else {
    delete base.command;
    delete base.args;
    delete base.env;
    delete base.cwd;
    delete base.sandbox; // a remote server is no process of this machine: nothing to sandbox
    if (base.type === 'stdio') delete base.type;
    base.url = draft.url.trim();
    const headers = recordOf(draft.headers);
    setOrDrop('headers', headers, Object.keys(headers).length === 0);
  }
  if (draft.editorsMode === 'some') base.editors = draft.editors;
  else delete base.editors;
  if (draft.isolated) base.isolated = true;
  else delete base.isolated;
  return base;
}

/** Form-field keys errors are shown at: "command", "env", "env:GITHUB_TOKEN", "row:12", "" (whole form). */
export type FieldKey = string;

export function fieldKey(path: readonly (string | number)[]): FieldKey {
  const [first, second] = path;
  if (first === undefined) return '';
  if ((first === 'env' || first === 'headers') && typeof second === 'string') return `${first}:${second}`;
  if (['command', 'args', 'env', 'cwd', 'url', 'headers', 'editors', 'name'].includes(String(first)))
    return String(first);
  return '';
}

/** Problems the schema cannot see in a form: rows with a value but no name, names used twice. */
function rowIssues(field: 'env' | 'headers', list: KeyValueRow[]): { key: FieldKey; message: string }[] {
  const out: { key: FieldKey; message: string }[] = [];
  const seen = new Set<string>();
  const label = field === 'env' ? 'variable' : 'header';
  for (const row of list) {
    const key = row.key.trim();
    if (key === '' && row.value !== '')
      out.push({ key: `row:${row.id}`, message: `give this ${label} a name` });
    else if (key !== '' && seen.has(key))
      out.push({ key: `row:${row.id}`, message: `"${key}" is listed twice; keep one` });
    seen.add(key);
  }
  return out;
}

export interface DraftCheck {
  config: Json;
  /** field key → messages; empty when the entry is valid */
  errors: Map<FieldKey, string[]>;
  issues: FieldIssue[];
}

/** Validates as the core would (shared zod schema), plus the form's own row checks. */
export function checkDraft(draft: Draft, original: unknown, name?: string): DraftCheck {
  const config = configFromDraft(draft, original);
  const errors = new Map<FieldKey, string[]>();
  const add = (key: FieldKey, message: string) => errors.set(key, [...(errors.get(key) ?? []), message]);
  const issues: FieldIssue[] = [];
  if (name !== undefined) {
    const problem = name === '' ? 'give the server a name' : serverNameProblem(name);
    if (problem) {
      add('name', problem);
      issues.push({ path: ['name'], message: problem });
    }
  }
  const result = validateServerConfig(config);
  if (!result.ok) {
    for (const issue of result.issues) {
      add(fieldKey(issue.path), issue.message);
      issues.push(issue);
    }
  }
  const rowsToCheck =
    draft.kind === 'stdio' ? (['env', draft.env] as const) : (['headers', draft.headers] as const);
  for (const issue of rowIssues(rowsToCheck[0], rowsToCheck[1])) {
    add(issue.key, issue.message);
    issues.push({ path: [rowsToCheck[0]], message: issue.message });
  }
  return { config, errors, issues };
}
