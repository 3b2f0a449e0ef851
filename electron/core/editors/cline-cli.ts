import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';
import type { UserDirs } from './types.ts';

/**
 * Cline's CLI (`cline` on npm, and the hosts built on its core): `~/.cline/data/settings/
 * cline_mcp_settings.json` (`$CLINE_DIR` for ~/.cline, `$CLINE_DATA_DIR` for its data folder,
 * `$CLINE_MCP_SETTINGS_PATH` for the file itself), the same `mcpServers.NAME = {"type":
 * "streamableHttp", "url", "headers"}` as the VS Code extension's file. Strict JSON; headers are
 * literal: the token is in the file. From Cline's source (@cline/shared storage paths).
 */
function clineDir(dirs: UserDirs): string {
  return dirs.variable('CLINE_DIR') ?? pathFor(dirs.platform).join(dirs.home, '.cline');
}

export const clineCli = httpAdapter({
  id: 'cline-cli',
  label: EDITOR_LABELS['cline-cli'],
  file(dirs) {
    const { join } = pathFor(dirs.platform);
    const data = dirs.variable('CLINE_DATA_DIR') ?? join(clineDir(dirs), 'data');
    return dirs.variable('CLINE_MCP_SETTINGS_PATH') ?? join(data, 'settings', 'cline_mcp_settings.json');
  },
  detectPath: clineDir,
  serversKey: 'mcpServers',
  jsonc: false,
  urlKey: 'url',
  extra: { type: 'streamableHttp' },
});
