const { enableHomeCompileCache } = await import('../electron/core/compile-cache.mjs');
enableHomeCompileCache(process.env);
const rss = () => (process.memoryUsage().rss / 1048576).toFixed(1);
globalThis.gc?.();
console.log('base', rss());
for (const m of process.argv.slice(2)) {
  await import(m);
  globalThis.gc?.(); await new Promise(r => setTimeout(r, 50)); globalThis.gc?.();
  console.log(m, rss());
}
