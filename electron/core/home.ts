import { homedir } from 'node:os';
import { appDataDir, pathFor, userDirs } from './user-dirs.ts';

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
  /** what can be made again (servers' lists, Node's compile cache): safe to delete */
  cache: string;
  /** each approved server's pinned tool list (pins/<name>.json) */
  pins: string;
}

export function resolveHome(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): HomePaths {
  const { join } = pathFor(platform);
  const root = env.SWITCHBOARD_HOME || defaultHome(env, platform);
  return {
    root,
    serversFile: join(root, 'servers.json'),
    stateFile: join(root, 'state.json'),
    tokens: join(root, 'tokens'),
    logs: join(root, 'logs'),
    backups: join(root, 'backups'),
    run: join(root, 'run'),
    cache: join(root, 'cache'),
    pins: join(root, 'pins'),
  };
}

function defaultHome(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  // Where the OS keeps app data (user-dirs.ts, the same rules as for editors' files); os.homedir()
  // only when the environment names no home at all.
  const dirs = userDirs(env.HOME || env.USERPROFILE ? env : { ...env, HOME: homedir() }, platform);
  const name = platform === 'darwin' || platform === 'win32' ? 'Switchboard' : 'switchboard';
  return pathFor(platform).join(appDataDir(dirs), name);
}
