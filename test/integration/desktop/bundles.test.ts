// The desktop app as Forge would package it, short of Electron itself: the main, preload, relay and
// renderer bundles are built by Forge's own Vite worker with forge.config.ts (build/verify-bundles.ts),
// laid out as in the package (only what the packager keeps: .vite/, package.json and the keychain's
// native module), and then the parts that Node can run are run. The main bundle is loaded with a
// stand-in `electron` module (no Electron binary can run here): it must load, require nothing that is
// not packaged, and register its listeners synchronously. The relay runs as the app would run it,
// minus ELECTRON_RUN_AS_NODE: a plain Node process on the built file.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ignoredInPackage } from '../../../build/forge/packaged-files.ts';
import { BUNDLES, buildLikeForge, bundleProblems, PROJECT_DIR } from '../../../build/verify-bundles.ts';

const viteDir = join(PROJECT_DIR, '.vite');
const hadVite = existsSync(viteDir);
let app: string;

/** Copies what the packager would keep (ignoredInPackage) from the project into `to`. */
function copyPackaged(from: string, to: string, rel = ''): void {
  for (const entry of readdirSync(join(from, rel), { withFileTypes: true })) {
    const path = `${rel}/${entry.name}`;
    if (ignoredInPackage(path)) continue;
    if (entry.isDirectory()) {
      mkdirSync(join(to, path), { recursive: true });
      copyPackaged(from, to, path);
    } else cpSync(join(from, path), join(to, path));
  }
}

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
  app = mkdtempSync(join(tmpdir(), 'sb-packaged-'));
  copyPackaged(PROJECT_DIR, app);
  mkdirSync(join(app, 'node_modules', 'electron'), { recursive: true });
  writeFileSync(join(app, 'node_modules', 'electron', 'index.js'), FAKE_ELECTRON);
}, 300_000);

afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true });
  // Leave the checkout as it was (.vite/ is Forge's build folder, not ours to keep).
  if (!hadVite) rmSync(viteDir, { recursive: true, force: true });
});

describe('the desktop bundles Forge builds', () => {
  it('are all there, stand alone, and inline no script or source path', () => {
    expect(bundleProblems()).toEqual([]);
  });

  it('package only .vite/, package.json and the native keychain module', () => {
    const top = readdirSync(app).sort();
    expect(top).toEqual(['.vite', 'node_modules', 'package.json']);
    const modules = readdirSync(join(app, 'node_modules', '@napi-rs'));
    expect(modules).toContain('keyring');
    expect(modules.some((m) => m.startsWith('keyring-'))).toBe(true); // the platform's binary
  });

  it('main loads from the package with nothing missing and listens for links before ready', () => {
    const result = spawnSync(process.execPath, [join(app, BUNDLES.main)], {
      cwd: app,
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, SWITCHBOARD_HOME: join(app, 'home') },
    });
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

  it('the relay runs on its own and answers with what to do', () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    };
    const result = spawnSync(
      process.execPath,
      [join(app, BUNDLES.relay), '--server', 'github', '--editor', 'claude-desktop'],
      {
        cwd: tmpdir(),
        input: `${JSON.stringify(initialize)}\n`,
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, SWITCHBOARD_HOME: join(app, 'home') },
      },
    );
    expect(result.status).toBe(0);
    const answer = JSON.parse(result.stdout.trim()) as { id: number; error?: { message: string } };
    expect(answer.id).toBe(1);
    expect(answer.error?.message).toContain('no Switchboard token for "claude-desktop"');
  });

  it('the renderer is where the main process loads it from', () => {
    expect(existsSync(join(app, BUNDLES.renderer))).toBe(true);
    expect(readdirSync(join(app, '.vite', 'renderer', 'main_window', 'assets')).length).toBeGreaterThan(0);
  });
});
