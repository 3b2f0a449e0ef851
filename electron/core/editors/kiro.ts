import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';

/**
 * Kiro (IDE and CLI; the CLI is what Amazon Q Developer CLI became): ~/.kiro/settings/mcp.json on
 * every OS, `mcpServers.NAME = {"url", "headers"}`. Kiro expands `${VAR}` only for variables the user
 * approved in its settings, which a desktop app cannot rely on: the token is in the file. From Kiro's
 * documentation; not run here.
 */
export const kiro = httpAdapter({
  id: 'kiro',
  label: EDITOR_LABELS.kiro,
  file: (dirs) => pathFor(dirs.platform).join(dirs.home, '.kiro', 'settings', 'mcp.json'),
  detectPath: (dirs) => pathFor(dirs.platform).join(dirs.home, '.kiro'),
  serversKey: 'mcpServers',
  jsonc: false,
  urlKey: 'url',
});
