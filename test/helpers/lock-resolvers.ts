import { readdirSync, readFileSync } from 'node:fs';

/** The processes directly under `parent` that resolve npm lockfiles, by their command lines. */
export interface LockResolvers {
  /** npm-batch-child.ts's children (serve's batch resolver) */
  batch: number[];
  /** npm's own `npm install --package-lock-only` processes (one per server) */
  npm: number[];
}

/** The lock resolvers running under `parent` now (Linux: read from /proc). */
export function lockResolvers(parent: number): LockResolvers {
  const found: LockResolvers = { batch: [], npm: [] };
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== parent || state === 'Z') continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes('npm-batch-child-main')) found.batch.push(Number(entry));
      else if (cmdline.includes('--package-lock-only')) found.npm.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * Every lock resolver seen under `parent` while `work` runs, looked for every 20 ms (each lives far
 * longer: npm takes ~0.5 s to start, and a batch child stays until its batch is answered).
 */
export async function watchLockResolvers<T>(
  parent: number,
  work: () => Promise<T>,
): Promise<{ value: T; batch: Set<number>; npm: Set<number> }> {
  const batch = new Set<number>();
  const npm = new Set<number>();
  const look = () => {
    const now = lockResolvers(parent);
    for (const pid of now.batch) batch.add(pid);
    for (const pid of now.npm) npm.add(pid);
  };
  const timer = setInterval(look, 20);
  try {
    const value = await work();
    look();
    return { value, batch, npm };
  } finally {
    clearInterval(timer);
  }
}
