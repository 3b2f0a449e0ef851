import { posix, win32 } from 'node:path';
import type { UserDirs } from './types.ts';

/** The user folders editors' files live under, from the environment and platform passed in. */
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
