#!/usr/bin/env -S node --max-semi-space-size=2 --expose-gc --v8-pool-size=1 --max-opt=2
// The `switchboard` command. Switchboard's sources are TypeScript that Node >= 22.18 runs directly;
// inside `npm run`/`npx` the project's Node 24 (optionalDependencies node-<os>-<cpu>) comes first on PATH.
// --max-semi-space-size=2 (MiB) caps V8's young generation, which otherwise grows to ~64 MiB during a
// busy start (100 servers) and stays: ~58 MB less idle memory for `serve` (docs/performance.md).
// --expose-gc: serve runs one full GC once a burst of server starts has settled (core/memory/).
// --v8-pool-size=1: one V8 helper thread instead of 4; each kept its own malloc arena holding 2–3 MB
// that glibc never gave back after a first start's 100 server runs (~5 MB of serve's RSS;
// docs/decisions/performance-choices.md).
// --max-opt=2: V8 optimizes up to Maglev, never with TurboFan, whose compiler code, zones and output
// held ~9 MB of serve's RSS after a first start; serve's CPU per bridged call did not move
// (docs/decisions/performance-choices.md).
// Keep package.json's "start"/"serve" scripts on the same flags.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(
    `switchboard needs Node 22.18 or newer (this is ${process.version}).\n` +
      'Run it through npm so the bundled Node is used: npx switchboard …  (or npm run serve)',
  );
  process.exit(1);
}
const command = process.argv[2];
const { endQuietlyOnClosedPipe } = await import('./closed-pipe.mjs');
endQuietlyOnClosedPipe(command);
// Before anything heavy loads: cached compiled code makes every later start faster.
const { enableHomeCompileCache } = await import('../core/compile-cache.mjs');
const cacheDir = enableHomeCompileCache(process.env, { create: command === 'serve' });
// serve stays up: it must never load the TypeScript stripper, not even on its first start.
if (command === 'serve') {
  const { warmCompileCache } = await import('./warm-compile-cache.mjs');
  warmCompileCache(cacheDir, [
    new URL('./main.ts', import.meta.url).href,
    new URL('./commands/serve.ts', import.meta.url).href,
    new URL('../headless/ui-build.ts', import.meta.url).href, // serve imports it once it runs
  ]);
}
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2));
