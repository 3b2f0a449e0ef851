import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DesiredServer } from '../../../electron/core/supervisor/types.ts';
import type { ServerState } from '../../../shared/status.ts';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

export function fixture(name: string): string {
  return join(FIXTURES, name);
}

/** dist/index.js of @modelcontextprotocol/server-everything, found through its package.json bin. */
export function everythingEntry(): string {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve('@modelcontextprotocol/server-everything/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { bin: Record<string, string> };
  const bin = pkg.bin['mcp-server-everything'];
  if (!bin) throw new Error('server-everything has no mcp-server-everything bin');
  return join(dirname(pkgPath), bin);
}

export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return { ...env, ...extra };
}

/** A desired server that runs `node <script> ...args`. */
export function nodeServer(
  name: string,
  script: string,
  args: string[] = [],
  options: { fingerprint?: string; env?: Record<string, string>; redact?: string[] } = {},
): DesiredServer {
  return {
    name,
    fingerprint: options.fingerprint ?? `fp-${name}`,
    transport: 'stdio',
    prepare: async () => ({
      transport: 'stdio',
      command: process.execPath,
      args: [script, ...args],
      cwd: undefined,
      env: childEnv(options.env),
      redact: options.redact ?? [],
    }),
  };
}

export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface HasStatus {
  statusOf(name: string): { state: ServerState } | undefined;
}

export function waitForState(
  target: HasStatus,
  name: string,
  state: ServerState,
  timeoutMs?: number,
): Promise<void> {
  return waitFor(
    () => target.statusOf(name)?.state === state,
    `${name} to be ${state} (is ${target.statusOf(name)?.state})`,
    timeoutMs,
  );
}

/**
 * Whether pid is a running process. A zombie counts as dead: it has exited and runs nothing. (In this
 * VM, pid 1 does not reap orphans, so killed grandchildren stay zombies forever; process.kill(pid, 0)
 * alone would still "find" them.)
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Test cleanup: SIGKILL a process group (or pid), ignoring "already gone". */
export function killHard(pid: number | null | undefined, group = true): void {
  if (!pid) return;
  try {
    process.kill(group ? -pid : pid, 'SIGKILL');
  } catch {
    // gone
  }
}

export function readPids(path: string): { pid: number; grandchild: number | null } {
  return JSON.parse(readFileSync(path, 'utf8')) as { pid: number; grandchild: number | null };
}
