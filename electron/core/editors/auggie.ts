import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';
import type { UserDirs } from './types.ts';

/**
 * Augment's Auggie CLI (`@augmentcode/auggie`): ~/.augment/settings.json (it also takes comments),
 * `mcpServers.NAME = {"type": "http", "url", "headers"}`, as `auggie mcp add NAME --transport http
 * --url URL --header "K: V"` writes it. Headers are literal: the token is in the file. Its prompts
 * need an Augment sign-in and Augment's servers, so it is not run against the bridge here.
 */
function dir(dirs: UserDirs): string {
  return pathFor(dirs.platform).join(dirs.home, '.augment');
}

export const auggie = httpAdapter({
  id: 'auggie',
  label: EDITOR_LABELS.auggie,
  file: (dirs) => pathFor(dirs.platform).join(dir(dirs), 'settings.json'),
  detectPath: dir,
  serversKey: 'mcpServers',
  jsonc: true,
  urlKey: 'url',
  extra: { type: 'http' },
});
