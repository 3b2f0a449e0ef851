import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { resolveHome, type HomePaths } from '../home.ts';
import type { RelayCommand } from './types.ts';

/**
 * electron/relay/main.mjs, by absolute path, for Switchboard run from source (CLI, `serve`). Computed
 * when asked, and as a plain path: bundlers turn `new URL('…', import.meta.url)` into an inlined asset
 * (a data: URL), which made the bundled desktop app throw at load. The desktop app passes its own
 * command for the built relay instead (electron/desktop/relay-command.ts).
 */
export function relayScript(): string {
  return join(import.meta.dirname, '..', '..', 'relay', 'main.mjs');
}

/**
 * How Claude Desktop starts the relay from a source install (`serve`, the CLI): this Node running the
 * relay script. The desktop app passes its own (electron/desktop/relay-command.ts: the app binary as
 * Node, on the relay unpacked from the asar).
 */
export function defaultRelayCommand(
  home: HomePaths,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): RelayCommand {
  const relayEnv: Record<string, string> = {};
  if (!homeIsDefault(home, env, platform)) relayEnv.SWITCHBOARD_HOME = home.root;
  return { command: sourceNode(platform), args: [relayScript()], env: relayEnv };
}

/**
 * The Node that runs Switchboard's own scripts from a source install: the project's Node 24
 * (optionalDependencies node-<os>-<cpu>, linked as node_modules/.bin/node), which is what `npx
 * switchboard` runs on, else this process's Node. Not simply process.execPath: `node bin.mjs` with
 * another Node (nvm's, the system's) and `npx switchboard serve` would write different relay commands
 * into Claude Desktop's file, and each would see the other's entry as changed and write it again.
 */
export function sourceNode(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return process.execPath; // .bin holds .cmd shims there, not the binary
  try {
    return realpathSync(join(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin', 'node'));
  } catch {
    return process.execPath;
  }
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
