import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { EditorAdapter } from './types.ts';

/**
 * Is the editor running? For the "restart Claude Desktop" notice. Linux: the process table in /proc
 * (what `pgrep -f` reads), by program name; macOS: `pgrep -x`; Windows: `tasklist`. undefined when it
 * cannot be told.
 */
export async function isEditorRunning(
  adapter: EditorAdapter,
  platform: NodeJS.Platform = process.platform,
): Promise<boolean | undefined> {
  const names = adapter.processNames;
  if (!names) return undefined;
  try {
    if (platform === 'linux') return linuxRunning(names.linux);
    if (platform === 'darwin') {
      for (const name of names.darwin) if ((await run('pgrep', ['-x', name])).code === 0) return true;
      return false;
    }
    if (platform === 'win32') {
      for (const name of names.win32) {
        const { stdout } = await run('tasklist', ['/FI', `IMAGENAME eq ${name}`, '/NH']);
        if (stdout.toLowerCase().includes(name.toLowerCase())) return true;
      }
      return false;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** A process whose program (argv[0] or /proc/<pid>/comm) has one of these names. */
function linuxRunning(names: string[]): boolean | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return undefined;
  }
  const wanted = new Set(names);
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (wanted.has(comm)) return true;
      const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
      if (argv0 && wanted.has(basename(argv0))) return true;
    } catch {
      // the process ended meanwhile, or is not ours to read
    }
  }
  return false;
}

function run(command: string, args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 5_000, windowsHide: true }, (err, stdout) => {
      if (err && typeof (err as NodeJS.ErrnoException).code === 'string') return reject(err); // not found
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout) });
    });
  });
}
