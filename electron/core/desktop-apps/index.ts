import { darwinApps } from './darwin.ts';
import { linuxApps } from './linux.ts';
import type { AppControl } from './types.ts';
import { win32Apps } from './win32.ts';

export type { AppControl, AppProcess, DesktopApp, RestartResult } from './types.ts';
export { startedBefore } from './types.ts';

/** Restarting an app is offered on these; elsewhere Switchboard only says to quit and reopen it. */
export function canRestartApps(platform: NodeJS.Platform): boolean {
  return platform === 'linux' || platform === 'darwin' || platform === 'win32';
}

/**
 * How this OS lists and restarts desktop apps (undefined: it cannot here).
 * SWITCHBOARD_DESKTOP_APPS_UNDER (Linux) narrows it to apps whose executable lies in that folder:
 * tests run side by side with fake apps of the same name, and each must see only its own.
 */
export function appControlFor(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): AppControl | undefined {
  if (platform === 'linux') return linuxApps({ under: env.SWITCHBOARD_DESKTOP_APPS_UNDER || undefined });
  if (platform === 'darwin') return darwinApps();
  if (platform === 'win32') return win32Apps();
  return undefined;
}
