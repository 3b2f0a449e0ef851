import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';
import type { UserDirs } from './types.ts';

/**
 * Crush (Charm, `@charmland/crush`): its global config, `$XDG_CONFIG_HOME/crush/crush.json` (default
 * ~/.config/crush; Windows `%LOCALAPPDATA%\crush`), `mcp.NAME = {"type": "http", "url", "headers"}`.
 * Crush expands `$(command)` in header values with its own shell, so the Authorization header reads
 * Switchboard's owner-only token file (`$(cat '<file>')`) when Crush connects: the file holds no
 * token. From Crush's README and source (internal/config/resolve.go); the npm package fetches its
 * binary from GitHub on first run, so it does not run here.
 */
function dir(dirs: UserDirs): string {
  const { join } = pathFor(dirs.platform);
  if (dirs.platform === 'win32')
    return join(dirs.variable('LOCALAPPDATA') ?? join(dirs.home, 'AppData', 'Local'), 'crush');
  return join(dirs.variable('XDG_CONFIG_HOME') ?? join(dirs.home, '.config'), 'crush');
}

/** A word for Crush's shell: single-quoted, a quote inside closed, escaped and reopened. */
function shellWord(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export const crush = httpAdapter({
  id: 'crush',
  label: EDITOR_LABELS.crush,
  file: (dirs) => pathFor(dirs.platform).join(dir(dirs), 'crush.json'),
  detectPath: dir,
  serversKey: 'mcp',
  jsonc: false,
  urlKey: 'url',
  extra: { type: 'http' },
  // Forward slashes: Crush's shell reads the path on Windows too, where a backslash would escape.
  auth: (ctx) => ({
    headers: { Authorization: `Bearer $(cat ${shellWord(ctx.tokenFile.replace(/\\/g, '/'))})` },
  }),
});
