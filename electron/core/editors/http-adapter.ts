import type { EditorId } from '../../../shared/editors.ts';
import { isBridgeUrl, isRecord, stringRecord } from './ownership.ts';
import { JSON_FORMAT, JSONC_FORMAT, type FileFormat } from './file-format.ts';
import type { EditorAdapter, EntryContext, ForeignServer, UserDirs } from './types.ts';

/**
 * Most editors take a Streamable HTTP entry: a URL (under a key of their choosing) plus headers, for
 * the bridge token. This builds such an adapter from the few things that differ.
 */
export interface HttpAdapterSpec {
  id: EditorId;
  label: string;
  file(dirs: UserDirs): string;
  detectPath(dirs: UserDirs): string;
  serversKey: string;
  /** the file takes comments and trailing commas (JSONC); strict JSON otherwise */
  jsonc: boolean;
  /** another kind of file (TOML, YAML); `jsonc` is then ignored */
  format?: FileFormat;
  /** the key holding the URL in this editor's entries: "url", "serverUrl", "httpUrl" */
  urlKey: string;
  /** other keys an entry of this editor may keep a URL under (read for import and ownership) */
  otherUrlKeys?: string[];
  /** fields written before the URL, e.g. {"type": "http"} */
  extra?: Record<string, unknown>;
  /** a field inside the entry that holds its name too (Goose's "name", Continue's list entries) */
  nameKey?: string;
  /** fields written after the URL and headers, e.g. {"tools": ["*"]} */
  trailing?: Record<string, unknown>;
  /**
   * How the entry gets the bridge token. Default: `headers: {"Authorization": "Bearer <token>"}`,
   * the token in the file. An editor that can read it some other way (a header helper command, a
   * reference to the token file) says so here, and its file then holds no token.
   */
  auth?: (ctx: EntryContext) => Record<string, unknown>;
  /** whether `auth` still puts the token in the file (default: only without `auth`) */
  tokenInFile?: boolean;
  /**
   * An entry of this editor in the shape MCP clients share (`{command, args, env, cwd}` or
   * `{url, headers}`), for import, when its own keys differ (Codex's `http_headers`, opencode's
   * `command` list and `environment`).
   */
  normalize?: (entry: Record<string, unknown>) => { entry: Record<string, unknown> } | { problem: string };
}

/** The bridge token as a literal header: for clients with no other way to get it. */
export function bearerHeaders(ctx: EntryContext): Record<string, unknown> {
  return { headers: { Authorization: `Bearer ${ctx.token()}` } };
}

export function httpAdapter(spec: HttpAdapterSpec): EditorAdapter {
  const urlKeys = [spec.urlKey, ...(spec.otherUrlKeys ?? [])];
  const urlOf = (entry: unknown): unknown => {
    if (!isRecord(entry)) return undefined;
    for (const key of urlKeys) if (entry[key] !== undefined) return entry[key];
    return undefined;
  };
  return {
    id: spec.id,
    label: spec.label,
    file: spec.file,
    detectPath: spec.detectPath,
    serversKey: spec.serversKey,
    format: spec.format ?? (spec.jsonc ? JSONC_FORMAT : JSON_FORMAT),
    managedEntry: (ctx) => ({
      ...(spec.nameKey ? { [spec.nameKey]: ctx.server } : {}),
      ...spec.extra,
      [spec.urlKey]: ctx.url,
      ...(spec.auth ?? bearerHeaders)(ctx),
      ...spec.trailing,
    }),
    tokenInFile: spec.tokenInFile ?? spec.auth === undefined,
    pointsAtBridge: (entry, ownership) => isBridgeUrl(urlOf(entry), ownership),
    foreignServer: (entry) => {
      if (!spec.normalize || !isRecord(entry)) return foreignServer(entry, urlOf(entry));
      const common = spec.normalize(entry);
      return 'problem' in common ? common : foreignServer(common.entry, common.entry.url);
    },
  };
}

/** What a user's entry runs, in the shapes MCP clients share: {command, args, env, cwd} or {url, headers}. */
export function foreignServer(entry: unknown, url: unknown): ForeignServer | { problem: string } {
  if (!isRecord(entry)) return { problem: 'the entry is not a JSON object' };
  if (url !== undefined) {
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url))
      return { problem: 'its URL is not an http(s) address' };
    const headers = stringRecord(entry.headers);
    if (!headers) return { problem: '"headers" is not an object of strings' };
    return { kind: 'remote', url, headers };
  }
  // Older Zed: "command": {"path", "args", "env"}.
  const nested = isRecord(entry.command) ? entry.command : undefined;
  const command = nested ? nested.path : entry.command;
  if (typeof command !== 'string' || command.trim() === '')
    return { problem: 'it has neither a command nor a URL' };
  const rawArgs = nested ? nested.args : entry.args;
  const args = rawArgs === undefined ? [] : rawArgs;
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string'))
    return { problem: '"args" is not a list of strings' };
  const env = stringRecord(nested ? nested.env : entry.env);
  if (!env) return { problem: '"env" is not an object of strings' };
  const cwd = entry.cwd;
  if (cwd !== undefined && typeof cwd !== 'string') return { problem: '"cwd" is not a string' };
  return { kind: 'stdio', command, args, env, cwd };
}
