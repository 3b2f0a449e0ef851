import { httpAdapter } from './http-adapter.ts';
import { pathFor } from '../user-dirs.ts';

/** Cursor: ~/.cursor/mcp.json on every OS, `mcpServers.<name> = {"url", "headers"}`. */
export const cursor = httpAdapter({
  id: 'cursor',
  label: 'Cursor',
  file: (dirs) => pathFor(dirs.platform).join(dirs.home, '.cursor', 'mcp.json'),
  detectPath: (dirs) => pathFor(dirs.platform).join(dirs.home, '.cursor'),
  serversKey: 'mcpServers',
  jsonc: false,
  urlKey: 'url',
});
