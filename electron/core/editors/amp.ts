import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';
import type { UserDirs } from './types.ts';

/**
 * Amp (Sourcegraph's `@ampcode/cli`, formerly `@sourcegraph/amp`, and its editor extensions): the
 * settings file `$XDG_CONFIG_HOME/amp/settings.json` (default ~/.config/amp on every OS), JSON with
 * comments, servers under the one flat key `"amp.mcpServers"`: `{"url", "headers"}`, as `amp mcp add
 * NAME --header K=V URL` writes them. Amp's documentation names no reference a header could take the
 * token from: it is in the file. Checked against the real `amp` (its `mcp add` and `mcp list`), which
 * signs in to ampcode.com before it connects to any server, so it is not run against the bridge here.
 */
function dir(dirs: UserDirs): string {
  const { join } = pathFor(dirs.platform);
  return join(dirs.variable('XDG_CONFIG_HOME') ?? join(dirs.home, '.config'), 'amp');
}

export const amp = httpAdapter({
  id: 'amp',
  label: EDITOR_LABELS.amp,
  file: (dirs) => pathFor(dirs.platform).join(dir(dirs), 'settings.json'),
  detectPath: dir,
  serversKey: 'amp.mcpServers',
  jsonc: true,
  urlKey: 'url',
});
