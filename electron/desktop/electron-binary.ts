import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BinaryFs {
  existsSync(path: string): boolean;
  readFileSync(path: string, encoding: 'utf8'): string;
}

/**
 * The Electron binary the `electron` package installed, found the way its index.js finds it (path.txt
 * names the executable inside dist/; ELECTRON_OVERRIDE_DIST_PATH replaces dist/), but without
 * `require('electron')`: that starts a download when the binary is missing, which on machines without
 * access to Electron's releases prints "Downloading Electron binary…" and fails.
 * `electronDir` is the electron package's folder (undefined when the package is not installed).
 */
export function findElectronBinary(
  electronDir: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  fs: BinaryFs = { existsSync, readFileSync },
): string | undefined {
  if (!electronDir) return undefined;
  const pathFile = join(electronDir, 'path.txt');
  const executable = fs.existsSync(pathFile) ? fs.readFileSync(pathFile, 'utf8').trim() : undefined;
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  const binary = override
    ? join(override, executable || 'electron')
    : executable
      ? join(electronDir, 'dist', executable)
      : undefined;
  return binary && fs.existsSync(binary) ? binary : undefined;
}

export type LaunchPlan =
  { mode: 'desktop'; binary: string; message: string } | { mode: 'headless'; message: string };

/**
 * What `npm start` runs: the desktop app (`electron-forge start`, which builds main, preload, relay
 * and renderer with Vite) where an Electron binary is installed, else headless mode
 * (`switchboard serve`). `--headless` asks for headless mode either way.
 */
export function planLaunch(binary: string | undefined, args: readonly string[]): LaunchPlan {
  if (args.includes('--headless'))
    return { mode: 'headless', message: 'Headless mode (--headless): running `switchboard serve`.' };
  if (binary)
    return { mode: 'desktop', binary, message: `Starting the desktop app with Electron at ${binary}.` };
  return {
    mode: 'headless',
    message:
      'No Electron binary is installed here (node_modules/electron has none), so the desktop app cannot ' +
      'start: running headless mode, `switchboard serve`, instead.',
  };
}

export type ForgeGuardDecision = { run: true } | { run: false; message: string };

const FORGE_COMMANDS = new Set(['package', 'make', 'publish', 'start']);

/**
 * Whether `npm run package`/`make` may hand over to Electron Forge. Forge needs Electron's release
 * zip for the target platform: present where the electron package could download its binary (the
 * zip is then in @electron/get's cache), or fetched from the releases host (or ELECTRON_MIRROR).
 * Where neither is the case Forge fails deep inside @electron/get with "fetch failed" and a stack
 * trace; this says what is going on instead.
 */
export function forgeGuard(
  command: string,
  state: { binary: string | undefined; releasesReachable: boolean; mirror: string },
): ForgeGuardDecision {
  if (!FORGE_COMMANDS.has(command)) {
    return {
      run: false,
      message: `forge-guard: unknown command "${command}" (expected one of: ${[...FORGE_COMMANDS].join(', ')}).`,
    };
  }
  if (state.binary || state.releasesReachable) return { run: true };
  return {
    run: false,
    message: [
      `Cannot run "electron-forge ${command}": no Electron binary is installed and Electron's release`,
      `downloads (${state.mirror}) cannot be reached from this machine.`,
      'Set ELECTRON_MIRROR to a reachable mirror, or build on a machine with access (docs/packaging.md).',
      'Headless mode needs no Electron: npm run serve',
    ].join('\n'),
  };
}

/** Where Forge would download Electron from: ELECTRON_MIRROR (or npm's electron_mirror), else GitHub. */
export function electronMirror(env: NodeJS.ProcessEnv = process.env): string {
  return (
    env.ELECTRON_MIRROR || env.npm_config_electron_mirror || 'https://github.com/electron/electron/releases/'
  );
}
