import { posix, win32 } from 'node:path';
import { homeIsDefault } from '../core/editors/relay-command.ts';
import type { RelayCommand } from '../core/editors/types.ts';
import type { HomePaths } from '../core/home.ts';

/** The built relay inside the app (electron/shell/vite.relay.config.ts writes it; forge.config.ts unpacks it). */
export const RELAY_BUNDLE = ['.vite', 'relay', 'main.mjs'] as const;

/**
 * How Claude Desktop starts the stdio relay of the desktop app: the app binary itself as Node
 * (ELECTRON_RUN_AS_NODE=1; the RunAsNode fuse stays on for this) running the built relay. Packaged,
 * the relay is read from app.asar.unpacked: a plain file on disk, so nothing depends on Electron's
 * asar support in Node mode. From `electron-forge start` the app path is the project folder.
 * SWITCHBOARD_HOME is added only when this home is not the one the relay finds by itself.
 */
export function desktopRelayCommand(options: {
  /** process.execPath: the app binary */
  execPath: string;
  /** app.getAppPath(): …/resources/app.asar when packaged */
  appPath: string;
  home: HomePaths;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
}): RelayCommand {
  const path = options.platform === 'win32' ? win32 : posix;
  const appDir = /\.asar$/i.test(options.appPath) ? `${options.appPath}.unpacked` : options.appPath;
  const env: Record<string, string> = { ELECTRON_RUN_AS_NODE: '1' };
  if (!homeIsDefault(options.home, options.env, options.platform)) env.SWITCHBOARD_HOME = options.home.root;
  return { command: options.execPath, args: [path.join(appDir, ...RELAY_BUNDLE)], env };
}
