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
  /** what each approved server said at its approval — instructions, tools, prompts (pins/<name>.json) */
  pins: string;
  /** each server's own working and data folder (data/<name>/): where it runs and may write */
  data: string;
  /** pinned, verified packages and bundles that servers start from */
  store: string;
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
    data: join(root, 'data'),
    store: join(root, 'store'),
  };
}

/**
 * A server's own folder under `data/`: its working directory when servers.json gives no `cwd`, and
 * the one place its sandbox lets it write. Never the home itself (state.json, tokens/ live there).
 */
export function serverDataDir(
  home: Pick<HomePaths, 'data'>,
  name: string,
  platform: NodeJS.Platform = process.platform,
): string {
  return pathFor(platform).join(home.data, name);
}
