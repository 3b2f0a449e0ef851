// The desktop app as Forge packages it, short of Electron itself: the main, preload, relay and
// renderer bundles are built by Forge's own Vite worker with forge.config.ts (build/verify-bundles.ts),
// then packaged by @electron/packager with the project's packagerConfig on a stand-in Electron zip
// (build/verify-package.ts), and the parts Node can run are run from the package. The main bundle is
// loaded from the extracted app.asar with a stand-in `electron` module (no Electron binary can run
// here): it must load, require nothing that is not packaged, and register its listeners
// synchronously. The relay runs from app.asar.unpacked, where the app points Claude Desktop, minus
// ELECTRON_RUN_AS_NODE: a plain Node process on the built file.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractAll, listPackage } from '@electron/asar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUNDLES,
  buildLikeForge,
  bundleProblems,
  bundleRunProblems,
  CHILD_BUNDLES,
  PROJECT_DIR,
} from '../../../build/verify-bundles.ts';
import { packageWithStandInElectron } from '../../../build/verify-package.ts';
import { resolveHome } from '../../../electron/core/home.ts';
import { desktopCliTarget } from '../../../electron/desktop/cli-command.ts';
import { desktopRelayCommand } from '../../../electron/desktop/relay-command.ts';

const viteDir = join(PROJECT_DIR, '.vite');
const hadVite = existsSync(viteDir);
let scratch: string;
/** resources/ of the packaged app */
let resources: string;
/** app.asar, extracted (unpacked files included) */
let app: string;

/** Stands in for Electron's module: records what the main process does while it loads. */
const FAKE_ELECTRON = `
const calls = [];
const record = (call) => calls.push(call);
const app = {
  isPackaged: true,
  dock: undefined,
  on(event) { record('app.on ' + event); return app; },
  requestSingleInstanceLock() { record('requestSingleInstanceLock'); return true; },
  setAsDefaultProtocolClient(scheme) { record('setAsDefaultProtocolClient ' + scheme); return true; },
  whenReady() { record('whenReady'); return new Promise(() => {}); },
  getAppPath() { return process.cwd(); },
  getLoginItemSettings() { return { openAtLogin: false }; },
  setLoginItemSettings() {},
  quit() { record('quit'); },
  exit() { record('exit'); },
  relaunch(options) { record('relaunch ' + options.args.join(' ')); },
  // FAKE_JS_FLAGS: the --js-flags the app was started with
  commandLine: {
    getSwitchValue(name) { return name === 'js-flags' ? process.env.FAKE_JS_FLAGS ?? '' : ''; },
    hasSwitch(name) { return name === 'js-flags' && Boolean(process.env.FAKE_JS_FLAGS); },
    appendSwitch(name, value) { record('appendSwitch ' + name + ' ' + value); },
  },
};
const protocol = {
  registerSchemesAsPrivileged(schemes) { record('registerSchemesAsPrivileged ' + schemes.map((s) => s.scheme)); },
  handle() {},
};
class Stub {}
module.exports = {
  app, protocol, BaseWindow: Stub, BrowserWindow: Stub, Notification: Stub, Tray: Stub,
  ipcMain: {}, Menu: {}, nativeImage: {}, powerMonitor: {}, shell: {},
};
process.on('exit', () => process.stdout.write(JSON.stringify(calls)));
`;

beforeAll(async () => {
  await buildLikeForge();
  scratch = mkdtempSync(join(tmpdir(), 'sb-packaged-'));
  resources = join(await packageWithStandInElectron(join(scratch, 'out')), 'resources');
  app = join(scratch, 'app');
  extractAll(join(resources, 'app.asar'), app);
  mkdirSync(join(app, 'node_modules', 'electron'), { recursive: true });
  writeFileSync(join(app, 'node_modules', 'electron', 'index.js'), FAKE_ELECTRON);
}, 300_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  // Leave the checkout as it was (.vite/ is Forge's build folder, not ours to keep).
  if (!hadVite) rmSync(viteDir, { recursive: true, force: true });
});

