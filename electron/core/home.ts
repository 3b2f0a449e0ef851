import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

/**
 * Where Switchboard keeps its files: $SWITCHBOARD_HOME, else the OS app-data folder.
 * Everything is derived from env and platform passed in, so tests redirect it with env vars.
 */
export interface HomePaths {
  root: string;
  serversFile: string;
  stateFile: string;
  tokens: string;
  logs: string;
  backups: string;
  run: string;
}

export function resolveHome(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): HomePaths {
  const { join } = platform === 'win32' ? win32 : posix;
  const root = env.SWITCHBOARD_HOME || defaultHome(env, platform);
  return {
    root,
    serversFile: join(root, 'servers.json'),
    stateFile: join(root, 'state.json'),
    tokens: join(root, 'tokens'),
    logs: join(root, 'logs'),
    backups: join(root, 'backups'),
    run: join(root, 'run'),
  };
}

function defaultHome(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  const { join } = platform === 'win32' ? win32 : posix;
  const home = env.HOME || env.USERPROFILE || homedir();
  switch (platform) {
    case 'darwin':
      return join(home, 'Library', 'Application Support', 'Switchboard');
    case 'win32':
      return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'Switchboard');
    default:
      return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'switchboard');
  }
}
