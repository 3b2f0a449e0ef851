import type { EditorId } from '../../../shared/editors.ts';
import { isBridgeUrl, isRecord, stringRecord } from './ownership.ts';
import type { EditorAdapter, ForeignServer, UserDirs } from './types.ts';

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
  jsonc: boolean;
  /** the key holding the URL in this editor's entries: "url", "serverUrl", "httpUrl" */
  urlKey: string;
  /** other keys an entry of this editor may keep a URL under (read for import and ownership) */
  otherUrlKeys?: string[];
  /** fields written before the URL, e.g. {"type": "http"} */
  extra?: Record<string, unknown>;
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
    jsonc: spec.jsonc,
    managedEntry: (ctx) => ({
      ...spec.extra,
      [spec.urlKey]: ctx.url,
      headers: { Authorization: `Bearer ${ctx.token()}` },
    }),
    isManaged: (entry, ownership) => isBridgeUrl(urlOf(entry), ownership),
    foreignServer: (entry) => foreignServer(entry, urlOf(entry)),
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
