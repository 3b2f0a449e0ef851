import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, statSync, unlinkSync } from 'node:fs';
import { connect, type Server } from 'node:net';
import { dirname } from 'node:path';
import { UserError } from '../errors.ts';

/** A pipe name for this start (Windows): random, so nobody can take it before Switchboard does. */
export function newPipeName(): string {
  return `\\\\.\\pipe\\switchboard-${randomBytes(16).toString('hex')}`;
}

/**
 * Starts `server` on the stdio relay's endpoint (local-endpoint.ts). On macOS and Linux: the folder is
 * made owner-only (0700) and must belong to this user, a socket left by a Switchboard that crashed is
 * removed (one that still answers is another running Switchboard: refused), and the socket is 0600.
 */
export async function listenLocal(
  server: Server,
  path: string,
  platform: NodeJS.Platform = process.platform,
): Promise<void> {
  if (platform !== 'win32') {
    const dir = dirname(path);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const uid = process.getuid?.();
    const owner = statSync(dir).uid;
    if (uid !== undefined && owner !== uid) {
      throw new UserError(`${dir} belongs to another user (uid ${owner})`, {
        hint: 'Switchboard keeps its socket there; use a home of your own (SWITCHBOARD_HOME)',
      });
    }
    chmodSync(dir, 0o700);
    await removeStale(path);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  if (platform !== 'win32') chmodSync(path, 0o600);
}

async function removeStale(path: string): Promise<void> {
  try {
    lstatSync(path);
  } catch {
    return;
  }
  if (await answers(path)) {
    throw new UserError(`another Switchboard is already listening at ${path}`, {
      hint: 'stop it first (switchboard status shows it)',
    });
  }
  unlinkSync(path);
}

function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ path });
    socket.setTimeout(1_000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
