import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE } from './servers.ts';

/** The user tests act as when they need "another user of this machine": nobody. */
export const OTHER_UID = 65534;

export interface OtherUserNode {
  /** a Node binary that user can run */
  node: string;
  cleanup(): void;
}

/**
 * A Node the other user (uid 65534) can run, or why there is none. The project's Node lives in the
 * clone's node_modules, which that user cannot reach when the clone is in a private folder (CI clones
 * into a 0700 temp folder; root's home is 0700): it is copied into a temp folder of its own, readable
 * by everyone. Undefined with the reason when even that cannot work (not root, or a temp folder that
 * user cannot reach); the caller skips and prints the reason.
 */
export function nodeForOtherUser(mustReach: readonly string[] = []): OtherUserNode | string {
  if (process.getuid?.() !== 0) return 'only root can run a process as another user';
  const dir = mkdtempSync(join(tmpdir(), 'sb-other-user-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    chmodSync(dir, 0o755);
    const node = join(dir, 'node');
    copyFileSync(NODE, node);
    chmodSync(node, 0o755);
    const check = spawnSync(
      node,
      [
        '-e',
        `for (const p of JSON.parse(process.argv[1])) require('node:fs').accessSync(p)`,
        JSON.stringify(mustReach),
      ],
      { uid: OTHER_UID, gid: OTHER_UID, encoding: 'utf8' },
    );
    if (check.error || check.status !== 0) {
      cleanup();
      const why =
        check.error?.message ??
        check.stderr
          .trim()
          .split('\n')
          .find((l) => l.includes('Error')) ??
        '';
      return `uid ${OTHER_UID} cannot run ${node} or reach ${[dir, ...mustReach].join(', ')} (${why}): the temp folder (${tmpdir()}) must be open to other users`;
    }
    return { node, cleanup };
  } catch (err) {
    cleanup();
    return `cannot give uid ${OTHER_UID} a Node to run: ${(err as Error).message}`;
  }
}
