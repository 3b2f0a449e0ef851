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
 * inherited one if the shell fails or times out); other platforms: the inherited PATH. Either way
 * without what npm put in front of it when Switchboard itself was started by `npx` or `npm run`.
 */
export async function resolveLoginPath(options: LoginPathOptions = {}): Promise<string | undefined> {
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  const inherited = withoutNpmPath(env, platform);
  if (platform !== 'darwin') return inherited;
  const shell = env.SHELL || '/bin/zsh';
  try {
    const out = await (options.run ?? runShell)(shell, loginShellArgs(), options.timeoutMs ?? 5_000);
    return parseLoginShellOutput(out) ?? inherited;
  } catch {
    return inherited;
  }
}

/**
 * PATH as the person's shell has it. `npx switchboard …` and `npm run serve` run Switchboard with
 * every `node_modules/.bin` from the current folder up (and npm's node-gyp-bin) put first, so there
 * `node` is the project's own Node 24 and `tsc`, `vitest`, … are the project's: a server's `node`
 * would resolve to another file than from `node bin.mjs` in the same shell, its fingerprint would
 * differ, and what one approved or synced the other would call pending. Only the entries npm
 * prepended go (a run of them at the front, and only when npm's own variables say it started us).
 */
export function withoutNpmPath(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const path = env.PATH ?? (platform === 'win32' ? env.Path : undefined);
  if (path === undefined || (env.npm_command === undefined && env.npm_lifecycle_event === undefined))
    return path;
  const separator = platform === 'win32' ? ';' : ':';
  const entries = path.split(separator);
  const npmAdded = /[\\/](node_modules[\\/]\.bin|node-gyp-bin)[\\/]?$/;
  let first = 0;
  while (first < entries.length && npmAdded.test(entries[first] ?? '')) first++;
  return entries.slice(first).join(separator);
}

let cached: Promise<string | undefined> | undefined;

/** resolveLoginPath, done once per process. */
export function loginPath(): Promise<string | undefined> {
  cached ??= resolveLoginPath();
  return cached;
}
