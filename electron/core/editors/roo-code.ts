import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';
import type { UserDirs } from './types.ts';
import { vscodeUserDir } from './vscode.ts';

/**
 * Roo Code (VS Code extension): global MCP settings in the extension's storage,
 * `<VS Code user dir>/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json`,
 * `mcpServers.NAME = {"type": "streamable-http", "url", "headers"}`. Headers are literal: the token is
 * in the file. From Roo Code's documentation; not run here.
 */
function storage(dirs: UserDirs): string {
  return pathFor(dirs.platform).join(vscodeUserDir(dirs), 'globalStorage', 'rooveterinaryinc.roo-cline');
}

export const rooCode = httpAdapter({
  id: 'roo-code',
  label: EDITOR_LABELS['roo-code'],
  file: (dirs) => pathFor(dirs.platform).join(storage(dirs), 'settings', 'mcp_settings.json'),
  detectPath: storage,
  serversKey: 'mcpServers',
  jsonc: false,
  urlKey: 'url',
  extra: { type: 'streamable-http' },
});
