// @ts-check
// Plain JavaScript for the same reason as user-dirs.mjs: compile-cache.mjs needs it first.
import { homedir } from 'node:os';
import { appDataDir, pathFor, userDirs } from './user-dirs.mjs';

/**
 * The Switchboard home's folder: $SWITCHBOARD_HOME, else where the OS keeps app data (user-dirs.mjs,
 * the same rules as for editors' files); os.homedir() only when the environment names no home at all.
 * @param {NodeJS.ProcessEnv} [env]
 * @param {NodeJS.Platform} [platform]
 * @returns {string}
 */
export function homeRoot(env = process.env, platform = process.platform) {
  if (env.SWITCHBOARD_HOME) return env.SWITCHBOARD_HOME;
  const dirs = userDirs(env.HOME || env.USERPROFILE ? env : { ...env, HOME: homedir() }, platform);
  const name = platform === 'darwin' || platform === 'win32' ? 'Switchboard' : 'switchboard';
  return pathFor(platform).join(appDataDir(dirs), name);
}
