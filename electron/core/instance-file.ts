import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { InstanceInfoSchema, type InstanceInfo } from '../../shared/api.ts';
import { writeFileAtomic } from './fs/atomic-write.ts';
import type { HomePaths } from './home.ts';
import { pidExists } from './pid-exists.ts';

/**
 * run/serve.json: where the running `switchboard serve` of a home says its pid, port and relay socket.
 * `serve` writes it and removes it when it stops; the CLI (and benches) read it to talk to that
 * instance. A concept of both, so it lives below both.
 */
export function instanceFile(home: HomePaths): string {
  return join(home.run, 'serve.json');
}

/** Owner-only: it names the relay socket and the pid (issue 21 item 6). */
export function writeInstanceFile(home: HomePaths, info: InstanceInfo): void {
  writeFileAtomic(instanceFile(home), JSON.stringify(info) + '\n', { mode: 0o600 });
}

export function removeInstanceFile(home: HomePaths): void {
  rmSync(instanceFile(home), { force: true });
}

/**
 * The running `switchboard serve` for this home, if any: its run/serve.json names a live pid.
 * A stale file (the instance was killed) is removed.
 */
export function findInstance(home: HomePaths): InstanceInfo | undefined {
  let info: InstanceInfo;
  try {
    info = InstanceInfoSchema.parse(JSON.parse(readFileSync(instanceFile(home), 'utf8')));
  } catch {
    return undefined;
  }
  if (pidExists(info.pid)) return info;
  removeInstanceFile(home);
  return undefined;
}
