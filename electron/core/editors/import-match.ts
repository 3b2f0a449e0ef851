import type { ForeignServer } from './types.ts';

// How import tells that an editor's entry is a server it already has (servers.json's, or an earlier
// editor's), and what then differs: the entry is mapped by command and args (or URL) alone, so a
// different key or folder in it would otherwise be dropped without a word.

/** The identity used to find the same server in several editors: command + args, or the URL. */
export function identity(server: ForeignServer): string {
  return server.kind === 'stdio'
    ? JSON.stringify(['stdio', server.command, server.args])
    : JSON.stringify(['remote', server.url]);
}

/** The same identity of a servers.json entry (undefined for one without a command or URL). */
export function identityOfConfig(config: unknown): string | undefined {
  const c = config as { command?: unknown; args?: unknown; url?: unknown };
  if (typeof c.url === 'string') return JSON.stringify(['remote', c.url]);
  if (typeof c.command === 'string')
    return JSON.stringify(['stdio', c.command, Array.isArray(c.args) ? c.args : []]);
  return undefined;
}

/** What an entry sets besides its identity: env (or headers) and cwd, as written. */
export interface Settings {
  values: Record<string, string>;
  cwd: string | undefined;
}

export function settingsOfConfig(config: unknown): Settings {
  const c = config as { url?: unknown; env?: unknown; headers?: unknown; cwd?: unknown };
  const record = (typeof c.url === 'string' ? c.headers : c.env) ?? {};
  const values: Record<string, string> = {};
  if (typeof record === 'object' && record !== null)
    for (const [k, v] of Object.entries(record)) if (typeof v === 'string') values[k] = v;
  return { values, cwd: typeof c.cwd === 'string' ? c.cwd : undefined };
}

export function settingsOf(server: ForeignServer): Settings {
  return server.kind === 'stdio'
    ? { values: server.env, cwd: server.cwd }
    : { values: server.headers, cwd: undefined };
}

/**
 * The env variables (or headers), and `cwd`, that `entry` sets differently from `target` (servers.json's
 * config, or the server an earlier editor's entry imports as): set on one side only, or to another
 * value. Compared as written, without the keychain: a pasted key and a `${secret:NAME}` reference count
 * as different even when the secret holds that very key. Names only; values are never returned.
 */
export function differences(entry: ForeignServer, theirs: Settings): string[] {
  const mine = settingsOf(entry);
  const keys = [...new Set([...Object.keys(mine.values), ...Object.keys(theirs.values)])];
  const differ = keys.filter((k) => mine.values[k] !== theirs.values[k]);
  if ((mine.cwd ?? '') !== (theirs.cwd ?? '')) differ.push('cwd');
  return differ;
}
