// @ts-check
// The child of warmCompileCache() (warm-compile-cache.mjs): loads the modules named in argv (file: URLs) with the compile
// cache on (NODE_COMPILE_CACHE, set by the parent), writes the cache, and exits. It runs nothing.
import { flushCompileCache } from 'node:module';

for (const url of process.argv.slice(2)) await import(url);
flushCompileCache();
