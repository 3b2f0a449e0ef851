import { httpAdapter } from './http-adapter.ts';
import { pathFor } from '../user-dirs.ts';

/** Windsurf: ~/.codeium/windsurf/mcp_config.json, `mcpServers.<name> = {"serverUrl", "headers"}`. */
export const windsurf = httpAdapter({
  id: 'windsurf',
  label: 'Windsurf',
  file: (dirs) => pathFor(dirs.platform).join(dirs.home, '.codeium', 'windsurf', 'mcp_config.json'),
  detectPath: (dirs) => pathFor(dirs.platform).join(dirs.home, '.codeium', 'windsurf'),
  serversKey: 'mcpServers',
  jsonc: false,
  urlKey: 'serverUrl',
  otherUrlKeys: ['url'],
});
