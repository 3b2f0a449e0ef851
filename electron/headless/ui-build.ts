// Builds the UI (renderer/ → renderer/dist, what `switchboard serve` serves at /) when a source
// checkout has no build yet or an older one than its sources. `npm start` runs it before headless
// mode, `switchboard serve` when there is no build at all, and test/run.sh before the tests:
//
//   node electron/headless/ui-build.ts        (builds only if stale; prints what it did)
//
// serve and `npm start` run it as a child process (buildUiInChild): Vite, Rollup and the build's
// garbage take ~280 MB that V8 would keep in the process for its whole life (a serve that built the UI
// itself stayed at 373–391 MB instead of ~100 MB).
//
// Installed builds ship renderer/dist and never reach this (Vite is a dev dependency).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

// A plain path: a bundler turns `new URL('../..', import.meta.url)` into an inlined data: URL, which
// made the desktop app's `switchboard serve` (.vite/cli) throw before it started.
const ROOT = join(import.meta.dirname, '..', '..');
const BUILT = join(ROOT, 'renderer', 'dist', 'index.html');
const SOURCES = [
  'renderer/src',
  'renderer/public',
  'renderer/index.html',
  'renderer/vite.config.ts',
  'shared',
];

/** Whether the checkout has a UI build at all (a fresh clone has none until something builds it). */
export function uiBuilt(root = ROOT): boolean {
  return existsSync(join(root, 'renderer', 'dist', 'index.html'));
}

/** Whether this is a source checkout (renderer sources present), where the UI can be built. */
export function isSourceCheckout(root = ROOT): boolean {
  return existsSync(join(root, 'renderer', 'src'));
}

/** Why the UI needs building ("not built yet", "renderer/src/App.tsx changed"), or undefined. */
export function uiBuildReason(root = ROOT): string | undefined {
  if (!uiBuilt(root)) return 'not built yet';
  const builtAt = statSync(join(root, 'renderer', 'dist', 'index.html')).mtimeMs;
  for (const source of SOURCES) {
    const newer = newerFile(join(root, source), builtAt);
    if (newer) return `${relative(root, newer)} changed`;
  }
  return undefined;
}

function newerFile(path: string, than: number): string | undefined {
  if (!existsSync(path)) return undefined;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs > than ? path : undefined;
  for (const entry of readdirSync(path, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    if (statSync(file).mtimeMs > than) return file;
  }
  return undefined;
}

/** Builds renderer/dist if it is missing or stale; returns what it did, for a one-line message. */
export async function buildUiIfStale(): Promise<string | undefined> {
  const reason = uiBuildReason();
  if (!reason) return undefined;
  let vite: typeof import('vite');
  try {
    vite = await import('vite');
  } catch {
    return `The UI is ${reason} and Vite is not installed (run: npm install); the bridge works without it`;
  }
  const started = Date.now();
  await vite.build({ configFile: join(ROOT, 'renderer', 'vite.config.ts'), logLevel: 'warn' });
  return `Built the UI (${reason}) in ${((Date.now() - started) / 1000).toFixed(1)} s: ${BUILT}`;
}

/**
 * buildUiIfStale in a short-lived child process (this file run by this Node), so that none of the
 * build's memory stays in the caller. Resolves to what it did, for a one-line message.
 */
export function buildUiInChild(): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const failed = (why: string) =>
      resolve(`The UI could not be built (${why}); the bridge works without it. Try: npm run build:renderer`);
    child.on('error', (e) => failed(e.message));
    child.on('close', (code, signal) => {
      if (code !== 0) return failed(err.trim().split('\n').slice(-3).join(' ') || `exit ${code ?? signal}`);
      const said = /^ui-build: (.*)$/m.exec(out)?.[1];
      resolve(said === UP_TO_DATE ? undefined : said);
    });
  });
}

const UP_TO_DATE = 'the UI is up to date';

// No top-level await: the desktop app's CLI bundle (CommonJS) carries this module too.
if (import.meta.main) void buildUiIfStale().then((done) => console.log(`ui-build: ${done ?? UP_TO_DATE}`));
