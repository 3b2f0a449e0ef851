import { httpAdapter } from './http-adapter.ts';
import { pathFor } from '../user-dirs.mjs';
import type { UserDirs } from './types.ts';
import { EDITOR_LABELS } from '../../../shared/editors.ts';

/**
 * Zed: settings.json (JSONC) under `context_servers`. Current Zed reads an entry with a "url" as a
 * remote (Streamable HTTP) server, headers included; no "source" field is needed (Zed's settings
 * enum is untagged; the old `"source": "custom"` tag belongs to versions that had no URL servers).
 */
function zedDir(dirs: UserDirs): string {
  const { join } = pathFor(dirs.platform);
  if (dirs.platform === 'win32') return join(dirs.appData, 'Zed');
  // macOS too: Zed keeps its settings in ~/.config/zed there.
  return join(dirs.platform === 'darwin' ? join(dirs.home, '.config') : dirs.xdgConfigHome, 'zed');
}

export const zed = httpAdapter({
  id: 'zed',
  label: EDITOR_LABELS.zed,
  file: (dirs) => pathFor(dirs.platform).join(zedDir(dirs), 'settings.json'),
  detectPath: zedDir,
  serversKey: 'context_servers',
  jsonc: true,
  urlKey: 'url',
});
