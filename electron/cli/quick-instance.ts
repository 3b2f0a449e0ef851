import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTROL_TOKEN, readToken } from '../core/tokens/token-file.ts';
import { Http1Client } from '../core/bridge/http1-client.ts';
import type { HomePaths } from '../core/home.ts';
import { pidExists } from '../core/pid-exists.ts';

/**
 * A GET to the running `serve` of this home over its local socket (run/bridge.sock, or its named pipe
 * on Windows), for the commands that must answer at once from a `switchboard` on PATH (`status` in
 * ≤ 150 ms, docs/performance.md). It loads neither zod nor node:http nor fetch — ~60, ~40 and ~45 ms
 * of CPU at process start, most of what such a command costs: run/serve.json and the answer come from
 * the serve of this home, authenticated by its control token, and are read as its own output.
 *
 * Undefined whenever this way is not open (no instance, no socket, the instance gone or answering
 * anything but 200 with JSON): the caller then goes the usual way (InstanceClient, or the files),
 * which says what is wrong.
 */
export async function quickGet(home: HomePaths, path: string): Promise<unknown> {
  const socket = liveSocket(home);
  const token = socket === undefined ? undefined : readToken(home.tokens, CONTROL_TOKEN);
  if (socket === undefined || token === undefined) return undefined;
  const client = new Http1Client(socket);
  try {
    const res = await client.request('GET', path, { authorization: `Bearer ${token}` }, undefined, {
      keepAlive: false,
    });
    const chunks: Buffer[] = [];
    const whole = await res.read((chunk) => chunks.push(chunk));
    if (res.status !== 200 || !whole || !res.headers['content-type']?.startsWith('application/json'))
      return undefined;
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  } finally {
    client.close();
  }
}

/** The local socket of the instance run/serve.json names, if its process is alive. */
function liveSocket(home: HomePaths): string | undefined {
  let info: unknown;
  try {
    info = JSON.parse(readFileSync(join(home.run, 'serve.json'), 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof info !== 'object' || info === null) return undefined;
  const { pid, socket } = info as { pid?: unknown; socket?: unknown };
  if (typeof pid !== 'number' || typeof socket !== 'string') return undefined;
  return pidExists(pid) ? socket : undefined;
}
