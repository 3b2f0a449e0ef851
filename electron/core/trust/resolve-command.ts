import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter as posixDelimiter, isAbsolute, posix, win32 } from 'node:path';

export interface CommandLookup {
  /** PATH to search (on macOS: the login shell's PATH, see supervisor/login-path.ts) */
  path: string | undefined;
  /** Windows executable extensions */
  pathExt?: string | undefined;
  /** where a relative command like ./bin/server is looked up */
  cwd: string;
  platform: NodeJS.Platform;
}

/**
 * The absolute path a command runs as, the way the OS would find it without a shell; undefined when
 * it is nowhere on PATH. The fingerprint uses this path, so an approval covers the program that
 * actually runs (a different `npx` earlier on PATH asks again).
 */
export function resolveCommand(command: string, lookup: CommandLookup): string | undefined {
  const path = lookup.platform === 'win32' ? win32 : posix;
  const extensions =
    lookup.platform === 'win32'
      ? ['', ...(lookup.pathExt ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)]
      : [''];
  const candidates = (base: string) => extensions.map((ext) => base + ext);

  if (command.includes('/') || (lookup.platform === 'win32' && command.includes('\\'))) {
    const base =
      isAbsolute(command) || path.isAbsolute(command) ? command : path.resolve(lookup.cwd, command);
    return candidates(base).find((c) => isExecutable(c, lookup.platform));
  }
  const separator = lookup.platform === 'win32' ? ';' : posixDelimiter;
  for (const dir of (lookup.path ?? '').split(separator)) {
    if (!dir) continue;
    const found = candidates(path.join(dir, command)).find((c) => isExecutable(c, lookup.platform));
    if (found) return found;
  }
  return undefined;
}

function isExecutable(file: string, platform: NodeJS.Platform): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    if (platform !== 'win32') accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The real file a found command is (every symlink on the way resolved): what the fingerprint pins,
 * so a symlink retargeted after approval asks again. The found path is still what gets spawned, since
 * some programs behave by the name they are started as (a Python venv's `bin/python` is a symlink).
 */
export function realCommand(found: string): string {
  try {
    return realpathSync.native(found);
  } catch {
    // Gone since it was found: the spawn will say so.
    return found;
  }
}
