// Where the bridge listens for the stdio relay, and the relay's check that what listens there is
// Switchboard's: an owner-only Unix domain socket in the home's run/ folder on macOS and Linux, a named
// pipe on Windows. Unlike the TCP port, no other user can take this place while Switchboard is not
// running, so the relay never sends its token to a listener it cannot verify.
// The relay imports this file: node: modules and dependency-free files only (start-up budget, see
// electron/relay/main.mjs).
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidExists } from '../pid-exists.ts';

/** The socket's file name in the home's run/ folder (macOS, Linux). */
export const SOCKET_FILE = 'bridge.sock';

/** A Windows pipe name Switchboard makes: random per start, published in run/serve.json. */
export const PIPE_NAME_PATTERN = /^\\\\\.\\pipe\\switchboard-[0-9a-f]{32}$/;

/** The longest socket path the OS takes (sun_path holds 104 bytes on macOS, 108 on Linux, with a NUL). */
export function maxSocketPathBytes(platform: NodeJS.Platform = process.platform): number {
  return platform === 'linux' ? 107 : 103;
}

/** run/bridge.sock in the home, or why it cannot be a socket (a path too long for one). */
export function socketPathFor(
  runDir: string,
  platform: NodeJS.Platform = process.platform,
): { path: string; problem?: string } {
  const path = join(runDir, SOCKET_FILE);
  const max = maxSocketPathBytes(platform);
  if (Buffer.byteLength(path) <= max) return { path };
  return {
    path,
    problem: `${path} is longer than the ${max} bytes a socket path may have — set SWITCHBOARD_HOME to a shorter folder`,
  };
}

/**
 * Where to connect, or why not: `absent` — nothing there (Switchboard is not running); `untrusted` —
 * something is there that is not this user's Switchboard; `unusable` — no socket can be made there.
 */
export type LocalEndpoint =
  { ok: true; path: string } | { ok: false; reason: 'absent' | 'untrusted' | 'unusable'; problem: string };

/**
 * Where the relay can reach a running Switchboard of this home, checked before the token goes there:
 * on macOS and Linux, run/bridge.sock must be a socket (not a link) owned by this user — a socket file
 * belongs to whoever bound it, and only this user can create one in its owner-only run/ folder; on
 * Windows, the pipe a running Switchboard named in run/serve.json (a file in the user's own profile).
 */
export function findLocalEndpoint(
  runDir: string,
  options: { platform?: NodeJS.Platform; uid?: number } = {},
): LocalEndpoint {
  const platform = options.platform ?? process.platform;
  if (platform === 'win32') {
    let info: { socket?: unknown; pid?: unknown } | undefined;
    try {
      info = JSON.parse(readFileSync(join(runDir, 'serve.json'), 'utf8')) as typeof info;
    } catch {
      info = undefined;
    }
    if (
      typeof info?.socket === 'string' &&
      PIPE_NAME_PATTERN.test(info.socket) &&
      typeof info.pid === 'number' &&
      pidExists(info.pid)
    )
      return { ok: true, path: info.socket };
    return {
      ok: false,
      reason: 'absent',
      problem: `no running Switchboard is named in ${join(runDir, 'serve.json')}`,
    };
  }
  const { path, problem } = socketPathFor(runDir, platform);
  if (problem) return { ok: false, reason: 'unusable', problem };
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return { ok: false, reason: 'absent', problem: `nothing is listening at ${path}` };
  }
  const uid = options.uid ?? process.getuid?.();
  if (!stat.isSocket()) return { ok: false, reason: 'untrusted', problem: `${path} is not a socket` };
  if (uid !== undefined && stat.uid !== uid) {
    return { ok: false, reason: 'untrusted', problem: `${path} belongs to another user (uid ${stat.uid})` };
  }
  return { ok: true, path };
}
