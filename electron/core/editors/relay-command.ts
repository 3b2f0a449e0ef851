import { fileURLToPath } from 'node:url';
import { resolveHome, type HomePaths } from '../home.ts';
import type { RelayCommand } from './types.ts';

/** electron/relay/main.ts, by absolute path. */
export const RELAY_SCRIPT = fileURLToPath(new URL('../../relay/main.ts', import.meta.url));

/**
 * How Claude Desktop starts the relay from this install: this Node (or, in the desktop app, the app
 * binary with ELECTRON_RUN_AS_NODE=1) running the relay script.
 */
export function defaultRelayCommand(
  home: HomePaths,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): RelayCommand {
  const relayEnv: Record<string, string> = {};
  if (process.versions.electron) relayEnv.ELECTRON_RUN_AS_NODE = '1';
  if (!homeIsDefault(home, env, platform)) relayEnv.SWITCHBOARD_HOME = home.root;
  return { command: process.execPath, args: [RELAY_SCRIPT], env: relayEnv };
}

/**
 * Is this the home the relay finds on its own? Claude Desktop starts it with the desktop session's
 * environment, which has HOME/APPDATA but not the variables a shell sets (SWITCHBOARD_HOME,
 * XDG_CONFIG_HOME), so only a home found from HOME/APPDATA alone counts as the default.
 */
export function homeIsDefault(
  home: HomePaths,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): boolean {
  const plain: NodeJS.ProcessEnv = {};
  for (const key of ['HOME', 'USERPROFILE', 'APPDATA'] as const) if (env[key]) plain[key] = env[key];
  return resolveHome(plain, platform).root === home.root;
}
