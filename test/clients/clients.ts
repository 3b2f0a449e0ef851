import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { stripVTControlCharacters } from 'node:util';
import { fileURLToPath } from 'node:url';

/**
 * The real MCP clients of test/clients/package.json (installed with `npm ci --prefix test/clients`),
 * how to start them, and the switches that keep them from phoning home.
 */

export const CLIENTS_DIR = dirname(fileURLToPath(import.meta.url));
const MODULES = join(CLIENTS_DIR, 'node_modules');

export function clientsInstalled(): boolean {
  return existsSync(join(MODULES, '.bin', 'gemini'));
}

/** The clients a test starts by name. */
export type ClientName =
  | 'claude'
  | 'gemini'
  | 'codex'
  | 'copilot'
  | 'opencode'
  | 'qwen'
  | 'cn'
  | 'cline'
  | 'kilo'
  | 'droid'
  | 'auggie';

/**
 * A client's executable. Claude Code, opencode and Cline link their platform binary in a postinstall
 * script, which .npmrc's ignore-scripts skips: their platform package's binary is used directly.
 * Kilo Code and Factory Droid are installed as their platform package alone (package.json says why).
 */
export function clientBin(name: ClientName): string {
  const platform = `${process.platform}-${process.arch}`;
  const direct: Partial<Record<ClientName, string>> = {
    claude: join(MODULES, '@anthropic-ai', `claude-code-${platform}`, 'claude'),
    opencode: join(MODULES, `opencode-${platform}`, 'bin', 'opencode'),
    cline: join(MODULES, '@cline', `cli-${platform}`, 'bin', 'cline'),
    kilo: join(MODULES, '@kilocode', `cli-${platform}`, 'bin', 'kilo'),
    droid: join(MODULES, '@factory', `cli-${platform}`, 'bin', 'droid'),
  };
  const candidate = direct[name];
  if (candidate && existsSync(candidate)) return candidate;
  return join(MODULES, '.bin', name);
}

/** Whether this client is installed here (the platform-only ones exist only on Linux x64). */
export function clientInstalled(name: ClientName): boolean {
  return existsSync(clientBin(name));
}

/** What every client run gets: no update checks, telemetry, error reports or other traffic. */
export const QUIET_ENV: Record<string, string> = {
  // Claude Code
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  // Gemini CLI (also its settings file: telemetry and usage statistics off)
  GEMINI_CLI_TRUST_WORKSPACE: 'true',
  // Copilot CLI: offline mode skips sign-in, telemetry and updates; the model is the local fake one
  COPILOT_OFFLINE: 'true',
  COPILOT_AUTO_UPDATE: 'false',
  // opencode
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  // Qwen Code
  QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
  // Continue (cn): no telemetry or metrics
  CONTINUE_CLI_ENABLE_TELEMETRY: '0',
  CONTINUE_METRICS_ENABLED: '0',
  // Kilo Code (an opencode fork: opencode's switches under its own name)
  KILO_DISABLE_AUTOUPDATE: '1',
  KILO_DISABLE_MODELS_FETCH: '1',
  KILO_DISABLE_LSP_DOWNLOAD: '1',
  KILO_DISABLE_DEFAULT_PLUGINS: '1',
  KILO_DISABLE_SHARE: '1',
  NO_COLOR: '1',
};

/**
 * The environment a client runs in: the test home's, QUIET_ENV, this Node first on PATH (for the
 * clients that are Node scripts: the machine's may be older), then `extra`.
 */
export function clientEnv(home: NodeJS.ProcessEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...home, ...QUIET_ENV, PATH: `${dirname(process.execPath)}:${home.PATH ?? ''}`, ...extra };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** both, for assertion messages */
  output: string;
}

/** Runs a client to its end (killed after `timeoutMs`), stdin closed. */
export function run(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; timeoutMs?: number },
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      env: options.env,
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const plain = (text: string) => stripVTControlCharacters(text);
      resolve({ code, stdout, stderr, output: plain(`${stdout}\n--- stderr ---\n${stderr}`) });
    });
  });
}

/** `codex app-server`: JSON-RPC over stdio, one message a line. */
export class CodexAppServer {
  readonly #child;
  readonly #pending = new Map<number, (message: Record<string, unknown>) => void>();
  #next = 1;
  stderr = '';

  constructor(env: NodeJS.ProcessEnv, cwd: string) {
    this.#child = spawn(clientBin('codex'), ['app-server'], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    createInterface({ input: this.#child.stdout }).on('line', (line) => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      if (typeof message.id === 'number' && !('method' in message)) this.#pending.get(message.id)?.(message);
    });
  }

  request(method: string, params: unknown, timeoutMs = 60_000): Promise<Record<string, unknown>> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new Error(`codex app-server: no answer to ${method} in ${timeoutMs} ms\n${this.stderr}`)),
        timeoutMs,
      );
      this.#pending.set(id, (message) => {
        clearTimeout(timer);
        this.#pending.delete(id);
        if (message.error) reject(new Error(`codex app-server: ${method}: ${JSON.stringify(message.error)}`));
        else resolve(message.result as Record<string, unknown>);
      });
      this.#child.stdin.write(JSON.stringify({ method, id, params }) + '\n');
    });
  }

  notify(method: string): void {
    this.#child.stdin.write(JSON.stringify({ method }) + '\n');
  }

  close(): void {
    this.#child.stdin.end();
    this.#child.kill('SIGTERM');
  }
}

/**
 * Cline's CLI starts a hub daemon for its sessions that outlives the run: `cline hub stop` asks it
 * to go, then any daemon still serving `cwd` is ended by its pid (Linux: read from /proc).
 */
export async function stopClineHub(env: NodeJS.ProcessEnv, cwd: string): Promise<void> {
  await run(clientBin('cline'), ['hub', 'stop'], { env, cwd, timeoutMs: 20_000 });
  if (process.platform !== 'linux') return;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (args.includes('--cline-hub-daemon') && args[args.indexOf('--cwd') + 1] === cwd) {
      try {
        process.kill(Number(pid), 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }
}
