import { posix, win32 } from 'node:path';
import type { LauncherPlace, LauncherState, LauncherTarget } from '../core/cli-launcher.ts';

/** The CLI bundle inside the app (electron/shell/vite.cli.config.ts writes it). */
export const CLI_BUNDLE = ['.vite', 'cli', 'main.cjs'] as const;

/**
 * What the desktop app's `switchboard` command runs: the app binary itself as Node
 * (ELECTRON_RUN_AS_NODE=1, the fuse the stdio relay keeps on) on the CLI bundle in the app, as
 * VS Code's `code` command does. No Node needs to be installed for it.
 */
export function desktopCliTarget(options: {
  /** process.execPath: the app binary */
  execPath: string;
  /** app.getAppPath(): …/resources/app.asar when packaged */
  appPath: string;
  platform: NodeJS.Platform;
}): LauncherTarget {
  const path = options.platform === 'win32' ? win32 : posix;
  return {
    command: options.execPath,
    args: [path.join(options.appPath, ...CLI_BUNDLE)],
    env: { ELECTRON_RUN_AS_NODE: '1' },
  };
}

/**
 * The tray menu's offer, as editors offer their own command: to install it when there is none, to
 * update it when it runs another copy of Switchboard (the app moved, or a source checkout's), nothing
 * when it is this app's or when a `switchboard` of something else has the place (never replaced).
 */
export function cliMenuLabel(state: LauncherState): string | undefined {
  switch (state) {
    case 'absent':
      return 'Install the switchboard command…';
    case 'other-target':
      return 'Update the switchboard command…';
    case 'current':
    case 'foreign':
      return undefined;
  }
}

/** What the notification says once the command is installed: where, and how to reach it if not on PATH. */
export function cliInstalledMessage(
  place: LauncherPlace,
  onPath: boolean,
  platform: NodeJS.Platform,
): string {
  const where = `Installed ${place.file}: run \`switchboard help\` in a terminal.`;
  if (onPath) return where;
  return platform === 'win32'
    ? `${where} Its folder is not on your PATH yet: add ${place.dir} to PATH in Environment Variables.`
    : `${where} Its folder is not on your PATH yet: add \`export PATH="${place.dir}:$PATH"\` to your shell's profile.`;
}
