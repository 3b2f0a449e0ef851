// @ts-check
// Plain JavaScript: it must run before any .ts file loads, so that none is type-stripped uncached.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { enableCompileCache, getCompileCacheDir } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { homeRoot } from './home-root.mjs';

/**
 * Turns on Node's compile cache, which also caches the type-stripped TypeScript, so from the second
 * start on our files load without stripping or compiling them again (~100 ms less per start on the
 * 2-core CI machine), and Node's TypeScript stripper (~15 MB that stays) is never loaded. It lives in
 * the Switchboard home (private to this user), never in a shared temp folder whose cached code
 * another user could plant; NODE_COMPILE_CACHE, if set, takes precedence. Only once the home exists
 * (`create` makes it: `serve` makes the home anyway): a first `--help` creates nothing.
 * @param {NodeJS.ProcessEnv} [env]
 * @param {{ create?: boolean }} [options]
 * @returns {string | undefined} the cache's folder, when it is on
 */
export function enableHomeCompileCache(env = process.env, options = {}) {
  const root = homeRoot(env);
  const dir = env.NODE_COMPILE_CACHE || join(root, 'cache', 'node-compile');
  if (options.create && !env.NODE_COMPILE_CACHE) mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!env.NODE_COMPILE_CACHE && !existsSync(root)) return undefined;
  enableCompileCache(dir);
  return dir;
}

const WARM_CHILD = fileURLToPath(new URL('./compile-cache-warm.mjs', import.meta.url));
const PACKAGE_JSON = new URL('../../package.json', import.meta.url);

/**
 * For a process that stays up (`serve`): when the compile cache was not yet filled for this Node, these
 * Node flags and this version of Switchboard, a short-lived child loads `modules` first and fills it,
 * so that this process then loads every file from the cache and never loads the TypeScript stripper,
 * which would stay for its whole life (~20 MB of serve's RSS: amaro's code, its WebAssembly memory and
 * compiled code). Costs one extra Node start (~0.2 s) on the first start after installing or
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
    version: /** @type {{ version?: string }} */ (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8'))).version,
  });
  try {
    if (readFileSync(marker, 'utf8') === stamp) return;
  } catch {
    // no marker yet: warm it
  }
  const child = spawnSync(process.execPath, [...process.execArgv, WARM_CHILD, ...modules], {
    stdio: 'ignore',
    env: { ...process.env, NODE_COMPILE_CACHE: dir },
    timeout: 60_000,
  });
  // A failed warm-up costs only memory: this process strips what it loads, as without it.
  if (child.status === 0) writeFileSync(marker, stamp, { mode: 0o600 });
}
