/**
 * The V8 flags `switchboard serve` runs with (bin.mjs's shebang; docs/performance.md measures serve
 * with them), for the desktop app, whose main process runs the same core and bridge:
 * --max-semi-space-size=2 (young generation capped), --expose-gc (one GC after a burst of server
 * starts, electron/headless/serve.ts), --max-opt=2 (no TurboFan). Electron hands them to V8 as one
 * `--js-flags` switch.
 */
export const DESKTOP_JS_FLAGS = ['--max-semi-space-size=2', '--expose-gc', '--max-opt=2'] as const;

/**
 * serve's flags that are Node's own, not V8's, and mean nothing to Electron's main process:
 * --v8-pool-size sizes Node's platform thread pool, and Electron runs V8 on its own (Chromium's).
 */
export const NODE_ONLY_FLAGS = ['--v8-pool-size=1'] as const;

/** The `--js-flags` value. */
export function jsFlagsValue(): string {
  return DESKTOP_JS_FLAGS.join(' ');
}

/** Set in the environment of the relaunched process: it never relaunches again. */
export const RELAUNCHED_ENV = 'SWITCHBOARD_JS_FLAGS_RELAUNCH';

/**
 * Electron reads `--js-flags` for its main process only from the command line it was started with
 * (`app.commandLine.appendSwitch` reaches the windows' renderers, not the main process, whose V8 is
 * already up). Started without them (from a menu, a launcher, at login), the app starts itself once
 * more with them before doing anything else. Returns the arguments for that relaunch, or undefined:
 * it has them already, it is the relaunched one (no loop), or macOS, where a link or bundle that
 * launched the app arrives as an event after start, which a relaunch would lose.
 */
export function jsFlagsRelaunch(options: {
  /** process.argv */
  argv: readonly string[];
  platform: NodeJS.Platform;
  /** app.commandLine.getSwitchValue('js-flags') */
  current: string;
  env: NodeJS.ProcessEnv;
}): string[] | undefined {
  const have = new Set(options.current.split(/\s+/).filter(Boolean));
  if (DESKTOP_JS_FLAGS.every((flag) => have.has(flag))) return undefined;
  if (options.env[RELAUNCHED_ENV]) return undefined;
  if (options.platform === 'darwin') return undefined;
  // Its own js-flags (someone's debugging flags) are kept, after serve's: V8 lets the later win.
  const rest = options.argv.slice(1).filter((arg) => !arg.startsWith('--js-flags='));
  const value = [...new Set([...DESKTOP_JS_FLAGS, ...have])].join(' ');
  return [...rest, `--js-flags=${value}`];
}
