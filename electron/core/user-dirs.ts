import { posix, win32 } from 'node:path';

export interface UserDirs {
  platform: NodeJS.Platform;
  /** HOME (USERPROFILE on Windows) */
  home: string;
  /** %APPDATA% on Windows (default <home>\AppData\Roaming) */
  appData: string;
  /** $XDG_CONFIG_HOME on Linux (default <home>/.config) */
  xdgConfigHome: string;
  /** $CLAUDE_CONFIG_DIR, where Claude Code keeps .claude.json instead of HOME when set */
  claudeConfigDir: string | undefined;
  /**
   * A variable of the environment passed in, undefined when unset or empty: the folders several
   * editors let people move ($CODEX_HOME, $COPILOT_HOME, $QWEN_HOME), read by their adapters.
   */
  variable(name: string): string | undefined;
}

/**
 * The user folders that app data lives under (the Switchboard home, editors' files), from the
 * environment and platform passed in, so tests redirect everything with env vars. On Windows
 * USERPROFILE comes first: Git Bash and MSYS set HOME to a folder of their own.
 */
export function userDirs(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): UserDirs {
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

/** path.posix or path.win32, so a test can resolve Windows paths on Linux and the other way round. */
export function pathFor(platform: NodeJS.Platform): typeof posix {
  return platform === 'win32' ? win32 : posix;
}

/**
 * The per-user application-data folder Electron apps (Claude Desktop, VS Code) keep their settings in:
 * ~/Library/Application Support, %APPDATA%, $XDG_CONFIG_HOME.
 */
export function appDataDir(dirs: UserDirs): string {
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
