// Loaded into serve by bench/outdated.ts --probe (`node --expose-gc --import bench/gc-probe.mjs`): on
// SIGWINCH, a full GC, then the process's memory as V8 and Node account for it, written as one JSON
// line to $SB_GC_PROBE. Tells memory the heap still holds from memory V8 or malloc has not given back.
import { appendFileSync } from 'node:fs';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

const out = process.env.SB_GC_PROBE;
process.on('SIGWINCH', () => {
  globalThis.gc?.();
  const heap = getHeapStatistics();
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics().map((s) => [s.space_name, Math.round(s.physical_space_size / 1024)]),
  );
  const mem = process.memoryUsage();
  const kb = (n) => Math.round(n / 1024);
  const line = {
    rssKb: kb(mem.rss),
    heapUsedKb: kb(mem.heapUsed),
    heapPhysicalKb: kb(heap.total_physical_size),
    externalKb: kb(mem.external),
    arrayBuffersKb: kb(mem.arrayBuffers),
    mallocedKb: kb(heap.malloced_memory),
    spacesPhysicalKb: spaces,
  };
  if (out) appendFileSync(out, JSON.stringify(line) + '\n');
});
