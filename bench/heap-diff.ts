// What a heap snapshot holds that another does not: self sizes summed by node type and name (a
// constructor, a string, code), the largest growths first. For bench/outdated.ts --heap.
//
//   node_modules/.bin/node bench/heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [--top 30]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '30' } },
  allowPositionals: true,
});
const [beforePath, afterPath] = positionals;
if (!beforePath || !afterPath) throw new Error('usage: heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot');

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Bytes and counts by "type name" (strings grouped by type alone: each is its own name). */
function totals(path: string): { bytes: Map<string, number>; count: Map<string, number>; all: number } {
  const s = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const [iType = 0, iName = 1, iSize = 3] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const at = (i: number) => s.nodes[i] ?? 0;
  const bytes = new Map<string, number>();
  const count = new Map<string, number>();
  let all = 0;
  for (let i = 0; i < s.nodes.length; i += fields.length) {
    const type = types[at(i + iType)] ?? '?';
    const name =
      type === 'string' || type === 'concatenated string' || type === 'sliced string'
        ? ''
        : (s.strings[at(i + iName)] ?? '').slice(0, 60);
    const key = `${type} ${name}`;
    const size = at(i + iSize);
    all += size;
    bytes.set(key, (bytes.get(key) ?? 0) + size);
    count.set(key, (count.get(key) ?? 0) + 1);
  }
  return { bytes, count, all };
}

const a = totals(beforePath);
const b = totals(afterPath);
const mb = (n: number) => (n / 1048576).toFixed(2);
console.log(`heap: ${mb(a.all)} MB → ${mb(b.all)} MB (${mb(b.all - a.all)} MB)`);
const keys = new Set([...a.bytes.keys(), ...b.bytes.keys()]);
const rows = [...keys]
  .map((k) => ({
    k,
    d: (b.bytes.get(k) ?? 0) - (a.bytes.get(k) ?? 0),
    n: (b.count.get(k) ?? 0) - (a.count.get(k) ?? 0),
  }))
  .sort((x, y) => Math.abs(y.d) - Math.abs(x.d))
  .slice(0, Number(values.top));
for (const r of rows) console.log(`${mb(r.d).padStart(8)} MB ${String(r.n).padStart(8)}  ${r.k}`);