describe('the desktop bundles Forge builds', () => {
  it('are all there, stand alone, and inline no script or source path', () => {
    expect(bundleProblems()).toEqual([]);
  });

  it('the child scripts are packaged, and run from the package: the npm batch child answers, serve finds the keychain child', async () => {
    for (const child of Object.values(CHILD_BUNDLES)) expect(existsSync(join(app, child))).toBe(true);
    expect(await bundleRunProblems(app)).toEqual([]);
  }, 60_000);

  it('package only .vite/, package.json and the native keychain module, its binary unpacked', () => {
    // Files only: the packager keeps (empty) folders for every production dependency.
    const files = listPackage(join(resources, 'app.asar'), { isPack: false })
      .map((f) => f.replaceAll('\\', '/'))
      .filter((f) => existsSync(join(app, f)) && !readdirSafe(join(app, f)));
    const outside = files.filter(
      (f) => !/^\/(\.vite\/|package\.json$|node_modules\/@napi-rs\/keyring(-[a-z0-9-]+)?\/)/.test(f),
    );
    expect(outside).toEqual([]);
    expect(files).toContain(`/${BUNDLES.main}`);
    expect(files).toContain('/node_modules/@napi-rs/keyring/index.js');
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { main: string };
    expect(pkg.main).toBe(BUNDLES.main);
    // Native code loads from disk: Electron redirects require() of an unpacked .node file.
    const unpacked = join(resources, 'app.asar.unpacked', 'node_modules', '@napi-rs');
    const platform = readdirSync(unpacked).find((m) => m.startsWith('keyring-'));
    expect(platform).toBeDefined();
    expect(readdirSync(join(unpacked, platform ?? '')).some((f) => f.endsWith('.node'))).toBe(true);
  });

  const startMain = (env: Record<string, string>) =>
    spawnSync(process.execPath, [join(app, BUNDLES.main)], {
      cwd: app,
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, SWITCHBOARD_HOME: join(app, 'home'), ...env },
    });

  it.runIf(process.platform !== 'darwin')(
    "started without serve's V8 flags, main starts itself again with them before anything else",
    () => {
      const result = startMain({});
      expect(result.stderr).toBe('');
      const calls = JSON.parse(result.stdout) as string[];
      expect(calls).toContainEqual(
        expect.stringMatching(/^relaunch .*--js-flags=--max-semi-space-size=2 --expose-gc --max-opt=2$/),
      );
      expect(calls).toContain('exit');
      expect(calls).not.toContain('requestSingleInstanceLock');
    },
  );

  it('main loads from the package with nothing missing and listens for links before ready', () => {
    // as relaunched: with serve's V8 flags
    const result = startMain({ FAKE_JS_FLAGS: '--max-semi-space-size=2 --expose-gc --max-opt=2' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const calls = JSON.parse(result.stdout) as string[];
    expect(calls).toContain('registerSchemesAsPrivileged app');
    expect(calls).toContain('setAsDefaultProtocolClient switchboard');
    // macOS delivers a launching link as open-url before ready: the listener must exist by then.
    expect(calls.indexOf('app.on open-url')).toBeGreaterThanOrEqual(0);
    expect(calls.indexOf('app.on open-url')).toBeLessThan(calls.indexOf('whenReady'));
    expect(calls).toContain('app.on before-quit');
  });

  it('the relay runs on its own from where the app points Claude Desktop, and answers with what to do', () => {
    const env = { HOME: join(scratch, 'user') };
    const relay = desktopRelayCommand({
      execPath: join(resources, '..', 'switchboard'),
      appPath: join(resources, 'app.asar'),
      home: resolveHome(env, 'linux'),
      env,
      platform: 'linux',
    });
    expect(relay.args).toEqual([join(resources, 'app.asar.unpacked', BUNDLES.relay)]);
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    };
    const result = spawnSync(
      process.execPath,
      [...relay.args, '--server', 'github', '--editor', 'claude-desktop'],
      {
        cwd: tmpdir(),
        input: `${JSON.stringify(initialize)}\n`,
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, ...relay.env, SWITCHBOARD_HOME: join(scratch, 'home') },
      },
    );
    expect(result.status).toBe(0);
    const answer = JSON.parse(result.stdout.trim()) as { id: number; error?: { message: string } };
    expect(answer.id).toBe(1);
    expect(answer.error?.message).toContain('no Switchboard token for "claude-desktop"');
  });

  it('the switchboard command the app installs runs the packaged CLI (issue 24 item 17)', () => {
    const target = desktopCliTarget({
      execPath: join(resources, '..', 'switchboard'),
      appPath: join(resources, 'app.asar'),
      platform: 'linux',
    });
    expect(target.args).toEqual([join(resources, 'app.asar', BUNDLES.cli)]);
    expect(target.env).toEqual({ ELECTRON_RUN_AS_NODE: '1' });
    // Plain Node on the extracted app stands in for the app binary as Node (no Electron runs here).
    const run = (args: string[]) =>
      spawnSync(process.execPath, [join(app, BUNDLES.cli), ...args], {
        cwd: tmpdir(),
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, SWITCHBOARD_HOME: join(scratch, 'cli-home') },
      });
    const version = run(['--version']);
    expect(version.stderr).toBe('');
    expect(version.stdout).toMatch(/^switchboard \d+\.\d+\.\d+\n$/);
    const status = run(['status']);
    expect(status.status).toBe(0);
    expect(status.stdout).toContain('Switchboard is not running');
    expect(run(['help', 'sync']).stdout).toMatch(/^usage: switchboard sync/);
  });

  it('the renderer is where the main process loads it from', () => {
    expect(existsSync(join(app, BUNDLES.renderer))).toBe(true);
    expect(readdirSync(join(app, '.vite', 'renderer', 'main_window', 'assets')).length).toBeGreaterThan(0);
  });
});

function readdirSafe(path: string): string[] | undefined {
  try {
    return readdirSync(path);
  } catch {
    return undefined;
  }
}
