// @ts-check
// Plain JavaScript, like bin.mjs that loads it: it runs before any .ts file loads. Only the CLI uses
// it (serve); the relay and the app's bundles load core/compile-cache.mjs alone, so nothing here is
// bundled (a bundler would inline `new URL(…, import.meta.url)` targets as data: URLs).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { getCompileCacheDir } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * For a process that stays up (`serve`): when the compile cache was not yet filled for this Node, these
 * Node flags and this version of Switchboard, a short-lived child loads `modules` first and fills it,
 * so that this process then loads every file from the cache and never loads the TypeScript stripper,
 * which would stay for its whole life (~20 MB of serve's RSS: amaro's code, its WebAssembly memory and
 * compiled code). Costs about one more start (measured 0.6 s here) on the first start after installing or
 * upgrading, nothing later. A source file edited in a checkout (same version) is stripped in-process
 * as before.
 * @param {string | undefined} dir the cache's folder, as enableHomeCompileCache() returned it (none: off)
 * @param {string[]} modules file: URLs of the modules this process is about to import
 */
export function warmCompileCache(dir, modules) {
  // getCompileCacheDir() would name the folder inside `dir` for this Node version: not what to pass on.
  if (dir === undefined || getCompileCacheDir() === undefined) return;
  const marker = join(dir, 'switchboard-warm.json');
  const stamp = JSON.stringify({
    node: process.version,
    // The cache is per set of V8 flags: the child runs with ours, so it fills the cache we read.
    flags: process.execArgv,
    version: /** @type {{ version?: string }} */ (
      JSON.parse(readFileSync(join(HERE, '..', '..', 'package.json'), 'utf8'))
    ).version,
  });
  try {
    if (readFileSync(marker, 'utf8') === stamp) return;
  } catch {
    // no marker yet: warm it
  }
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, join(HERE, 'compile-cache-child.mjs'), ...modules],
    {
      stdio: 'ignore',
      env: { ...process.env, NODE_COMPILE_CACHE: dir },
      timeout: 60_000,
    },
  );
  // A failed warm-up costs only memory: this process strips what it loads, as without it.
  if (child.status === 0) writeFileSync(marker, stamp, { mode: 0o600 });
}
