import { httpAdapter } from './http-adapter.ts';
import { pathFor } from '../user-dirs.ts';
import { EDITOR_LABELS } from '../../../shared/editors.ts';

/** Gemini CLI: ~/.gemini/settings.json, `mcpServers.<name> = {"httpUrl", "headers"}` (Streamable HTTP). */
export const geminiCli = httpAdapter({
  id: 'gemini-cli',
  label: EDITOR_LABELS['gemini-cli'],
  file: (dirs) => pathFor(dirs.platform).join(dirs.home, '.gemini', 'settings.json'),
  detectPath: (dirs) => pathFor(dirs.platform).join(dirs.home, '.gemini'),
  serversKey: 'mcpServers',
  // Gemini CLI strips comments before parsing.
  jsonc: true,
  urlKey: 'httpUrl',
  otherUrlKeys: ['url'],
});
