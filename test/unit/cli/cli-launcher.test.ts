import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  installLauncher,
  launcherPlace,
  launcherState,
  launcherText,
  onPath,
  removeLauncher,
} from '../../../electron/core/cli-launcher.ts';

// The `switchboard` launcher on PATH (issue 24 item 17): where it goes, what it runs, and that it never
// replaces a file of someone else's.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-launcher-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the launcher', () => {
  it('goes to ~/.local/bin (or $XDG_BIN_HOME), and on Windows to WindowsApps', () => {
    expect(launcherPlace({ HOME: '/home/me' }, 'linux')).toEqual({
      dir: '/home/me/.local/bin',
      file: '/home/me/.local/bin/switchboard',
    });
    expect(launcherPlace({ HOME: '/Users/me', XDG_BIN_HOME: '/Users/me/bin' }, 'darwin').file).toBe(
      '/Users/me/bin/switchboard',
    );
    expect(
      launcherPlace({ USERPROFILE: 'C:\\Users\\me', LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local' }, 'win32'),
    ).toEqual({
      dir: 'C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps',
      file: 'C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps\\switchboard.cmd',
    });
  });

  it('runs its target with the person’s arguments passed on exactly, whatever the paths hold', () => {
    // A stand-in "node" that prints what it got, at a path with a space and a quote in it.
    const node = join(dir, "it's a node");
    writeFileSync(
      node,
      '#!/bin/sh\nfor a in "$@"; do printf "<%s>\\n" "$a"; done\nprintf "env=%s\\n" "$X"\n',
    );
    chmodSync(node, 0o755);
    const file = join(dir, 'switchboard');
    writeFileSync(
      file,
      launcherText({ command: node, args: ['--flag', '/a b/bin.mjs'], env: { X: "o'k" } }, 'linux'),
    );
    chmodSync(file, 0o755);
    const out = execFileSync(file, ['status', '--json', 'two words', '$HOME'], { encoding: 'utf8' });
    expect(out).toBe("<--flag>\n</a b/bin.mjs>\n<status>\n<--json>\n<two words>\n<$HOME>\nenv=o'k\n");
  });

  it('on Windows is a .cmd that passes the arguments on, and refuses paths cmd cannot quote', () => {
    const text = launcherText(
      {
        command: 'C:\\Program Files\\Switchboard\\switchboard.exe',
        args: ['C:\\app\\cli.mjs'],
        env: { ELECTRON_RUN_AS_NODE: '1' },
      },
      'win32',
    );
    expect(text).toContain('set "ELECTRON_RUN_AS_NODE=1"\r\n');
    expect(text).toContain('"C:\\Program Files\\Switchboard\\switchboard.exe" "C:\\app\\cli.mjs" %*\r\n');
    expect(() => launcherText({ command: 'C:\\100%\\node.exe', args: [] }, 'win32')).toThrow(
      /cannot write a launcher/,
    );
  });

  it('is written executable, updated when it runs another Switchboard, and never replaces a foreign file', () => {
    const place = { dir: join(dir, 'bin'), file: join(dir, 'bin', 'switchboard') };
    const a = launcherText({ command: '/a/node', args: ['/a/bin.mjs'] }, 'linux');
    const b = launcherText({ command: '/b/node', args: ['/b/bin.mjs'] }, 'linux');
    expect(installLauncher(place, a)).toBe('absent');
    expect(statSync(place.file).mode & 0o777).toBe(0o755);
    expect(installLauncher(place, a)).toBe('current');
    expect(launcherState(place.file, b)).toBe('other-target');
    expect(installLauncher(place, b)).toBe('other-target');
    expect(readFileSync(place.file, 'utf8')).toBe(b);
    writeFileSync(place.file, '#!/bin/sh\necho another switchboard\n');
    expect(() => installLauncher(place, a)).toThrow(/is not a Switchboard launcher: it was left alone/);
    expect(() => removeLauncher(place)).toThrow(/left alone/);
    expect(readFileSync(place.file, 'utf8')).toContain('another switchboard');
    writeFileSync(place.file, b);
    expect(removeLauncher(place)).toBe(true);
    expect(removeLauncher(place)).toBe(false);
  });

  it('knows whether its folder is on PATH', () => {
    expect(onPath('/home/me/.local/bin', { PATH: '/usr/bin:/home/me/.local/bin/' }, 'linux')).toBe(true);
    expect(onPath('/home/me/.local/bin', { PATH: '/usr/bin' }, 'linux')).toBe(false);
    expect(onPath('C:\\Users\\Me\\Apps', { Path: 'C:\\Windows;c:\\users\\me\\apps' }, 'win32')).toBe(true);
  });
});
