import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';
import type { UserDirs } from './types.ts';

/**
 * GitHub Copilot CLI: $COPILOT_HOME/mcp-config.json (default ~/.copilot), `mcpServers.NAME =
 * {"type": "http", "url", "headers", "tools": ["*"]}` (without "tools" it offers none of the server's
 * tools). Its headers take only `${VAR}` from the environment, which an app started from the desktop
 * does not have: the token is in the file.
 */
function dir(dirs: UserDirs): string {
  return dirs.variable('COPILOT_HOME') ?? pathFor(dirs.platform).join(dirs.home, '.copilot');
}

export const copilotCli = httpAdapter({
  id: 'copilot-cli',
  label: EDITOR_LABELS['copilot-cli'],
  file: (dirs) => pathFor(dirs.platform).join(dir(dirs), 'mcp-config.json'),
  detectPath: dir,
  serversKey: 'mcpServers',
  jsonc: false,
  urlKey: 'url',
  extra: { type: 'http' },
  trailing: { tools: ['*'] },
});
