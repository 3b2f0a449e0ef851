import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';
import { stringRecord } from './ownership.ts';
import { TOML_FORMAT } from './toml-format.ts';
import type { UserDirs } from './types.ts';

/**
 * Codex CLI: $CODEX_HOME/config.toml (default ~/.codex), TOML, `[mcp_servers.NAME]` with `url` and
 * `http_headers_helper`: a command Codex runs on each connection for its headers, which prints the
 * token from Switchboard's owner-only token file — so config.toml holds no token.
 */
function dir(dirs: UserDirs): string {
  return dirs.variable('CODEX_HOME') ?? pathFor(dirs.platform).join(dirs.home, '.codex');
}

export const codex = httpAdapter({
  id: 'codex',
  label: EDITOR_LABELS.codex,
  file: (dirs) => pathFor(dirs.platform).join(dir(dirs), 'config.toml'),
  detectPath: dir,
  serversKey: 'mcp_servers',
  jsonc: false,
  format: TOML_FORMAT,
  urlKey: 'url',
  auth: (ctx) => ({ http_headers_helper: ctx.headersHelper() }),
  // Codex's own keys, for import: static headers, and headers (or the bearer token) from variables.
  normalize(entry) {
    if (entry.http_headers_helper !== undefined)
      return {
        problem: 'its headers come from a command (http_headers_helper); add it by hand with a secret',
      };
    const headers: Record<string, unknown> = { ...(stringRecord(entry.http_headers) ?? {}) };
    for (const [name, variable] of Object.entries(stringRecord(entry.env_http_headers) ?? {}))
      headers[name] = `\${env:${variable}}`;
    if (typeof entry.bearer_token_env_var === 'string')
      headers.Authorization = `Bearer \${env:${entry.bearer_token_env_var}}`;
    return { entry: { ...entry, headers } };
  },
});
