import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach } from 'vitest';
import { NODE } from './servers.ts';
import { tempHome, type TempHome } from './temp-home.ts';

export const BIN = fileURLToPath(new URL('../../electron/cli/bin.mjs', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `switchboard ARGS…` as a real process, the way a person would. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, stdin?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A command that never reads stdin may exit first: the write then fails with EPIPE, which says
    // nothing about the command (its exit code and output do).
    child.stdin.on('error', () => {});
    child.stdin.end(stdin ?? '');
  });
}

/** Starts `switchboard serve` and resolves once it printed that it is running. */
export async function startServe(
  env: NodeJS.ProcessEnv,
  args: string[] = ['--port', '0'],
  bin = BIN,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(NODE, [bin, 'serve', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running behind the failure it reports (SIGTERM stops its servers; SIGKILL if hung).
      child.kill('SIGTERM');
      setTimeout(
        () => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'),
        10_000,
      ).unref();
      reject(new Error(`serve did not start:\n${output}`));
    }, 90_000);
    const check = () => {
      // The whole banner (port, sign-in link), not only its first line: they may come in two chunks.
      if (/Ctrl\+C stops (?:them all|Switchboard)\.\n/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${output}`));
    });
  });
  return { child, output: () => output };
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** How long a SIGTERMed process (serve stopping its servers) may take before it is killed. */
const STOP_MS = 30_000;

/** Stops a process that is still running: SIGTERM, SIGKILL if it has not exited after STOP_MS. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_MS);
  try {
    await exited(child);
  } finally {
    clearTimeout(timer);
  }
}

/** Stops every process of a test's list (see stopProcess), one after another, and empties the list. */
export async function stopAll(children: ChildProcess[]): Promise<void> {
  for (const child of children.splice(0)) await stopProcess(child);
}

/**
 * Runs `switchboard ARGS…` in a real terminal (a pseudo-terminal from util-linux `script`), as a person
 * at a terminal does: stdin is a TTY, so the command may ask; `input` is what they type.
 */
export function runCliInTerminal(args: string[], env: NodeJS.ProcessEnv, input: string): Promise<CliResult> {
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
  const command = [NODE, BIN, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: stdout.replace(/\r\n/g, '\n'), stderr }));
    child.stdin.end(input);
  });
}

export interface HomePerTest {
  /** The running test's temp home (each field is the running test's: the object itself stays). */
  readonly t: TempHome;
  /** What the test started (serve, a CLI left running): stopped after it, before its home goes. */
  readonly children: ChildProcess[];
}

/** Registers the hooks that give each test of the file a fresh temp home and stop what it started. */
export function useHomePerTest(): HomePerTest {
  let current: TempHome | undefined;
  const children: ChildProcess[] = [];
  beforeEach(() => {
    current = tempHome();
  });
  afterEach(async () => {
    try {
      await stopAll(children);
    } finally {
      current?.cleanup();
      current = undefined;
    }
  });
  const now = (): TempHome => {
    if (!current) throw new Error('no temp home outside a test');
    return current;
  };
  const t: TempHome = {
    get dir() {
      return now().dir;
    },
    get home() {
      return now().home;
    },
    get env() {
      return now().env;
    },
    writeServers: (content) => now().writeServers(content),
    cleanup: () => now().cleanup(),
  };
  return { t, children };
}
