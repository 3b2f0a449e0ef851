import { readFileSync } from 'node:fs';
const { enableHomeCompileCache } = await import('../electron/core/compile-cache.mjs');
enableHomeCompileCache(process.env);
const sm = () => Object.fromEntries(readFileSync('/proc/self/smaps_rollup', 'utf8').split('\n').filter(l => /^(Rss|Shared_Clean|Private_Dirty|Private_Clean)/.test(l)).map(l => { const [k, v] = l.split(/:\s+/); return [k, Math.round(parseInt(v) / 1024)]; }));
const v8 = await import('node:v8');
const heap = () => Math.round(process.memoryUsage().heapUsed / 1048576) + '/' + Math.round(process.memoryUsage().heapTotal / 1048576);
globalThis.gc(); console.log('base', JSON.stringify(sm()), heap());
for (const m of process.argv.slice(2)) { await import(m); globalThis.gc(); console.log(m, JSON.stringify(sm()), heap()); }
