// `npm run package` / `npm run make` / `npm run start:desktop`: run Electron Forge only where an Electron
// binary can be had. Build and CI machines here cannot reach Electron's release downloads, and Forge
// would fail deep inside @electron/get with a stack trace; this says what is going on instead.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const command = process.argv[2] ?? 'package';
const require = createRequire(import.meta.url);

function installedBinary(): string | undefined {
  try {
    const path: unknown = require('electron');
    return typeof path === 'string' && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

async function releasesReachable(): Promise<boolean> {
  const mirror =
    process.env.ELECTRON_MIRROR ??
    process.env.npm_config_electron_mirror ??
    'https://github.com/electron/electron/releases/';
  try {
    const res = await fetch(mirror, { method: 'HEAD', signal: AbortSignal.timeout(5_000) });
    return res.status < 500;
  } catch {
    return false;
  }
}

if (!installedBinary() && !(await releasesReachable())) {
  console.error(
    [
      `Cannot run "electron-forge ${command}": no Electron binary is installed and Electron's release`,
      'downloads cannot be reached from this machine (set ELECTRON_MIRROR to a reachable mirror, or',
      'build on a machine with access; see docs/packaging.md).',
      'Headless mode needs no Electron: npm run serve',
    ].join('\n'),
  );
  process.exit(1);
}
const forge = spawnSync('npx', ['electron-forge', command, ...process.argv.slice(3)], { stdio: 'inherit' });
process.exit(forge.status ?? 1);
