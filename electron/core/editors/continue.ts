import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';
import { isRecord } from './ownership.ts';
import { yamlFormat } from './yaml-format.ts';

/**
 * Continue: ~/.continue/config.yaml (YAML, comments kept), `mcpServers` a list of `{name, type:
 * streamable-http, url, requestOptions: {headers}}`. Its `${{ secrets.NAME }}` come from Continue's
 * own secrets or a .env file, another file the token would be in: the token is in config.yaml. From
 * Continue's documentation; checked with its CLI (`cn` from @continuedev/cli) in test/clients, which
 * reads the same file as the VS Code and JetBrains extensions.
 */
export const continueDev = httpAdapter({
  id: 'continue',
  label: EDITOR_LABELS.continue,
  file: (dirs) => pathFor(dirs.platform).join(dirs.home, '.continue', 'config.yaml'),
  detectPath: (dirs) => pathFor(dirs.platform).join(dirs.home, '.continue'),
  serversKey: 'mcpServers',
  jsonc: false,
  format: yamlFormat({ collection: 'list', nameKey: 'name' }),
  urlKey: 'url',
  nameKey: 'name',
  extra: { type: 'streamable-http' },
  auth: (ctx) => ({ requestOptions: { headers: { Authorization: `Bearer ${ctx.token()}` } } }),
  tokenInFile: true,
  normalize(entry) {
    if (typeof entry.url === 'string') {
      const options = isRecord(entry.requestOptions) ? entry.requestOptions : {};
      return { entry: { url: entry.url, headers: isRecord(options.headers) ? options.headers : {} } };
    }
    return { entry: { command: entry.command, args: entry.args, env: entry.env, cwd: entry.cwd } };
  },
});
