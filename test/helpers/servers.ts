import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The Node running the tests (the bundled Node 24); servers are spawned with it, by absolute path. */
export const NODE = process.execPath;

/** A real MCP server from npm: @modelcontextprotocol/server-everything over stdio. */
export function everythingServer(): { command: string; args: string[] } {
  return {
    command: NODE,
    args: [require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
  };
}

/** A fixture script in test/fixtures, run with node. */
export function fixtureServer(name: string, ...args: string[]): { command: string; args: string[] } {
  return { command: NODE, args: [fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url)), ...args] };
}

/**
 * The bound on a wait for something that will come (a process's answer, an exit, a state): only a
 * hang should reach it, never a busy machine. A test that waits on events with this bound passes on
 * a 2-core machine shared by eight, only slower.
 */
export const HANG_MS = 300_000;

/**
 * Starts a fixture that serves HTTP on a free port and prints "listening <port>" (probe-server.mjs
 * and phisher-server.mjs with `--http 0`); resolves once it does.
 */
export async function startListening(
  name: string,
  ...args: string[]
): Promise<{ child: ChildProcess; port: number }> {
  const { command, args: argv } = fixtureServer(name, ...args);
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once('data', (d: Buffer) => {
      const match = /listening (\d+)/.exec(d.toString());
      if (match) resolve(Number(match[1]));
      else reject(new Error(`${name} ${args.join(' ')} said: ${d.toString()}`));
    });
  });
  return { child, port };
}

/** Polls until check() returns a value (not undefined/null/false) or the timeout passes. */
export async function waitFor<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Whether pid is a running process. A zombie counts as dead: it has exited and runs nothing (in
 * containers whose pid 1 does not reap orphans, killed grandchildren stay zombies forever).
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The value, or a test failure that names what was missing (instead of a non-null assertion). */
export function defined<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`expected ${what}, got ${String(value)}`);
  return value;
}
