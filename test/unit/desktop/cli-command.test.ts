import { describe, expect, it } from 'vitest';
import {
  cliInstalledMessage,
  cliMenuLabel,
  desktopCliTarget,
} from '../../../electron/desktop/cli-command.ts';
import { buildTrayMenu } from '../../../electron/desktop/tray-menu.ts';

// The desktop app's offer of a `switchboard` command on PATH (issue 24 item 17), as editors offer
// theirs. The shell wires these into the tray menu (electron/shell/main.ts, type-checked only).

describe('the switchboard command of the desktop app', () => {
  it('runs the app binary as Node on the CLI bundle inside the app', () => {
    expect(
      desktopCliTarget({
        execPath: '/Applications/Switchboard.app/Contents/MacOS/Switchboard',
        appPath: '/Applications/Switchboard.app/Contents/Resources/app.asar',
        platform: 'darwin',
      }),
    ).toEqual({
      command: '/Applications/Switchboard.app/Contents/MacOS/Switchboard',
      args: ['/Applications/Switchboard.app/Contents/Resources/app.asar/.vite/cli/main.cjs'],
      env: { ELECTRON_RUN_AS_NODE: '1' },
    });
    expect(
      desktopCliTarget({
        execPath: 'C:\\Users\\me\\AppData\\Local\\switchboard\\app-0.1.0\\switchboard.exe',
        appPath: 'C:\\Users\\me\\AppData\\Local\\switchboard\\app-0.1.0\\resources\\app.asar',
        platform: 'win32',
      }).args,
    ).toEqual([
      'C:\\Users\\me\\AppData\\Local\\switchboard\\app-0.1.0\\resources\\app.asar\\.vite\\cli\\main.cjs',
    ]);
  });

  it('is offered when missing or running another copy, not when current or when the name is taken', () => {
    expect(cliMenuLabel('absent')).toBe('Install the switchboard command…');
    expect(cliMenuLabel('other-target')).toBe('Update the switchboard command…');
    expect(cliMenuLabel('current')).toBeUndefined();
    expect(cliMenuLabel('foreign')).toBeUndefined();
  });

  it('sits in the tray menu beside Sync editors now, and its click installs it', () => {
    const report = { live: true, configError: null, servers: [] };
    const offered = buildTrayMenu(report, {
      startAtLogin: false,
      loginItemSupported: false,
      cliCommand: cliMenuLabel('absent'),
    });
    const labels = offered.map((i) => i.label);
    expect(labels.indexOf('Install the switchboard command…')).toBe(labels.indexOf('Sync editors now') + 1);
    expect(offered.find((i) => i.label === 'Install the switchboard command…')?.action).toEqual({
      type: 'install-cli',
    });
    const installed = buildTrayMenu(report, {
      startAtLogin: false,
      loginItemSupported: false,
      cliCommand: cliMenuLabel('current'),
    });
    expect(installed.some((i) => i.action?.type === 'install-cli')).toBe(false);
  });

  it('says where it went, and how to put its folder on PATH when it is not', () => {
    const place = { dir: '/home/me/.local/bin', file: '/home/me/.local/bin/switchboard' };
    expect(cliInstalledMessage(place, true, 'linux')).toBe(
      'Installed /home/me/.local/bin/switchboard: run `switchboard help` in a terminal.',
    );
    expect(cliInstalledMessage(place, false, 'linux')).toContain('export PATH="/home/me/.local/bin:$PATH"');
  });
});
