// Where the time of `switchboard serve` goes, measured inside one fresh process (run by
// bench/serve-startup.ts, with SWITCHBOARD_HOME set to a temp home):
//   bootMs    process start → this file's first statement (Node bootstrap, loading this file)
//   importMs  loading the CLI's whole module graph, as electron/cli/bin.mjs does
//   startMs   startHeadless(): core + bridge listening + servers started + servers.json watched
// Only dynamic imports below: static ones would run before the first statement and hide in bootMs.
const bootMs = performance.now();

const importStart = performance.now();
await import('../../electron/cli/main.ts');
const importMs = performance.now() - importStart;

const { startHeadless } = await import('../../electron/headless/serve.ts');
const { resolveHome } = await import('../../electron/core/home.ts');
const { MemoryKeychain } = await import('../../electron/core/secrets/keychain.ts');

const startStart = performance.now();
const headless = await startHeadless({
  home: resolveHome(process.env),
  keychain: new MemoryKeychain(),
  port: 0,
});
const startMs = performance.now() - startStart;

process.stdout.write(JSON.stringify({ bootMs, importMs, startMs }) + '\n');
await headless.stop();
