import { httpAdapter } from './http-adapter.ts';
import { pathFor } from '../user-dirs.mjs';
import type { UserDirs } from './types.ts';
import { EDITOR_LABELS } from '../../../shared/editors.ts';

/**
 * Claude Code: ~/.claude.json (or $CLAUDE_CONFIG_DIR/.claude.json). A large file Claude Code owns and
 * rewrites; only its top-level `mcpServers` (user scope) is touched, never the per-project ones. The
 * entry's `headersHelper` is a command Claude Code runs for its headers, which prints the token from
 * Switchboard's owner-only token file: .claude.json holds no token.
 */
function dir(dirs: UserDirs): string {
  return dirs.claudeConfigDir ?? dirs.home;
}

export const claudeCode = httpAdapter({
  id: 'claude-code',
  label: EDITOR_LABELS['claude-code'],
  file: (dirs) => pathFor(dirs.platform).join(dir(dirs), '.claude.json'),
  // Installed = it has written its file (a ~/.claude folder alone can belong to other tools).
  detectPath: (dirs) => pathFor(dirs.platform).join(dir(dirs), '.claude.json'),
  serversKey: 'mcpServers',
  jsonc: false,
  urlKey: 'url',
  extra: { type: 'http' },
  auth: (ctx) => ({ headersHelper: ctx.headersHelper() }),
});
