import { httpAdapter } from './http-adapter.ts';
import { pathFor } from '../user-dirs.mjs';
import { EDITOR_LABELS } from '../../../shared/editors.ts';

/** Windsurf: ~/.codeium/windsurf/mcp_config.json, `mcpServers.<name> = {"serverUrl", "headers"}`. */
export const windsurf = httpAdapter({
  id: 'windsurf',
  label: EDITOR_LABELS.windsurf,
  file: (dirs) => pathFor(dirs.platform).join(dirs.home, '.codeium', 'windsurf', 'mcp_config.json'),
  detectPath: (dirs) => pathFor(dirs.platform).join(dirs.home, '.codeium', 'windsurf'),
  serversKey: 'mcpServers',
  jsonc: false,
  urlKey: 'serverUrl',
  otherUrlKeys: ['url'],
});
