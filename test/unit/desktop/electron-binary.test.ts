import { describe, expect, it } from 'vitest';
import {
  electronMirror,
  findElectronBinary,
  forgeGuard,
  planLaunch,
  type BinaryFs,
} from '../../../electron/desktop/electron-binary.ts';

/** A file system holding exactly these files. */
function files(contents: Record<string, string>): BinaryFs {
  return {
    existsSync: (path) => path in contents,
    readFileSync: (path) => {
      const text = contents[path];
      if (text === undefined) throw new Error(`ENOENT: ${path}`);
      return text;
    },
  };
}

describe('finding the Electron binary without downloading it', () => {
  it('reads path.txt and finds the executable in dist/', () => {
    const fs = files({ '/e/path.txt': 'electron', '/e/dist/electron': '' });
    expect(findElectronBinary('/e', {}, fs)).toBe('/e/dist/electron');
  });

  it('finds the macOS app bundle path path.txt names', () => {
    const exe = 'Electron.app/Contents/MacOS/Electron';
    const fs = files({ '/e/path.txt': `${exe}\n`, [`/e/dist/${exe}`]: '' });
    expect(findElectronBinary('/e', {}, fs)).toBe(`/e/dist/${exe}`);
  });

  it('finds nothing when the download never happened (no path.txt) or dist/ is gone', () => {
    expect(findElectronBinary('/e', {}, files({}))).toBeUndefined();
    expect(findElectronBinary('/e', {}, files({ '/e/path.txt': 'electron' }))).toBeUndefined();
    expect(findElectronBinary(undefined, {}, files({}))).toBeUndefined();
  });

  it('honours ELECTRON_OVERRIDE_DIST_PATH like the electron package does', () => {
    const fs = files({ '/e/path.txt': 'electron', '/custom/electron': '', '/e/dist/electron': '' });
    expect(findElectronBinary('/e', { ELECTRON_OVERRIDE_DIST_PATH: '/custom' }, fs)).toBe('/custom/electron');
    expect(findElectronBinary('/e', { ELECTRON_OVERRIDE_DIST_PATH: '/empty' }, fs)).toBeUndefined();
  });
});

describe('npm start', () => {
  it('runs the desktop app where a binary exists', () => {
    const plan = planLaunch('/e/dist/electron', []);
    expect(plan).toMatchObject({ mode: 'desktop', binary: '/e/dist/electron' });
    expect(plan.message).toContain('/e/dist/electron');
  });

  it('runs headless mode, in one line saying why, where none exists', () => {
    const plan = planLaunch(undefined, []);
    expect(plan.mode).toBe('headless');
    expect(plan.message).toMatch(/No Electron binary.*headless mode, `switchboard serve`/);
    expect(plan.message).not.toContain('\n');
  });

  it('runs headless mode when asked, binary or not', () => {
    expect(planLaunch('/e/dist/electron', ['--headless']).mode).toBe('headless');
  });
});

describe('packaging guard', () => {
  const mirror = 'https://github.com/electron/electron/releases/';

  it('hands over to Forge with a binary installed or the releases reachable', () => {
    expect(forgeGuard('package', { binary: '/e/dist/electron', releasesReachable: false, mirror })).toEqual({
      run: true,
    });
    expect(forgeGuard('make', { binary: undefined, releasesReachable: true, mirror })).toEqual({ run: true });
  });

  it('explains, without a stack trace, when neither is the case', () => {
    const decision = forgeGuard('make', { binary: undefined, releasesReachable: false, mirror });
    expect(decision.run).toBe(false);
    if (decision.run) return;
    expect(decision.message).toContain('Cannot run "electron-forge make"');
    expect(decision.message).toContain(mirror);
    expect(decision.message).toContain('ELECTRON_MIRROR');
    expect(decision.message).toContain('npm run serve');
  });

  it('refuses commands Forge is not run for', () => {
    const decision = forgeGuard('import', { binary: '/e/dist/electron', releasesReachable: true, mirror });
    expect(decision).toMatchObject({ run: false });
  });

  it('asks the mirror set in the environment', () => {
    expect(electronMirror({})).toBe(mirror);
    expect(electronMirror({ ELECTRON_MIRROR: 'https://mirror.example/' })).toBe('https://mirror.example/');
    expect(electronMirror({ npm_config_electron_mirror: 'https://npm.example/' })).toBe(
      'https://npm.example/',
    );
  });
});
