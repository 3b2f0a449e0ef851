import { httpAdapter } from './http-adapter.ts';
import { appDataDir, pathFor } from '../user-dirs.ts';
import type { UserDirs } from './types.ts';

/** VS Code: the user profile's mcp.json (JSONC), `servers.<name> = {"type": "http", "url", "headers"}`. */
function userDir(dirs: UserDirs): string {
  return pathFor(dirs.platform).join(appDataDir(dirs), 'Code', 'User');
}

export const vscode = httpAdapter({
  id: 'vscode',
  label: 'VS Code',
  file: (dirs) => pathFor(dirs.platform).join(userDir(dirs), 'mcp.json'),
  detectPath: userDir,
  serversKey: 'servers',
  jsonc: true,
  urlKey: 'url',
  extra: { type: 'http' },
});
