import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';
import { isRecord } from './ownership.ts';
import type { UserDirs } from './types.ts';
import { yamlFormat } from './yaml-format.ts';

/**
 * Goose: config.yaml (YAML, comments kept) in ~/.config/goose ($XDG_CONFIG_HOME/goose on Linux;
 * %APPDATA%\Block\goose\config on Windows), `extensions.NAME = {enabled, type: streamable_http, name,
 * uri, headers, timeout}`. Headers are literal: the token is in the file. From Goose's documentation;
 * not run here (a Rust binary not on npm).
 */
function dir(dirs: UserDirs): string {
  const { join } = pathFor(dirs.platform);
  if (dirs.platform === 'win32') return join(dirs.appData, 'Block', 'goose', 'config');
  return join(dirs.platform === 'darwin' ? join(dirs.home, '.config') : dirs.xdgConfigHome, 'goose');
}

export const goose = httpAdapter({
  id: 'goose',
  label: EDITOR_LABELS.goose,
  file: (dirs) => pathFor(dirs.platform).join(dir(dirs), 'config.yaml'),
  detectPath: dir,
  serversKey: 'extensions',
  jsonc: false,
  format: yamlFormat({ collection: 'map' }),
  urlKey: 'uri',
  extra: { enabled: true, type: 'streamable_http' },
  nameKey: 'name',
  trailing: { timeout: 300 },
  normalize(entry) {
    if (entry.type === 'builtin' || entry.type === 'platform' || entry.type === 'frontend')
      return { problem: `a Goose ${String(entry.type)} extension, not an MCP server` };
    if (typeof entry.uri === 'string')
      return { entry: { url: entry.uri, headers: isRecord(entry.headers) ? entry.headers : {} } };
    return { entry: { command: entry.cmd, args: entry.args, env: entry.envs, cwd: entry.cwd } };
  },
});
