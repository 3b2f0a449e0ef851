import { httpAdapter } from './http-adapter.ts';
import { pathFor } from '../user-dirs.mjs';
import { EDITOR_LABELS } from '../../../shared/editors.ts';

/** Cursor: ~/.cursor/mcp.json on every OS, `mcpServers.<name> = {"url", "headers"}`. */
export const cursor = httpAdapter({
  id: 'cursor',
  label: EDITOR_LABELS.cursor,
  file: (dirs) => pathFor(dirs.platform).join(dirs.home, '.cursor', 'mcp.json'),
  detectPath: (dirs) => pathFor(dirs.platform).join(dirs.home, '.cursor'),
  serversKey: 'mcpServers',
  jsonc: false,
  urlKey: 'url',
});
