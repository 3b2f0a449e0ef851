// `npm start`: the desktop app where an Electron binary is installed (`electron-forge start`), else
// headless mode (`switchboard serve`). The choice and its reason are electron/desktop/electron-binary.ts;
// this file only acts on it. `npm start -- --headless` asks for headless mode either way.
// JavaScript (typed by JSDoc) so that the home's compile cache is on before any .ts file loads
// (core/compile-cache.mjs): Node's TypeScript stripper is then never loaded from the second start on.
// @ts-check
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { enableHomeCompileCache } from './core/compile-cache.mjs';

enableHomeCompileCache();
const { findElectronBinary, planLaunch } = await import('./desktop/electron-binary.ts');

const require = createRequire(import.meta.url);

/**
 * The electron package's folder, without loading it (loading it downloads a missing binary).
 * @returns {string | undefined}
 */
function electronDir() {
  try {
    return dirname(require.resolve('electron/package.json'));
  } catch {
    return undefined;
  }
}

const args = process.argv.slice(2);
const plan = planLaunch(findElectronBinary(electronDir()), args);
console.log(plan.message);
if (plan.mode === 'desktop') {
  // Forge's CLI by path, run by this Node: no npx, no shell (the same on Windows).
  const forge = require.resolve('@electron-forge/cli/dist/electron-forge.js');
  // serve's V8 flags on Electron's own command line: its main process reads them only there.
  const { jsFlagsValue } = await import('./desktop/js-flags.ts');
  const electronArgs = [`--js-flags=${jsFlagsValue()}`, ...args];
  const child = spawn(process.execPath, [forge, 'start', '--', ...electronArgs], { stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
} else {
  // A fresh checkout has no built UI; build it once so the printed link opens the app, not a 503.
  const { buildUiInChild, uiBuildReason } = await import('./headless/ui-build.ts');
  // SWITCHBOARD_SKIP_UI_BUILD: tests that run this file must not rebuild the checkout's UI under
  // other tests that are serving it.
  const reason = process.env.SWITCHBOARD_SKIP_UI_BUILD ? undefined : uiBuildReason();
  if (reason) {
    console.log(`Building the UI first (${reason})…`);
    // In a child: the build's ~280 MB must not stay in the serve this process becomes.
    const done = await buildUiInChild();
    if (done) console.log(done);
  }
  const { main } = await import('./cli/main.ts');
  process.exitCode = await main(['serve', ...args.filter((a) => a !== '--headless')]);
}
