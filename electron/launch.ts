// `npm start`: the desktop app where an Electron binary exists, else headless mode (`switchboard serve`).
// The Electron binary cannot be downloaded on build/CI machines, so this says which one it runs.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { main } from './cli/main.ts';

function electronBinary(): string | undefined {
  try {
    // The electron package exports the path of its binary, or throws when it was never downloaded.
    const path: unknown = createRequire(import.meta.url)('electron');
    return typeof path === 'string' && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

const binary = electronBinary();
if (binary) {
  console.log(
    `Electron found at ${binary}, but the desktop shell is not built yet; running headless mode instead.`,
  );
} else {
  console.log(
    'No Electron binary on this machine (it cannot be downloaded here): running headless mode, `switchboard serve`.',
  );
}
process.exitCode = await main(['serve', ...process.argv.slice(2)]);
