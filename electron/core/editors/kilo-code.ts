import { existsSync } from 'node:fs';
import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';
import { OPENCODE_FORMAT } from './opencode.ts';
import type { UserDirs } from './types.ts';

/**
 * Kilo Code (the `kilo` CLI from `@kilocode/cli`): an opencode fork, with opencode's config under its
 * own name, ~/.config/kilo/kilo.jsonc (the file kilo creates; kilo.json when that is the one there).
 * The older, Roo-based extension's `globalStorage/kilocode.kilo-code/settings/mcp_settings.json` is
 * only read by kilo to migrate its servers, so it is not written. `mcp.NAME = {"type": "remote", "url", "headers"}`, the
 * Authorization header `Bearer {file:PATH}`, filled in by kilo from Switchboard's owner-only token
 * file: the file holds no token. Checked with the real `kilo` in test/clients.
 */
function dir(dirs: UserDirs): string {
  const { join } = pathFor(dirs.platform);
  return join(dirs.variable('XDG_CONFIG_HOME') ?? join(dirs.home, '.config'), 'kilo');
}

export const kiloCode = httpAdapter({
  id: 'kilo-code',
  label: EDITOR_LABELS['kilo-code'],
  file(dirs) {
    const { join } = pathFor(dirs.platform);
    const json = join(dir(dirs), 'kilo.json');
    const jsonc = join(dir(dirs), 'kilo.jsonc');
    const here = dirs.platform === process.platform;
    return here && existsSync(json) && !existsSync(jsonc) ? json : jsonc;
  },
  detectPath: dir,
  ...OPENCODE_FORMAT,
});
