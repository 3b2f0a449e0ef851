// `npm start` and `npm run package`/`make` on a machine without an Electron binary: one clear line
// (no download attempt, no stack trace). ELECTRON_OVERRIDE_DIST_PATH points the binary lookup at an
// empty folder and ELECTRON_MIRROR at a port nothing listens on, so the result is the same on every
// machine, including ones that do have Electron.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const empty = mkdtempSync(join(tmpdir(), 'sb-no-electron-'));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

function run(script: string, args: string[]) {
  const result = spawnSync(process.execPath, [script, ...args], {
    encoding: 'utf8',
    timeout: 30_000,
    env: {
      ...process.env,
      ELECTRON_OVERRIDE_DIST_PATH: empty,
      ELECTRON_MIRROR: 'http://127.0.0.1:9/',
      SWITCHBOARD_HOME: join(empty, 'home'),
      SWITCHBOARD_SKIP_UI_BUILD: '1',
    },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('without an Electron binary', () => {
  it('npm start says so in one line and runs headless mode, without trying to download Electron', () => {
    // An unknown option makes `serve` stop at once (exit 2) instead of serving.
    const { status, stdout, stderr } = run('electron/launch.mjs', ['--no-such-option']);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^No Electron binary is installed here .* running headless mode, `switchboard serve`/,
    );
    expect(stderr).toContain('switchboard serve');
    expect(status).toBe(2);
    expect(stdout + stderr).not.toMatch(/Downloading Electron|fetch failed/);
  });

  it.each(['package', 'make'])('npm run %s stops with an explanation, exit code 1', (command) => {
    const { status, stdout, stderr } = run('electron/shell/forge-guard.ts', [command]);
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(`Cannot run "electron-forge ${command}"`);
    expect(stderr).toContain('http://127.0.0.1:9/');
    expect(stderr).toContain('docs/packaging.md');
    expect(stderr).not.toMatch(/^\s+at /m); // no stack trace
  });
});
