import { existsSync } from 'node:fs';
import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';
import { isRecord } from './ownership.ts';
import type { UserDirs } from './types.ts';

/**
 * opencode: ~/.config/opencode/opencode.json (or .jsonc, when that is the one there), `mcp.NAME =
 * {"type": "remote", "url", "headers"}` — "type" is required, or opencode rejects the whole file. The
 * Authorization header is `Bearer {file:PATH}`, which opencode fills in from Switchboard's owner-only
 * token file when it reads its config: the file holds no token.
 */
/** An opencode entry (a `command` list, `environment`) in the shape MCP clients share, for import. */
export function opencodeEntry(entry: Record<string, unknown>): { entry: Record<string, unknown> } {
  if (entry.type === 'local' || Array.isArray(entry.command)) {
    const [command, ...args] = Array.isArray(entry.command) ? (entry.command as unknown[]) : [];
    return { entry: { command, args, env: entry.environment, cwd: entry.cwd } };
  }
  return { entry: { url: entry.url, headers: isRecord(entry.headers) ? entry.headers : {} } };
}

/** How opencode and its forks (Kilo Code) write an entry and read one back. */
export const OPENCODE_FORMAT = {
  serversKey: 'mcp',
  jsonc: true,
  urlKey: 'url',
  extra: { type: 'remote' },
  // Forward slashes: the reference is read from the raw text, where a JSON-escaped "\\" would double.
  auth: (ctx: { tokenFile: string }) => ({
    headers: { Authorization: `Bearer {file:${ctx.tokenFile.replace(/\\/g, '/')}}` },
  }),
  normalize: opencodeEntry,
} as const;

function dir(dirs: UserDirs): string {
  // opencode finds its folder under XDG_CONFIG_HOME, else ~/.config, on every OS.
  const { join } = pathFor(dirs.platform);
  return join(dirs.variable('XDG_CONFIG_HOME') ?? join(dirs.home, '.config'), 'opencode');
}

export const opencode = httpAdapter({
  id: 'opencode',
  label: EDITOR_LABELS.opencode,
  file(dirs) {
    const { join } = pathFor(dirs.platform);
    const jsonc = join(dir(dirs), 'opencode.jsonc');
    return dirs.platform === process.platform && existsSync(jsonc) ? jsonc : join(dir(dirs), 'opencode.json');
  },
  detectPath: dir,
  ...OPENCODE_FORMAT,
});
