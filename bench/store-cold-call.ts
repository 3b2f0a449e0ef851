// The package store against npx: how long an editor waits for a call to an idle npm server started
// from its stored install (the bridge starts `node <bin>` from <home>/store, verifies the install,
// initializes it and relays the call) against the same package started through `npx -y` the way it
// ran before the store (npm asks the registry about the package at every start). Also: the store's
// check of an install at start (one lstat per entry) on the fixture and on a large tree, and the
// store's disk use for the fixture server.
//
//   node_modules/.bin/node bench/store-cold-call.ts [--runs 9] [--quick]
//
// The registry is the tests' local one (test/helpers/npm-registry.ts: packages in through `npm
// publish`), so npx's resolution costs a loopback round trip here; a real registry adds its latency.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MemoryKeychain } from '../electron/core/secrets/keychain.ts';
import { checkTree, stampTree } from '../electron/core/store/tree-stamp.ts';
import { startHeadless } from '../electron/headless/serve.ts';
import { formatBytes } from '../shared/store.ts';
import { editorToken, httpClient } from '../test/helpers/bridge.ts';
import { startNpmRegistry } from '../test/helpers/npm-registry.ts';
import { tempHome } from '../test/helpers/temp-home.ts';
import { benchArgs, finish, machineInfo, medianFigure, onCleanup, ROOT, sleep, type Figure } from './lib.ts';

const { values: opts } = parseArgs({
  args: benchArgs(),
  options: { runs: { type: 'string', default: '9' }, quick: { type: 'boolean', default: false } },
  strict: true,
});
const RUNS = opts.quick ? 3 : Number(opts.runs);
const load0 = loadavg();

const t = tempHome();
onCleanup(() => t.cleanup());
const registry = await startNpmRegistry();
onCleanup(() => void registry.close());
const fixtures = join(ROOT, 'test/fixtures/store');
await registry.publish(join(fixtures, 'sb-store-dep'));
await registry.publish(join(fixtures, 'sb-store-pkg'));
const env = { ...t.env, ...registry.npmEnv(join(t.dir, 'npm-cache')) };
delete env.NODE_OPTIONS;

t.writeServers({ mcpServers: { stored: { command: 'npx', args: ['-y', 'sb-store-pkg'], idleTimeout: 1 } } });
const h = await startHeadless({
  home: t.home,
  keychain: new MemoryKeychain(),
  env,
  port: 0,
  editorSync: false,
});
onCleanup(() => void h.stop());
h.core.approvals.approve('stored', (await h.core.approvals.preview('stored')).fingerprint);
const state = () => h.core.status.report().servers.find((s) => s.name === 'stored')?.state;
async function until(wanted: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (state() !== wanted) {
    if (Date.now() > deadline) throw new Error(`stored did not become ${wanted} (is ${state()})`);
    await sleep(20);
  }
}
await until('idle');
const editor = await httpClient(`http://127.0.0.1:${h.port}/mcp/stored`, editorToken(h.tokens));
const call = { name: 'greet', arguments: { name: 'bench' } };

const fromStore: number[] = [];
const throughNpx: number[] = [];
for (let round = 0; round < RUNS; round++) {
  await until('idle');
  await sleep(300);
  let started = performance.now();
  await editor.callTool(call);
  fromStore.push(performance.now() - started);

  started = performance.now();
  const client = new Client({ name: 'bench-npx', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: 'npx',
    args: ['-y', 'sb-store-pkg'],
    env: env as Record<string, string>,
    stderr: 'ignore',
  });
  await client.connect(transport);
  await client.callTool(call);
  throughNpx.push(performance.now() - started);
  await client.close();
  console.log(
    `round ${round + 1}: from the store ${fromStore.at(-1)?.toFixed(0)} ms, through npx -y ${throughNpx.at(-1)?.toFixed(0)} ms`,
  );
}
await editor.close();

// The check every start makes, on the fixture's install and on a large tree (this checkout's
// node_modules/@modelcontextprotocol: the SDK, servers and the inspector, thousands of entries).
function checkCost(root: string): { ms: number[]; entries: number } {
  const stamp = stampTree(root);
  const ms: number[] = [];
  for (let i = 0; i < 15; i++) {
    const started = performance.now();
    if (!checkTree(root, stamp).ok) throw new Error(`${root} changed while measured`);
    ms.push(performance.now() - started);
  }
  return { ms, entries: stamp.paths.length };
}
const usage = h.core.store.storeUsage();
const install = join(t.home.store, usage.installs[0]?.id ?? '');
const small = checkCost(install);
const large = checkCost(join(ROOT, 'node_modules/@modelcontextprotocol'));
await h.stop();

const figures: Figure[] = [
  medianFigure('cold call to an idle npm server started from the store', fromStore, 'ms'),
  medianFigure('the same package started through npx -y, initialized and called', throughNpx, 'ms'),
  medianFigure(`the install check at each start: the fixture (${small.entries} entries)`, small.ms, 'ms'),
  medianFigure(`the install check at each start: a large tree (${large.entries} entries)`, large.ms, 'ms', {
    op: '<=',
    limit: 50,
    text: "Switchboard's own share of a cold call ≤ 50 ms",
  }),
  {
    name: 'store disk use for the fixture server (2 packages)',
    value: usage.bytes,
    unit: 'B',
    detail: formatBytes(usage.bytes),
  },
];
finish({
  bench: 'store-cold-call',
  title: 'cold start from the package store vs npx -y',
  machine: machineInfo(load0),
  figures,
  notes: [
    `${RUNS} rounds; each: wait until the stored server is idle (idle timeout 1 s), call it through /mcp/stored; then start the same package with npx -y through the SDK's stdio client, initialize and call`,
    'npx here resolves against a local registry on 127.0.0.1 with a warm npm cache: the smallest cost npx can have; a real registry adds a network round trip or more per start',
  ],
});
