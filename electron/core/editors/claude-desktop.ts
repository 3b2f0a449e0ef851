import { JSON_FORMAT } from './file-format.ts';
import { foreignServer } from './http-adapter.ts';
import { isRecord, stringRecord } from './ownership.ts';
import { appDataDir, pathFor } from '../user-dirs.mjs';
import type { EditorAdapter, UserDirs } from './types.ts';
import { EDITOR_LABELS } from '../../../shared/editors.ts';

/**
 * Claude Desktop: claude_desktop_config.json (strict JSON), stdio servers only. Its managed entry runs
 * Switchboard's stdio relay (`<node> <relay> --server NAME --editor claude-desktop`), which reads the
 * editor's token from the Switchboard home when it starts: no token or secret is written here, only
 * SWITCHBOARD_HOME when the home is not the default one. Claude Desktop reads the file only at start.
 */
function dir(dirs: UserDirs): string {
  return pathFor(dirs.platform).join(appDataDir(dirs), 'Claude');
}

/** The relay's script: electron/relay/main.mjs from source (main.ts in older entries), .vite/relay/main.mjs packaged. */
const RELAY_SCRIPT = /[\\/]relay[\\/]main\.(ts|js|mjs|cjs)$/;

export const claudeDesktop: EditorAdapter = {
  id: 'claude-desktop',
  label: EDITOR_LABELS['claude-desktop'],
  file: (dirs) => pathFor(dirs.platform).join(dir(dirs), 'claude_desktop_config.json'),
  detectPath: dir,
  serversKey: 'mcpServers',
  format: JSON_FORMAT,
  // The relay reads the token from the Switchboard home when Claude Desktop starts it.
  tokenInFile: false,
  managedEntry: (ctx) => ({
    command: ctx.relay.command,
    args: [
      ...ctx.relay.args,
      ...(ctx.aggregate ? ['--all'] : ['--server', ctx.server]),
      '--editor',
      ctx.editor,
    ],
    ...(Object.keys(ctx.relay.env).length ? { env: { ...ctx.relay.env } } : {}),
  }),
  pointsAtBridge(entry, ownership) {
    if (!isRecord(entry) || typeof entry.command !== 'string' || !Array.isArray(entry.args)) return false;
    const args = entry.args;
    if (
      !args.some((a) => typeof a === 'string' && RELAY_SCRIPT.test(a)) ||
      !(args.includes('--server') || args.includes('--all'))
    )
      return false;
    // The relay of this home: the same SWITCHBOARD_HOME, or none when this home is the default one.
    const env = stringRecord(entry.env) ?? {};
    const home = env.SWITCHBOARD_HOME;
    return home === undefined ? ownership.homeIsDefault : home === ownership.homeRoot;
  },
  foreignServer: (entry) => foreignServer(entry, isRecord(entry) ? entry.url : undefined),
  restartNotice:
    'Claude Desktop reads its settings only when it starts: quit and reopen it to pick up the change.',
  // Linux: community builds (there is no official one) run as claude-desktop; AppImages as Claude.
  processNames: { linux: ['claude-desktop', 'Claude'], darwin: ['Claude'], win32: ['Claude.exe'] },
  macAppName: 'Claude',
};
