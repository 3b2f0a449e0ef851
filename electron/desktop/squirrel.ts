import { win32 } from 'node:path';

export type SquirrelStartup =
  | { kind: 'none' }
  | {
      kind: 'quit';
      /** Update.exe to run first (shortcuts), detached; quit when it closes */
      update?: { command: string; args: string[] };
      /** uninstalling: also drop the login item */
      removeLoginItem?: boolean;
    };

/**
 * Windows installs and updates through Squirrel run the app with `--squirrel-install`,
 * `--squirrel-updated`, `--squirrel-uninstall` or `--squirrel-obsolete` as the first argument and
 * expect it to create or remove its shortcuts and quit at once, without starting (no tray, no
 * servers). The same steps as the electron-squirrel-startup package Forge's templates use.
 */
export function squirrelStartup(
  argv: readonly string[],
  platform: NodeJS.Platform,
  execPath: string,
): SquirrelStartup {
  if (platform !== 'win32') return { kind: 'none' };
  const updateExe = squirrelUpdateExe(execPath);
  const target = win32.basename(execPath);
  switch (argv[1]) {
    case '--squirrel-install':
    case '--squirrel-updated':
      return { kind: 'quit', update: { command: updateExe, args: [`--createShortcut=${target}`] } };
    case '--squirrel-uninstall':
      return {
        kind: 'quit',
        update: { command: updateExe, args: [`--removeShortcut=${target}`] },
        removeLoginItem: true,
      };
    case '--squirrel-obsolete':
      return { kind: 'quit' };
    default:
      return { kind: 'none' };
  }
}

/**
 * The login item on Windows. A Squirrel install lives in a versioned folder (app-0.1.0\) that an
 * update replaces, so the login item starts the stub launcher Squirrel keeps one folder up (same
 * executable name), which runs the current version, as Electron's docs advise; elsewhere the
 * executable itself. app.getLoginItemSettings needs the same path and args to report it.
 */
export function windowsLoginItem(
  execPath: string,
  squirrelInstalled: boolean,
): { path: string; args: string[] } {
  const path = squirrelInstalled
    ? win32.resolve(win32.dirname(execPath), '..', win32.basename(execPath))
    : execPath;
  return { path, args: ['--hidden'] };
}

/** Update.exe next to the versioned app folder: present when this is a Squirrel install. */
export function squirrelUpdateExe(execPath: string): string {
  return win32.resolve(win32.dirname(execPath), '..', 'Update.exe');
}
