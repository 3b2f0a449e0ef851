import { httpAdapter } from './http-adapter.ts';
import { appDataDir, pathFor } from '../user-dirs.mjs';
import type { UserDirs } from './types.ts';
import { EDITOR_LABELS } from '../../../shared/editors.ts';

/** VS Code: the user profile's mcp.json (JSONC), `servers.<name> = {"type": "http", "url", "headers"}`. */
export function vscodeUserDir(dirs: UserDirs): string {
  return pathFor(dirs.platform).join(appDataDir(dirs), 'Code', 'User');
}

export const vscode = httpAdapter({
  id: 'vscode',
  label: EDITOR_LABELS.vscode,
  file: (dirs) => pathFor(dirs.platform).join(vscodeUserDir(dirs), 'mcp.json'),
  detectPath: vscodeUserDir,
  serversKey: 'servers',
  jsonc: true,
  urlKey: 'url',
  extra: { type: 'http' },
});
