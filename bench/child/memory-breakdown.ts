// Where the core's memory goes: process.memoryUsage() and V8 heap spaces after startHeadless() with
// N approved fixture servers, idle. Run: node bench/child/memory-breakdown.ts [N] (used while tuning).
import { getHeapSpaceStatistics } from 'node:v8';
import { MemoryKeychain } from '../../electron/core/secrets/keychain.ts';
import { startHeadless } from '../../electron/headless/serve.ts';
import { Core } from '../../electron/core/core.ts';
import { tempHome } from '../../test/helpers/temp-home.ts';
import { fixtureServer } from '../../test/helpers/servers.ts';

const n = Number(process.argv[2] ?? '0');
const t = tempHome();
const servers = Object.fromEntries(
  Array.from({ length: n }, (_, i) => [`s${i}`, fixtureServer('env-echo-server.mjs')]),
);
t.writeServers({ mcpServers: servers });
const keychain = new MemoryKeychain();
const pre = new Core({ home: t.home, keychain, env: t.env });
pre.load();
for (const name of Object.keys(servers)) pre.approve(name, pre.review(name).fingerprint);
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
const h = await startHeadless({ home: t.home, keychain, env: t.env, port: 0, editorSync: false });
const deadline = Date.now() + 120_000;
while (h.core.status().servers.some((s) => s.state !== 'running') && Date.now() < deadline)
  await new Promise((r) => setTimeout(r, 200));
await new Promise((r) => setTimeout(r, 3000));
const m = process.memoryUsage();
console.log(
  `servers ${n}: rss ${mb(m.rss)} heapTotal ${mb(m.heapTotal)} heapUsed ${mb(m.heapUsed)} external ${mb(m.external)} arrayBuffers ${mb(m.arrayBuffers)}`,
);
for (const s of getHeapSpaceStatistics())
  if (s.space_size > 1024 * 1024)
    console.log(`  ${s.space_name}: size ${mb(s.space_size)} used ${mb(s.space_used_size)}`);
await h.stop();
t.cleanup();
