import { describe, expect, it } from 'vitest';
import { squirrelStartup, squirrelUpdateExe, windowsLoginItem } from '../../../electron/desktop/squirrel.ts';

const exe = 'C:\\Users\\me\\AppData\\Local\\switchboard\\app-0.1.0\\switchboard.exe';
const update = 'C:\\Users\\me\\AppData\\Local\\switchboard\\Update.exe';

describe('Squirrel install events (Windows)', () => {
  it('creates shortcuts and quits on install and update', () => {
    for (const event of ['--squirrel-install', '--squirrel-updated']) {
      expect(squirrelStartup([exe, event, '1.0.0'], 'win32', exe)).toEqual({
        kind: 'quit',
        update: { command: update, args: ['--createShortcut=switchboard.exe'] },
      });
    }
  });

  it('removes shortcuts and the login item and quits on uninstall', () => {
    expect(squirrelStartup([exe, '--squirrel-uninstall'], 'win32', exe)).toEqual({
      kind: 'quit',
      update: { command: update, args: ['--removeShortcut=switchboard.exe'] },
      removeLoginItem: true,
    });
  });

  it('just quits when obsolete', () => {
    expect(squirrelStartup([exe, '--squirrel-obsolete'], 'win32', exe)).toEqual({ kind: 'quit' });
  });

  it('starts normally otherwise, and on other systems', () => {
    expect(squirrelStartup([exe], 'win32', exe)).toEqual({ kind: 'none' });
    expect(squirrelStartup([exe, '--squirrel-firstrun'], 'win32', exe)).toEqual({ kind: 'none' });
    expect(squirrelStartup([exe, 'switchboard://open'], 'win32', exe)).toEqual({ kind: 'none' });
    expect(squirrelStartup(['/x', '--squirrel-install'], 'darwin', '/x')).toEqual({ kind: 'none' });
  });
});

describe('start at login on Windows', () => {
  it("starts Squirrel's stub launcher, which survives updates", () => {
    expect(squirrelUpdateExe(exe)).toBe(update);
    expect(windowsLoginItem(exe, true)).toEqual({
      path: 'C:\\Users\\me\\AppData\\Local\\switchboard\\switchboard.exe',
      args: ['--hidden'],
    });
  });

  it('starts the executable itself outside a Squirrel install', () => {
    expect(windowsLoginItem('D:\\Apps\\Switchboard\\switchboard.exe', false)).toEqual({
      path: 'D:\\Apps\\Switchboard\\switchboard.exe',
      args: ['--hidden'],
    });
  });
});
