const t0 = performance.now();
const { enableHomeCompileCache } = await import('../electron/core/compile-cache.mjs');
enableHomeCompileCache(process.env);
const mods = process.argv.slice(2);
for (const m of mods) { const a = performance.now(); await import(m); console.log(m, (performance.now() - a).toFixed(1)); }
console.log('since process start', performance.now().toFixed(1));
