import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';
import type { UserDirs } from './types.ts';
import { vscodeUserDir } from './vscode.ts';

/**
 * Cline (VS Code extension): its global MCP settings live in the extension's storage,
 * `<VS Code user dir>/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json`,
 * `mcpServers.NAME = {"type": "streamableHttp", "url", "headers"}`. Headers are literal: the token is
 * in the file. From Cline's documentation and source; not run here (it needs VS Code with a model). Cline's CLI
 * reads another file: cline-cli.ts.
 */
function storage(dirs: UserDirs): string {
  return pathFor(dirs.platform).join(vscodeUserDir(dirs), 'globalStorage', 'saoudrizwan.claude-dev');
}

export const cline = httpAdapter({
  id: 'cline',
  label: EDITOR_LABELS.cline,
  file: (dirs) => pathFor(dirs.platform).join(storage(dirs), 'settings', 'cline_mcp_settings.json'),
  detectPath: storage,
  serversKey: 'mcpServers',
  jsonc: false,
  urlKey: 'url',
  extra: { type: 'streamableHttp' },
});
