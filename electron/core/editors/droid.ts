import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';
import type { UserDirs } from './types.ts';

/**
 * Factory's Droid (`@factory/cli`): ~/.factory/mcp.json, strict JSON (a comment makes droid see no
 * servers at all), `mcpServers.NAME = {"type": "http", "url", "headers"}`, as `droid mcp add NAME URL
 * --type http --header "K: V"` writes it. Droid expands `${VAR}` in headers but reads no file: the
 * token is in the file. Checked with the real `droid` in test/clients (`droid mcp list` connects).
 */
function dir(dirs: UserDirs): string {
  return pathFor(dirs.platform).join(dirs.home, '.factory');
}

export const droid = httpAdapter({
  id: 'droid',
  label: EDITOR_LABELS.droid,
  file: (dirs) => pathFor(dirs.platform).join(dir(dirs), 'mcp.json'),
  detectPath: dir,
  serversKey: 'mcpServers',
  jsonc: false,
  urlKey: 'url',
  extra: { type: 'http' },
});
