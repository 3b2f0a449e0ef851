import { homeRoot } from './home-root.mjs';
import { pathFor } from './user-dirs.mjs';

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
  const root = homeRoot(env, platform);
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
