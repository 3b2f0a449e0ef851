import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';
import type { UserDirs } from './types.ts';

/**
 * Qwen Code: $QWEN_HOME/settings.json (default ~/.qwen), `mcpServers.NAME = {"httpUrl", "headers"}`
 * (Streamable HTTP; "url" means the older SSE transport there). Headers take only `$VAR`: the token
 * is in the file.
 */
function dir(dirs: UserDirs): string {
  return dirs.variable('QWEN_HOME') ?? pathFor(dirs.platform).join(dirs.home, '.qwen');
}

export const qwenCode = httpAdapter({
  id: 'qwen-code',
  label: EDITOR_LABELS['qwen-code'],
  file: (dirs) => pathFor(dirs.platform).join(dir(dirs), 'settings.json'),
  detectPath: dir,
  serversKey: 'mcpServers',
  // Qwen Code strips comments before parsing (as Gemini CLI, which it comes from).
  jsonc: true,
  urlKey: 'httpUrl',
  otherUrlKeys: ['url'],
});
