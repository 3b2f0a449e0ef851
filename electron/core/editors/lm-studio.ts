import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';

/**
 * LM Studio: ~/.lmstudio/mcp.json on every OS, in Cursor's notation: `mcpServers.NAME = {"url",
 * "headers"}`. Headers are literal: the token is in the file. From LM Studio's documentation; not run
 * here (a desktop app not on npm).
 */
export const lmStudio = httpAdapter({
  id: 'lm-studio',
  label: EDITOR_LABELS['lm-studio'],
  file: (dirs) => pathFor(dirs.platform).join(dirs.home, '.lmstudio', 'mcp.json'),
  detectPath: (dirs) => pathFor(dirs.platform).join(dirs.home, '.lmstudio'),
  serversKey: 'mcpServers',
  jsonc: false,
  urlKey: 'url',
});
