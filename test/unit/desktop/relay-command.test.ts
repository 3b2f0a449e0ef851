import { describe, expect, it } from 'vitest';
import { claudeDesktop } from '../../../electron/core/editors/claude-desktop.ts';
import { resolveHome } from '../../../electron/core/home.ts';
import { desktopRelayCommand } from '../../../electron/desktop/relay-command.ts';

const env = { HOME: '/Users/me' };
const home = resolveHome(env, 'darwin');

describe("the desktop app's relay command", () => {
  it('runs the app binary as Node on the relay unpacked next to app.asar', () => {
    const relay = desktopRelayCommand({
      execPath: '/Applications/Switchboard.app/Contents/MacOS/Switchboard',
      appPath: '/Applications/Switchboard.app/Contents/Resources/app.asar',
      home,
      env,
      platform: 'darwin',
    });
    expect(relay).toEqual({
      command: '/Applications/Switchboard.app/Contents/MacOS/Switchboard',
      args: ['/Applications/Switchboard.app/Contents/Resources/app.asar.unpacked/.vite/relay/main.mjs'],
      env: { ELECTRON_RUN_AS_NODE: '1' },
    });
  });

  it('uses Windows paths on Windows', () => {
    const winEnv = { USERPROFILE: 'C:\\Users\\me', APPDATA: 'C:\\Users\\me\\AppData\\Roaming' };
    const relay = desktopRelayCommand({
      execPath: 'C:\\Users\\me\\AppData\\Local\\switchboard\\app-0.1.0\\switchboard.exe',
      appPath: 'C:\\Users\\me\\AppData\\Local\\switchboard\\app-0.1.0\\resources\\app.asar',
      home: resolveHome(winEnv, 'win32'),
      env: winEnv,
      platform: 'win32',
    });
    expect(relay.args).toEqual([
      'C:\\Users\\me\\AppData\\Local\\switchboard\\app-0.1.0\\resources\\app.asar.unpacked\\.vite\\relay\\main.mjs',
    ]);
  });

  it('runs the relay Forge built into the project under `electron-forge start`', () => {
    const relay = desktopRelayCommand({
      execPath: '/src/node_modules/electron/dist/electron',
      appPath: '/src',
      home,
      env,
      platform: 'linux',
    });
    expect(relay.args).toEqual(['/src/.vite/relay/main.mjs']);
  });

  it('names the home only when the relay would not find it by itself', () => {
    const custom = resolveHome({ ...env, SWITCHBOARD_HOME: '/tmp/sb' }, 'darwin');
    const relay = desktopRelayCommand({
      execPath: '/x/Switchboard',
      appPath: '/x/app.asar',
      home: custom,
      env: { ...env, SWITCHBOARD_HOME: '/tmp/sb' },
      platform: 'darwin',
    });
    expect(relay.env).toEqual({ ELECTRON_RUN_AS_NODE: '1', SWITCHBOARD_HOME: '/tmp/sb' });
  });

  it("makes a Claude Desktop entry that editor sync recognises as this home's own", () => {
    const relay = desktopRelayCommand({
      execPath: '/x/S',
      appPath: '/x/app.asar',
      home,
      env,
      platform: 'darwin',
    });
    const entry = claudeDesktop.managedEntry({
      editor: 'claude-desktop',
      server: 'github',
      url: 'http://127.0.0.1:43117/mcp/github',
      token: () => 'unused',
      tokenFile: '/unused',
      headersHelper: () => 'unused',
      relay,
    });
    const ownership = {
      ports: new Set([43117]),
      homeRoot: home.root,
      homeIsDefault: true,
      written: undefined,
    };
    expect(claudeDesktop.pointsAtBridge(entry, ownership)).toBe(true);
  });
});
