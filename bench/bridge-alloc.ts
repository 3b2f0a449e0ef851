// What serve allocates per editor call, and how often it collects garbage for it: figures that do not
// move with the machine's load (unlike latency), behind the bridge's tail at 1 client (issue 27,
// docs/performance.md). serve runs with bench/child/heap-sampler.mjs preloaded: V8's sampling heap
// profiler, counting objects already collected too, over `--calls` sequential tools/call echo.
//
//   node_modules/.bin/node bench/bridge-alloc.ts [--upstream fast|everything] [--calls 2000] [--warmup 500]
//     [--base DIR]   (serve from another checkout, e.g. a `git worktree add` of an older commit)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { instanceFile } from '../electron/core/instance-file.ts';
import { approvedHome } from './approved-home.ts';
import { benchArgs, BIN, BIN_FLAGS, killHard, NODE, onCleanup, sleep, table } from './lib.ts';

const require = createRequire(import.meta.url);
const { values: opts } = parseArgs({
  args: benchArgs(),
  options: {
    upstream: { type: 'string', default: 'fast' },
    calls: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '500' },
    base: { type: 'string' },
  },
  strict: true,
});
const CALLS = Number(opts.calls);
const repo = opts.base === undefined ? undefined : resolve(opts.base);
const everything = opts.upstream === 'everything';
const server = everything
  ? {
      command: NODE,
      args: [require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
    }
  : { command: NODE, args: [new URL('./bridge-echo-server.mjs', import.meta.url).pathname] };

// A throwaway home with the server approved and an editor token (by the other checkout's code with --base).
const { t, token } = approvedHome({ up: server }, repo);

const out = join(mkdtempSync(join(tmpdir(), 'sb-alloc-')), 'sample.json');
const bin = repo ? join(repo, 'electron/cli/bin.mjs') : BIN;
const sampler = new URL('./child/heap-sampler.mjs', import.meta.url).pathname;
const serve = spawn(NODE, [...BIN_FLAGS, '--import', sampler, bin, 'serve', '--port', '0'], {
  env: { ...t.env, SB_HEAP_SAMPLE_OUT: out },
  stdio: ['ignore', 'pipe', 'pipe'],
});
serve.stdout.resume(); // its start-up notes: drained, not shown
serve.stderr.resume();
const pid = serve.pid;
if (pid === undefined) throw new Error('could not start switchboard serve');
onCleanup(() => killHard([pid]));

let seq = 0;
async function echo(client: Client): Promise<void> {
  const message = `m${++seq}`;
  const result = await client.callTool({ name: 'echo', arguments: { message } });
  if ((result.content as { text?: string }[] | undefined)?.[0]?.text !== `Echo: ${message}`)
    throw new Error(`echo answered ${JSON.stringify(result).slice(0, 200)}`);
}

/** The bridge is up once the instance file names its port and the server answers through it. */
async function connect(): Promise<Client> {
  for (let i = 0; ; i++) {
    try {
      const { port } = JSON.parse(readFileSync(instanceFile(t.home), 'utf8')) as { port: number };
      const client = new Client({ name: 'bench', version: '1.0.0' });
      const url = new URL(`http://127.0.0.1:${port}/mcp/up`);
      const headers = { authorization: `Bearer ${token}` };
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
      await echo(client);
      return client;
    } catch (err) {
      if (i > 600 || serve.exitCode !== null) throw err;
      await sleep(100);
    }
  }
}

const client = await connect();
for (let i = 0; i < Number(opts.warmup); i++) await echo(client);
writeFileSync(`${out}.start`, '');
await sleep(300); // the sampler looks every 50 ms
for (let i = 0; i < CALLS; i++) await echo(client);
writeFileSync(`${out}.stop`, '');
for (let i = 0; i < 300 && !existsSync(out); i++) await sleep(100);
await sleep(300); // written whole
await client.close();

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children: ProfileNode[];
}
const sample = JSON.parse(readFileSync(out, 'utf8')) as {
  error?: string;
  profile: { head: ProfileNode; samples: { nodeId: number; size: number }[] };
  gcs: { kind: number; ms: number }[];
};
if (sample.error) throw new Error(`the heap sampler in serve failed: ${sample.error}`);
const bytesAt = new Map<number, number>();
for (const s of sample.profile.samples) bytesAt.set(s.nodeId, (bytesAt.get(s.nodeId) ?? 0) + s.size);
// Each allocation goes to the innermost of Switchboard's own functions on its stack (what made it).
const byOwner = new Map<string, number>();
let total = 0;
const walk = (node: ProfileNode, owner: string): void => {
  const { url, functionName, lineNumber } = node.callFrame;
  const own = /\/(electron|shared)\//.test(url)
    ? `${functionName || '(anonymous)'} ${url.replace(/^.*\/(electron|shared)\//, '$1/')}:${lineNumber + 1}`
    : owner;
  const bytes = bytesAt.get(node.id) ?? 0;
  total += bytes;
  byOwner.set(own, (byOwner.get(own) ?? 0) + bytes);
  for (const child of node.children) walk(child, own);
};
walk(sample.profile.head, "Node's own (HTTP, streams, timers: no Switchboard function on the stack)");
const scavenges = sample.gcs.filter((g) => g.kind === 1);
console.log(
  `switchboard serve${repo ? ` from ${repo}` : ''}, ${everything ? 'server-everything' : 'the minimal echo server'}, ${CALLS} sequential calls:`,
);
console.log(`  allocated per call: ${(total / CALLS / 1024).toFixed(1)} KiB`);
console.log(
  `  garbage collections: ${scavenges.length} scavenges (one per ${(CALLS / Math.max(1, scavenges.length)).toFixed(0)} calls), ` +
    `${sample.gcs.length - scavenges.length} others (the sampling itself adds to them)`,
);
const rows = [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, 15);
console.log(table([['allocated by', 'B/call'], ...rows.map(([k, v]) => [k, (v / CALLS).toFixed(0)])]));
killHard([pid]);
process.exit(0);
