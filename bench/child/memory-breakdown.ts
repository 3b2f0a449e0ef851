// Where the core's memory goes: process.memoryUsage(), V8's heap spaces and the process's resident
// memory by kind (/proc/self/smaps) after startHeadless() with N approved fixture servers. Used while
// tuning (docs/performance.md, "Lazy servers"); run with serve's flags to see what serve sees:
//
//   node_modules/.bin/node --max-semi-space-size=2 bench/child/memory-breakdown.ts [N]
//        [--idle S]            idle timeout S: wait until every server ran once and all are idle
//        [--snapshot FILE]     then write a heap snapshot (open it in Chrome DevTools' Memory tab)
//        [--gc]                with --expose-gc: the figures before and after one full GC
//
// Without --idle the servers stay running (idle timeout 0) and it reads once all are running. It loads
// our TypeScript itself: run it with NODE_COMPILE_CACHE=<some dir>, twice, so that Node's TypeScript
// stripper (~25 MB, serve never loads it) is not in the second run's figures.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { getHeapCodeStatistics, getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { MemoryKeychain } from '../../electron/core/secrets/keychain.ts';
import { AppStateStore } from '../../electron/core/trust/app-state.ts';
import { startHeadless } from '../../electron/headless/serve.ts';
import { Core } from '../../electron/core/core.ts';
import { tempHome } from '../../test/helpers/temp-home.ts';
import { fixtureServer } from '../../test/helpers/servers.ts';

const { values: opts, positionals } = parseArgs({
  options: {
    idle: { type: 'string', default: '0' },
    snapshot: { type: 'string' },
    gc: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
const n = Number(positionals[0] ?? '0');
const idleS = Number(opts.idle);
const t = tempHome();
const servers = Object.fromEntries(
  Array.from({ length: n }, (_, i) => [`s${i}`, fixtureServer('env-echo-server.mjs')]),
);
t.writeServers({ mcpServers: servers });
const keychain = new MemoryKeychain();
const pre = new Core({ home: t.home, keychain, env: t.env });
pre.servers.load();
for (const name of Object.keys(servers)) pre.approvals.approve(name, pre.approvals.review(name).fingerprint);
new AppStateStore(t.home.stateFile).setIdleTimeout(idleS);
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
const h = await startHeadless({ home: t.home, keychain, env: t.env, port: 0, editorSync: false });
const ranOnce = new Set<string>();
const settled = () => {
  const all = h.core.status.report().servers;
  for (const s of all) if (s.state === 'running') ranOnce.add(s.name);
  return idleS > 0
    ? ranOnce.size === n && all.every((s) => s.state === 'idle')
    : all.every((s) => s.state === 'running');
};
const deadline = Date.now() + 300_000;
while (!settled() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
await new Promise((r) => setTimeout(r, 3000));
if (opts.gc) {
  console.log(`before a full GC: rss ${mb(process.memoryUsage().rss)}; ${residentByKind()}`);
  globalThis.gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  await new Promise((r) => setTimeout(r, 1000));
}
const m = process.memoryUsage();
console.log(
  `servers ${n}${idleS > 0 ? ` (ran once, now idle)` : ''}: rss ${mb(m.rss)} heapTotal ${mb(m.heapTotal)} heapUsed ${mb(m.heapUsed)} external ${mb(m.external)} arrayBuffers ${mb(m.arrayBuffers)}`,
);
for (const s of getHeapSpaceStatistics())
  if (s.space_size > 1024 * 1024)
    console.log(`  ${s.space_name}: size ${mb(s.space_size)} used ${mb(s.space_used_size)}`);
console.log(`  resident by kind: ${residentByKind()}`);
const code = getHeapCodeStatistics();
console.log(
  `  code: bytecode and metadata ${mb(code.bytecode_and_metadata_size)}, machine code ${mb(code.code_and_metadata_size)}, external scripts' source ${mb(code.external_script_source_size)}`,
);
if (opts.snapshot) console.log(`  heap snapshot: ${writeHeapSnapshot(opts.snapshot)}`);
await h.stop();
t.cleanup();

/**
 * Resident memory by mapping: files (the node binary, libraries), malloc's main heap ([heap]), V8's
 * heap pages (anonymous 256 KiB mappings) and other anonymous memory (malloc's thread arenas, stacks,
 * WebAssembly, V8's code space).
 */
function residentByKind(): string {
  const kb = new Map<string, number>();
  let kind = '';
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const size = parseInt(head[2] ?? '0', 16) - parseInt(head[1] ?? '0', 16);
      const name = head[3] ?? '';
      kind =
        name === '[heap]'
          ? 'malloc heap'
          : name.startsWith('/')
            ? name.endsWith('/node')
              ? 'node binary'
              : 'other files'
            : name === ''
              ? size === 256 * 1024
                ? 'V8 heap pages'
                : 'other anonymous'
              : name;
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) kb.set(kind, (kb.get(kind) ?? 0) + Number(rss[1]));
  }
  return [...kb]
    .filter(([, v]) => v >= 512)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${(v / 1024).toFixed(1)} MB`)
    .join(', ');
}
