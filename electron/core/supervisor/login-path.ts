import { execFile } from 'node:child_process';

/**
 * GUI apps on macOS start with launchd's minimal PATH, not the one the user's login shell builds
 * (Homebrew, nvm, ~/.local/bin …), so `npx`, `uvx`, `docker` would not be found. We ask the login
 * shell once. Elsewhere the inherited PATH is already right.
 */

const START = '__SWITCHBOARD_PATH_START__';
const END = '__SWITCHBOARD_PATH_END__';

/** The argv that prints PATH between markers, so rc-file noise (banners, motd) is ignored. */
export function loginShellArgs(): string[] {
  return ['-ilc', `printf '%s%s%s' '${START}' "$PATH" '${END}'`];
}

/** The PATH between the markers in the shell's output, or null when it is missing or empty. */
export function parseLoginShellOutput(stdout: string): string | null {
  const start = stdout.lastIndexOf(START);
  if (start === -1) return null;
  const from = start + START.length;
  const end = stdout.indexOf(END, from);
  if (end === -1) return null;
  const path = stdout.slice(from, end).trim();
  return path === '' ? null : path;
}

export type RunShell = (shell: string, args: string[], timeoutMs: number) => Promise<string>;

const runShell: RunShell = (shell, args, timeoutMs) =>
  new Promise((resolve, reject) => {
    execFile(
      shell,
      args,
      // No stdin: an interactive rc file that prompts must not hang us; the timeout covers the rest.
      {
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: 1024 * 1024,
        env: process.env,
        windowsHide: true,
      },
      (err, stdout) => (err && !stdout ? reject(err) : resolve(stdout)),
    ).stdin?.end();
  });

export interface LoginPathOptions {
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  run?: RunShell;
}

/**
 * The PATH servers should be spawned with. macOS: the login shell's PATH (falls back to the
 * inherited one if the shell fails or times out); other platforms: the inherited PATH.
 */
export async function resolveLoginPath(options: LoginPathOptions = {}): Promise<string | undefined> {
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  if (platform !== 'darwin') return env.PATH;
  const shell = env.SHELL || '/bin/zsh';
  try {
    const out = await (options.run ?? runShell)(shell, loginShellArgs(), options.timeoutMs ?? 5_000);
    return parseLoginShellOutput(out) ?? env.PATH;
  } catch {
    return env.PATH;
  }
}

let cached: Promise<string | undefined> | undefined;

/** resolveLoginPath, done once per process. */
export function loginPath(): Promise<string | undefined> {
  cached ??= resolveLoginPath();
  return cached;
}
