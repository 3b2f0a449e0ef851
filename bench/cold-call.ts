// A cold call: how long an editor waits for a tool call to an idle server (the bridge starts it,
// waits for its initialize and tool list, then relays the call), against the server's own start: a
// direct stdio client spawning the same server, initializing it and making the same call. The
// difference is Switchboard's share. Rounds interleave the two, so both meet the same machine load.
//
//   node_modules/.bin/node bench/cold-call.ts [--runs 15] [--server env-echo|everything] [--quick]
//
// Real `switchboard serve` (node bin.mjs serve) in a throwaway home, the server approved with an
// idle timeout of 1 s; an SDK client over Streamable HTTP on /mcp/<server> as the editor.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { ApiRoutes, InstanceInfoSchema } from '../shared/api.ts';
import { StatusReportSchema, type ServerState } from '../shared/status.ts';
import { CONTROL_TOKEN, readToken } from '../electron/core/tokens/token-file.ts';
import { Core } from '../electron/core/core.ts';
import { MemoryKeychain } from '../electron/core/secrets/keychain.ts';
import { instanceFile } from '../electron/core/instance-file.ts';
import { tempHome } from '../test/helpers/temp-home.ts';
import {
  benchArgs,
  BIN,
  BIN_FLAGS,
  descendants,
  exited,
  finish,
  fixture,
  killHard,
  machineInfo,
  medianFigure,
  NODE,
  onCleanup,
  runTimed,
  sleep,
  withTimeout,
  type Budget,
  type Figure,
} from './lib.ts';

const SHARE_BUDGET: Budget = {
  op: '<=',
  limit: 50,
  text: "a cold call to an idle server: the server's own start plus ≤ 50 ms",
};

const { values: opts } = parseArgs({
  args: benchArgs(),
  options: {
    runs: { type: 'string', default: '15' },
    server: { type: 'string', default: 'env-echo' },
    quick: { type: 'boolean', default: false },
  },
  strict: true,
});
const RUNS = opts.quick ? 3 : Number(opts.runs);

/** The server as both paths start it, and the call both make. */
function serverUnderTest(): { args: string[]; call: { name: string; arguments: Record<string, unknown> } } {
  if (opts.server === 'everything') {
    const require = createRequire(import.meta.url);
    const entry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
    return { args: [entry, 'stdio'], call: { name: 'echo', arguments: { message: 'cold' } } };
  }
  if (opts.server !== 'env-echo') throw new Error('--server is env-echo or everything');
  return { args: [fixture('env-echo-server.mjs')], call: { name: 'sleep', arguments: { ms: 1 } } };
}
const SERVER = serverUnderTest();

const t = tempHome();
onCleanup(() => t.cleanup());
delete t.env.NODE_OPTIONS;
t.writeServers({ mcpServers: { cold: { command: NODE, args: SERVER.args, idleTimeout: 1 } } });
{
  const core = new Core({ home: t.home, keychain: new MemoryKeychain(), env: t.env });
  core.servers.load();
  core.approvals.approve('cold', core.approvals.review('cold').fingerprint, 'cli');
}

const child = spawn(NODE, [...BIN_FLAGS, BIN, 'serve', '--port', '0'], {
  env: t.env,
  stdio: ['ignore', 'pipe', 'pipe'],
});
const servePid = child.pid ?? 0;
onCleanup(() => killHard([servePid, ...descendants(servePid)]));
let output = '';
child.stderr.on('data', (d: Buffer) => (output += d.toString()));
await withTimeout(
  new Promise<void>((resolve) =>
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('Switchboard is running')) resolve();
    }),
  ),
  30_000,
  'serve to start',
);
const info = InstanceInfoSchema.parse(JSON.parse(readFileSync(instanceFile(t.home), 'utf8')));
const base = `http://127.0.0.1:${info.port}`;
const control = readToken(t.home.tokens, CONTROL_TOKEN) ?? '';

async function state(): Promise<ServerState | undefined> {
  const res = await fetch(base + ApiRoutes.status, { headers: { authorization: `Bearer ${control}` } });
  return StatusReportSchema.parse(await res.json()).servers.find((s) => s.name === 'cold')?.state;
}

async function until(wanted: ServerState, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await state()) !== wanted) {
    if (Date.now() > deadline) throw new Error(`cold did not become ${wanted} (is ${await state()})`);
    await sleep(50);
  }
}

// First run after approval (it learns its lists), then idle.
await until('idle');
const token = await runTimed(NODE, [...BIN_FLAGS, BIN, 'token', 'create', 'bench'], t.env);
const editor = new Client({ name: 'bench', version: '1.0.0' });
await editor.connect(
  new StreamableHTTPClientTransport(new URL(`${base}/mcp/cold`), {
    requestInit: { headers: { Authorization: `Bearer ${token.stdout.trim()}` } },
  }),
);
if ((await state()) !== 'idle') throw new Error("the editor's initialize started the server");

const cold: number[] = [];
const warm: number[] = [];
const direct: number[] = [];
const load0 = loadavg();
for (let round = 0; round < RUNS; round++) {
  await until('idle');
  await sleep(300); // the old process is gone, not just stopping
  let started = performance.now();
  await editor.callTool(SERVER.call);
  cold.push(performance.now() - started);
  started = performance.now();
  await editor.callTool(SERVER.call);
  warm.push(performance.now() - started);

  started = performance.now();
  const client = new Client({ name: 'bench-direct', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: NODE, args: SERVER.args, stderr: 'ignore' });
  await client.connect(transport);
  await client.callTool(SERVER.call);
  direct.push(performance.now() - started);
  await client.close();
  console.log(
    `round ${round + 1}: cold call ${cold.at(-1)?.toFixed(1)} ms, direct start + call ${direct.at(-1)?.toFixed(1)} ms, warm call ${warm.at(-1)?.toFixed(2)} ms`,
  );
}
await editor.close();
child.kill('SIGTERM');
await exited(child);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const share = cold.map((c, i) => c - (direct[i] ?? NaN));
const figures: Figure[] = [
  medianFigure(`cold call to an idle server (${opts.server}), through the bridge`, cold, 'ms'),
  medianFigure(`the server's own start: spawn, initialize, the call (direct stdio)`, direct, 'ms'),
  medianFigure("Switchboard's share: cold call − direct start, per round", share, 'ms', SHARE_BUDGET),
  medianFigure('  for scale: the same call warm, through the bridge', warm, 'ms'),
];
console.log(
  `median cold ${median(cold).toFixed(1)} ms − direct ${median(direct).toFixed(1)} ms = ${(median(cold) - median(direct)).toFixed(1)} ms`,
);
finish({
  bench: 'cold-call',
  title: 'a cold call to an idle server',
  machine: machineInfo(load0),
  figures,
  notes: [
    `${RUNS} rounds; each: wait until the server is idle (idle timeout 1 s), call it through /mcp/cold (cold), call again (warm), then spawn it directly with the SDK's stdio client, initialize and make the same call`,
    "the editor's session stays open across rounds (its initialize was answered from the lists kept in the home, without starting the server)",
  ],
});
