// @ts-check
// Plain JavaScript, typed by JSDoc: the CLI and the relay load this before Node's compile cache is on
// (compile-cache.mjs needs the home), and a .ts file loaded then would pull in Node's TypeScript
// stripper, ~15 MB that stays for the life of the process (docs/performance.md).
import { posix, win32 } from 'node:path';

/**
 * @typedef {object} UserDirs
 * @property {NodeJS.Platform} platform
 * @property {string} home HOME (USERPROFILE on Windows)
 * @property {string} appData %APPDATA% on Windows (default <home>\AppData\Roaming)
 * @property {string} xdgConfigHome $XDG_CONFIG_HOME on Linux (default <home>/.config)
 * @property {string | undefined} claudeConfigDir $CLAUDE_CONFIG_DIR, where Claude Code keeps
 *   .claude.json instead of HOME when set
 * @property {(name: string) => string | undefined} variable A variable of the environment passed in,
 *   undefined when unset or empty: the folders several editors let people move ($CODEX_HOME,
 *   $COPILOT_HOME, $QWEN_HOME), read by their adapters.
 */

/**
 * The user folders that app data lives under (the Switchboard home, editors' files), from the
 * environment and platform passed in, so tests redirect everything with env vars. On Windows
 * USERPROFILE comes first: Git Bash and MSYS set HOME to a folder of their own.
 * @param {NodeJS.ProcessEnv} env
 * @param {NodeJS.Platform} [platform]
 * @returns {UserDirs}
 */
export function userDirs(env, platform = process.platform) {
  const path = pathFor(platform);
  const home = (platform === 'win32' ? env.USERPROFILE || env.HOME : env.HOME || env.USERPROFILE) || '';
  if (!home) throw new Error('cannot locate editors: neither HOME nor USERPROFILE is set');
  return {
    platform,
    home,
    appData: env.APPDATA || path.join(home, 'AppData', 'Roaming'),
    xdgConfigHome: env.XDG_CONFIG_HOME || path.join(home, '.config'),
    claudeConfigDir: env.CLAUDE_CONFIG_DIR || undefined,
    variable: (name) => env[name] || undefined,
  };
}

/**
 * path.posix or path.win32, so a test can resolve Windows paths on Linux and the other way round.
 * @param {NodeJS.Platform} platform
 * @returns {typeof posix}
 */
export function pathFor(platform) {
  return platform === 'win32' ? win32 : posix;
}

/**
 * The per-user application-data folder Electron apps (Claude Desktop, VS Code) keep their settings in:
 * ~/Library/Application Support, %APPDATA%, $XDG_CONFIG_HOME.
 * @param {UserDirs} dirs
 * @returns {string}
 */
export function appDataDir(dirs) {
  const { join } = pathFor(dirs.platform);
  switch (dirs.platform) {
    case 'darwin':
      return join(dirs.home, 'Library', 'Application Support');
    case 'win32':
      return dirs.appData;
    default:
      return dirs.xdgConfigHome;
  }
}
