import { chmodSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { UserError } from './errors.ts';
import { writeFileAtomic } from './fs/atomic-write.ts';
import { pathFor, userDirs } from './user-dirs.mjs';

/**
 * The `switchboard` command on PATH: a launcher script that runs Switchboard's CLI directly with the
 * right Node (a source install: the project's Node 24; the desktop app: its own binary as Node), as
 * editors install their own command (`code`, `cursor`). Through `npx` every command cost 1.4–1.75 s
 * (npm itself starts first, on the machine's Node, and warns about its engine); the launcher costs
 * what the command does (docs/performance.md). `switchboard install-cli` writes it for a source
 * install; the desktop app offers it in its tray menu.
 */

/** What the launcher runs: a program, its first arguments (before the person's), and env to set. */
export interface LauncherTarget {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** Where the launcher goes. */
export interface LauncherPlace {
  dir: string;
  file: string;
}

/** The line every launcher carries: a file without it is not Switchboard's, and is never replaced. */
export const LAUNCHER_MARK = 'switchboard launcher';

/**
 * ~/.local/bin/switchboard (or $XDG_BIN_HOME) on Linux and macOS: the user's own bin folder, writable
 * without admin rights, on PATH in most distributions' default profiles. On Windows
 * %LOCALAPPDATA%\Microsoft\WindowsApps\switchboard.cmd, a folder Windows puts on every user's PATH.
 */
export function launcherPlace(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): LauncherPlace {
  const path = pathFor(platform);
  const home = userDirs(env, platform).home;
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA || path.join(home, 'AppData', 'Local');
    const dir = path.join(local, 'Microsoft', 'WindowsApps');
    return { dir, file: path.join(dir, 'switchboard.cmd') };
  }
  const dir = env.XDG_BIN_HOME || path.join(home, '.local', 'bin');
  return { dir, file: path.join(dir, 'switchboard') };
}

/** The launcher's text: a POSIX shell script, or a .cmd file on Windows. */
export function launcherText(target: LauncherTarget, platform: NodeJS.Platform = process.platform): string {
  const words = [target.command, ...target.args];
  const env = Object.entries(target.env ?? {});
  if (platform === 'win32') {
    for (const word of [...words, ...env.flat()])
      if (/["%\r\n]/.test(word)) throw new Error(`cannot write a launcher for a path with " or %: ${word}`);
    return [
      '@echo off',
      `rem ${LAUNCHER_MARK}: written by Switchboard; it runs the Switchboard named below. Delete it to remove the command.`,
      'setlocal',
      ...env.map(([k, v]) => `set "${k}=${v}"`),
      `${words.map((w) => `"${w}"`).join(' ')} %*`,
      '',
    ].join('\r\n');
  }
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
  return [
    '#!/bin/sh',
    `# ${LAUNCHER_MARK}: written by Switchboard; it runs the Switchboard named below. Delete it to remove the command.`,
    ...env.map(([k, v]) => `export ${k}=${quote(v)}`),
    `exec ${words.map(quote).join(' ')} "$@"`,
    '',
  ].join('\n');
}

/** absent; ours and the same; ours but running another Switchboard (moved, another install); not ours. */
export type LauncherState = 'absent' | 'current' | 'other-target' | 'foreign';

export function launcherState(file: string, text: string): LauncherState {
  let existing: string;
  try {
    existing = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    return 'foreign';
  }
  if (existing === text) return 'current';
  return existing.includes(LAUNCHER_MARK) ? 'other-target' : 'foreign';
}

/**
 * Writes the launcher (executable, atomically). A file of that name that is not a Switchboard
 * launcher (a `switchboard` of something else) is left alone: an error says so.
 */
export function installLauncher(place: LauncherPlace, text: string): LauncherState {
  const before = launcherState(place.file, text);
  if (before === 'foreign')
    throw new UserError(`${place.file} exists and is not a Switchboard launcher: it was left alone`, {
      hint: 'remove or rename that file if you do not need it, then install again',
    });
  if (before === 'current') return before;
  mkdirSync(place.dir, { recursive: true });
  writeFileAtomic(place.file, text, { mode: 0o755 });
  chmodSync(place.file, 0o755);
  return before;
}

/** Removes the launcher if it is Switchboard's; true when it was there. */
export function removeLauncher(place: LauncherPlace): boolean {
  const state = launcherState(place.file, '');
  if (state === 'absent') return false;
  if (state === 'foreign')
    throw new UserError(`${place.file} is not a Switchboard launcher: it was left alone`);
  rmSync(place.file);
  return true;
}

/** Whether `dir` is one of PATH's folders (as the shell would look: exact entries). */
export function onPath(
  dir: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): boolean {
  const path = pathFor(platform);
  const list = (platform === 'win32' ? (env.Path ?? env.PATH) : env.PATH) ?? '';
  const norm = (p: string) => {
    const n = path.resolve(p);
    return platform === 'win32' ? n.toLowerCase() : n;
  };
  return list
    .split(path.delimiter)
    .filter(Boolean)
    .some((entry) => norm(entry) === norm(dir));
}
