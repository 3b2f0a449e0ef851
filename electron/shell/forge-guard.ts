// `npm run package` / `npm run make`: run Electron Forge only where it can get Electron. The decision
// and its message are electron/desktop/electron-binary.ts (tested under Node); this file acts on it.
//
//   node electron/shell/forge-guard.ts <package|make|publish|start> [forge options…]
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { electronMirror, findElectronBinary, forgeGuard } from '../desktop/electron-binary.ts';

const require = createRequire(import.meta.url);
const command = process.argv[2] ?? 'package';

function electronDir(): string | undefined {
  try {
    return dirname(require.resolve('electron/package.json'));
  } catch {
    return undefined;
  }
}

async function reachable(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(5_000) });
    return res.status < 500;
  } catch {
    return false;
  }
}

const mirror = electronMirror();
const binary = findElectronBinary(electronDir());
const decision = forgeGuard(command, {
  binary,
  // Only asked when no binary is installed: a package/make with one installed needs no network check.
  releasesReachable: binary ? true : await reachable(mirror),
  mirror,
});
if (!decision.run) {
  console.error(decision.message);
  process.exit(1);
}
// Forge's CLI by path, run by this Node: no npx, no shell (the same on Windows).
const forge = require.resolve('@electron-forge/cli/dist/electron-forge.js');
const result = spawnSync(process.execPath, [forge, command, ...process.argv.slice(3)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
