// Where the 1-client tail of the bridge goes (issue 27): sequential SDK callTool('echo') through
// `switchboard serve` with bench/child/call-trace.mjs preloaded into serve, which timestamps every HTTP
// request, socket write, pipe read and GC on the clock this client uses. Each call splits into five spans:
//
//   client→serve   the client's send until serve has parsed the POST's headers (client work + serve waking up)
//   serve in       the POST's headers until serve's write to the server's stdin
//   server         that write until serve reads the server's answer (the server + two hand-offs)
//   serve out      that read until serve writes the HTTP answer
//   serve→client   that write until the client has the result (the client waking, its parse)
//
// and the slowest calls are set against the median call, with the GCs (serve's, the client's) they
// overlap. The trace's hooks cost serve a little per write; bench/bridge.ts is the figure of record.
// Figures: docs/performance.md ("Run 7").
//
//   node_modules/.bin/node bench/bridge-tail.ts [--upstream fast|everything] [--calls 1000]
//     [--warmup 300] [--rounds 3] [--slowest 0.02] [--sched] [--serve-flags='--single-threaded-gc …']
//
// --sched (root, Linux `perf`): records the scheduler (`perf sched record -k CLOCK_MONOTONIC`) during
// the calls and adds, per call, how long the process the call was waiting on (serve, the client or the
// server) was runnable but had no CPU (woken and not yet on one, or preempted): time no code of theirs
// could shorten; what the CPUs ran meanwhile (other processes, or the three's own V8 helper threads);
// and how long serve stayed on its CPU after each of its two writes.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InstanceInfoSchema } from '../shared/api.ts';
import { StatusReportSchema } from '../shared/status.ts';
import { CONTROL_TOKEN, readToken } from '../electron/core/tokens/token-file.ts';
import { instanceFile } from '../electron/core/instance-file.ts';
import { approvedHome } from './approved-home.ts';
import {
  benchArgs,
  BIN,
  BIN_FLAGS,
  killHard,
  descendants,
  NODE,
  onCleanup,
  sleep,
  table,
  systemBusyPercent,
} from './lib.ts';

const require = createRequire(import.meta.url);
const { values: opts } = parseArgs({
  args: benchArgs(),
  options: {
    upstream: { type: 'string', default: 'fast' },
    calls: { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '3' },
    slowest: { type: 'string', default: '0.02' },
    sched: { type: 'boolean', default: false },
    'serve-flags': { type: 'string', default: '' },
  },
  strict: true,
});
const CALLS = Number(opts.calls);
const ROUNDS = Number(opts.rounds);
const SLOWEST = Number(opts.slowest);
const server =
  opts.upstream === 'everything'
    ? {
        command: NODE,
        args: [require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
      }
    : { command: NODE, args: [new URL('./bridge-echo-server.mjs', import.meta.url).pathname] };

// This process's clock, on CLOCK_MONOTONIC as call-trace.mjs puts serve's.
const offset = Number(process.hrtime.bigint()) / 1e6 - performance.now();
const now = () => performance.now() + offset;
const clientGcs: [number, number][] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    clientGcs.push([e.startTime + offset, e.startTime + offset + e.duration]);
}).observe({ entryTypes: ['gc'] });

// A throwaway home with the server approved and an editor token.
const { t, token } = approvedHome({ [opts.upstream]: server });
const traceFile = join(t.dir, 'trace.json');
const preload = new URL('./child/call-trace.mjs', import.meta.url).href;
const serveFlags = opts['serve-flags'].split(' ').filter(Boolean);
const serve = spawn(NODE, ['--import', preload, ...BIN_FLAGS, ...serveFlags, BIN, 'serve', '--port', '0'], {
  env: { ...t.env, SB_CALL_TRACE: traceFile },
  stdio: 'ignore',
});
const pid = serve.pid as number;
onCleanup(() => killHard([pid, ...descendants(pid)]));

let port: number | undefined;
for (;;) {
  try {
    port ??= InstanceInfoSchema.parse(JSON.parse(readFileSync(instanceFile(t.home), 'utf8'))).port;
    const res = await fetch(`http://127.0.0.1:${port}/api/status`, {
      headers: { authorization: `Bearer ${readToken(t.home.tokens, CONTROL_TOKEN)}` },
    });
    const report = StatusReportSchema.parse(await res.json());
    if (report.servers.some((s) => s.state === 'running' && s.toolCount)) break;
  } catch {
    // not up yet
  }
  await sleep(100);
}

const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(
  new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp/${opts.upstream}`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  }),
);
let seq = 0;
const call = async () => {
  const message = `m${++seq}`;
  const result = await client.callTool({ name: 'echo', arguments: { message } });
  if ((result.content as { text?: string }[])[0]?.text !== `Echo: ${message}`) throw new Error('bad echo');
};
for (let i = 0; i < Number(opts.warmup); i++) await call();
const calls: [number, number][] = [];
let clientCpuUs = 0;
const schedData = join(t.dir, 'sched.data');
if (opts.sched) {
  try {
    execFileSync('perf', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      '--sched needs Linux perf (Debian: apt-get install linux-perf) and root to record the scheduler',
    );
  }
}
const perf = opts.sched
  ? spawn('perf', ['sched', 'record', '-k', 'CLOCK_MONOTONIC', '-o', schedData], { stdio: 'ignore' })
  : undefined;
if (perf) {
  onCleanup(() => perf.kill('SIGKILL'));
  await sleep(1500); // perf's start-up
}
for (let r = 0; r < ROUNDS; r++) {
  // Like bench/bridge.ts: each round waits (up to 60 s) for the machine to be < 25 % busy.
  const quietBy = performance.now() + 60_000;
  while ((await systemBusyPercent(300)) > 25 && performance.now() < quietBy) await sleep(700);
  await call();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < Math.ceil(CALLS / ROUNDS); i++) {
    const t0 = now();
    await call();
    calls.push([t0, now()]);
  }
  const cpu = process.cpuUsage(cpu0);
  clientCpuUs += cpu.user + cpu.system;
}
const roles = new Map<number, Role>([
  [pid, 'serve'],
  [process.pid, 'client'],
  ...descendants(pid).map((p): [number, Role] => [p, 'server']),
]);
if (perf) {
  perf.kill('SIGINT');
  await new Promise((resolve) => perf.once('exit', resolve));
}
serve.kill('SIGUSR2');
let trace: { events: [number, string, number][] } | undefined;
for (let i = 0; i < 50 && !trace; i++) {
  await sleep(100);
  try {
    trace = JSON.parse(readFileSync(traceFile, 'utf8')) as typeof trace;
  } catch {
    // not written yet
  }
}
await client.close();
killHard([pid, ...descendants(pid)]);
if (!trace) throw new Error('serve wrote no trace');

const sched = perf ? schedOf(schedData, roles) : undefined;
const cpuWaits = sched?.waits;
const events = trace.events;
const serveGcs: [number, number][] = [];
for (let i = 0, open = 0; i < events.length; i++) {
  const [ts, k] = events[i] as [number, string, number];
  if (k === 'gc-start') open = ts;
  if (k === 'gc-end') serveGcs.push([open, ts]);
}
const SPANS = ['client→serve', 'serve in', 'server', 'serve out', 'serve→client'] as const;
interface Split {
  total: number;
  spans: number[];
  serveGc: number;
  clientGc: number;
  /** ms waiting for a CPU within the call: serve, client, server (with --sched) */
  waits: [number, number, number];
  /** of the call's time, ms in which the process it was waiting on was waiting for a CPU (with --sched) */
  critical: number;
  criticalSpans: [number, number][];
  /** how long serve stayed on its CPU after writing to the server's stdin, after writing the answer (with --sched) */
  lingers: [number, number];
}
/** How long serve's run slice went on after `at` (NaN without --sched or when not found). */
let runCursor = 0;
function ranOn(at: number): number {
  const runs = sched?.serveRuns ?? [];
  while (runCursor < runs.length && (runs[runCursor] as [number, number])[1] < at) runCursor++;
  const run = runs[runCursor];
  return run && run[0] <= at ? run[1] - at : NaN;
}
// Events are sorted; each call's request, then the pipe-write, pipe-read and tcp-write after it.
let cursor = 0;
const overlap = (gcs: [number, number][], a: number, b: number) =>
  gcs.reduce((s, [x, y]) => s + Math.max(0, Math.min(b, y) - Math.max(a, x)), 0);
const splits: Split[] = [];
for (const [t0, t1] of calls) {
  while (cursor < events.length && (events[cursor] as [number, string, number])[0] < t0) cursor++;
  const find = (kind: string, from: number) => {
    for (let i = from; i < events.length && (events[i] as [number, string, number])[0] <= t1; i++)
      if ((events[i] as [number, string, number])[1] === kind) return i;
    return -1;
  };
  const r = find('request', cursor);
  const w = r < 0 ? -1 : find('pipe-write', r);
  const o = w < 0 ? -1 : find('pipe-read', w);
  const f = o < 0 ? -1 : find('tcp-write', o);
  if (f < 0) continue;
  const ts = [r, w, o, f].map((i) => (events[i] as [number, string, number])[0]) as [
    number,
    number,
    number,
    number,
  ];
  const criticalSpans: [number, number][] = [];
  splits.push({
    total: t1 - t0,
    spans: [ts[0] - t0, ts[1] - ts[0], ts[2] - ts[1], ts[3] - ts[2], t1 - ts[3]],
    serveGc: overlap(serveGcs, t0, t1),
    clientGc: overlap(clientGcs, t0, t1),
    waits: (['serve', 'client', 'server'] as const).map((role) =>
      cpuWaits ? overlap(cpuWaits.get(role) ?? [], t0, t1) : 0,
    ) as [number, number, number],
    critical: cpuWaits ? criticalWait(cpuWaits, [t0, ...ts, t1], criticalSpans) : 0,
    criticalSpans,
    lingers: [ranOn(ts[1]), ranOn(ts[3])],
  });
}
const byTotal = [...splits].sort((a, b) => a.total - b.total);
const pct = (p: number) => byTotal[Math.min(byTotal.length - 1, Math.ceil(p * byTotal.length) - 1)] as Split;
const slow = byTotal.slice(Math.floor(byTotal.length * (1 - SLOWEST)));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const rows: string[][] = [
  ['span (ms)', 'median call', `slowest ${slow.length}: mean`, 'slowest: median', 'slowest: max'],
];
SPANS.forEach((name, i) => {
  const of = (s: Split) => s.spans[i] as number;
  rows.push([
    name,
    median(splits.map(of)).toFixed(3),
    mean(slow.map(of)).toFixed(3),
    median(slow.map(of)).toFixed(3),
    Math.max(...slow.map(of)).toFixed(3),
  ]);
});
rows.push([
  'total',
  median(splits.map((s) => s.total)).toFixed(3),
  mean(slow.map((s) => s.total)).toFixed(3),
  median(slow.map((s) => s.total)).toFixed(3),
  Math.max(...slow.map((s) => s.total)).toFixed(3),
]);
console.log(
  `bridge tail: ${splits.length} of ${calls.length} calls traced, ${opts.upstream} server, 1 client`,
);
console.log(
  `p50 ${pct(0.5).total.toFixed(3)} ms, p98 ${pct(0.98).total.toFixed(3)} ms, p99 ${pct(0.99).total.toFixed(3)} ms`,
);
console.log(table(rows));
const withServeGc = slow.filter((s) => s.serveGc > 0).length;
const withClientGc = slow.filter((s) => s.clientGc > 0).length;
console.log(
  `slowest ${slow.length}: ${withServeGc} overlap a serve GC (all calls: ${splits.filter((s) => s.serveGc > 0).length}), ` +
    `${withClientGc} a client GC (all calls: ${splits.filter((s) => s.clientGc > 0).length}); ` +
    `serve GCs ${serveGcs.length} (median ${median(serveGcs.map(([a, b]) => b - a)).toFixed(2)} ms), client GCs ${clientGcs.length}`,
);
if (cpuWaits) {
  const waited = (s: Split) => s.waits[0] + s.waits[1] + s.waits[2];
  const excess = (s: Split) => s.total - median(splits.map((x) => x.total));
  console.log(
    `waiting for a CPU (serve / client / server), ms per call: median call ` +
      `${['serve', 'client', 'server'].map((_, i) => median(splits.map((s) => s.waits[i] as number)).toFixed(3)).join(' / ')}; ` +
      `slowest ${slow.length}: mean ${[0, 1, 2].map((i) => mean(slow.map((s) => s.waits[i] as number)).toFixed(3)).join(' / ')}; ` +
      `the slowest calls' time above the median call: ${mean(slow.map(excess)).toFixed(3)} ms; ` +
      `their time on the critical path waiting for a CPU: ${mean(slow.map((s) => s.critical)).toFixed(3)} ms (median call ${median(splits.map((s) => s.critical)).toFixed(3)}); ` +
      `calls with > 1 ms of waiting: ${splits.filter((s) => waited(s) > 1).length} of ${splits.length}`,
  );
}
if (sched) {
  const q = (xs: number[], p: number) => {
    const sorted = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
    return (sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? NaN).toFixed(3);
  };
  const after = (i: 0 | 1) => splits.map((s) => s.lingers[i]);
  console.log(
    `serve stays on its CPU after writing to the server's stdin: median ${q(after(0), 0.5)} ms, p90 ${q(after(0), 0.9)}, p99 ${q(after(0), 0.99)}; ` +
      `after writing the answer: median ${q(after(1), 0.5)} ms, p90 ${q(after(1), 0.9)}, p99 ${q(after(1), 0.99)}`,
  );
}
if (sched) {
  // While the slowest calls waited for a CPU, what held the CPUs (CPU-ms, 2 CPUs: up to twice the wait).
  const held = new Map<string, number>();
  let waitedMs = 0;
  for (const s of slow)
    for (const [a, b] of s.criticalSpans) {
      waitedMs += b - a;
      for (const [x, y, who] of sched.others) {
        const o = Math.min(b, y) - Math.max(a, x);
        if (o > 0) held.set(who, (held.get(who) ?? 0) + o);
      }
    }
  const ranked = [...held].sort((x, y) => y[1] - x[1]).slice(0, 6);
  const from = (calls[0] as [number, number])[0];
  const to = (calls.at(-1) as [number, number])[1];
  const busy = new Map<string, number>();
  for (const [x, y, who] of sched.others) {
    const o = Math.min(to, y) - Math.max(from, x);
    if (o > 0) busy.set(who, (busy.get(who) ?? 0) + o);
  }
  console.log(
    `CPU besides our main threads from the first call to the last (${(to - from).toFixed(0)} ms, CPU-ms): ` +
      [...busy]
        .sort((x, y) => y[1] - x[1])
        .slice(0, 6)
        .map(([who, ms]) => `${who} ${ms.toFixed(1)}`)
        .join(', '),
  );
  console.log(
    `while the slowest ${slow.length} waited for a CPU (${waitedMs.toFixed(1)} ms in all), the CPUs ran (CPU-ms): ` +
      ranked.map(([who, ms]) => `${who} ${ms.toFixed(1)}`).join(', '),
  );
}
console.log(`client CPU µs/call ${(clientCpuUs / calls.length).toFixed(0)}`);
console.log(
  'slowest calls (ms): total = client→serve | serve in | server | serve out | serve→client  [serve GC, client GC]' +
    (cpuWaits ? '  {waiting for a CPU: serve, client, server}' : ''),
);
for (const s of slow.slice(-Math.min(slow.length, 25)))
  console.log(
    `  ${s.total.toFixed(2)} = ${s.spans.map((x) => x.toFixed(2)).join(' | ')}  [${s.serveGc.toFixed(2)}, ${s.clientGc.toFixed(2)}]` +
      (cpuWaits
        ? `  {${s.waits.map((x) => x.toFixed(2)).join(', ')}; critical ${s.critical.toFixed(2)}}`
        : ''),
  );

type Role = 'serve' | 'client' | 'server';

/**
 * Who a call waits on in each span (client→serve: the client sending or serve waking; serve in/out:
 * serve; server: the server or serve waking to read it; serve→client: the client), and the time in
 * which one of them was waiting for a CPU: the union of their waits, clipped to the span.
 */
function criticalWait(
  waits: Map<Role, [number, number][]>,
  bounds: number[],
  into: [number, number][] = [],
): number {
  let sum = 0;
  const onPath: Role[][] = [['client', 'serve'], ['serve'], ['server', 'serve'], ['serve'], ['client']];
  onPath.forEach((roles, i) => {
    const from = bounds[i] as number;
    const to = bounds[i + 1] as number;
    const clipped = roles
      .flatMap((r) => waits.get(r) ?? [])
      .filter(([a, b]) => b > from && a < to)
      .map(([a, b]): [number, number] => [Math.max(a, from), Math.min(b, to)])
      .sort((x, y) => x[0] - y[0]);
    let reach = from;
    for (const [a, b] of clipped) {
      if (b <= reach) continue;
      sum += b - Math.max(a, reach);
      into.push([Math.max(a, reach), b]);
      reach = b;
    }
  });
  return sum;
}

/**
 * From `perf sched timehist`: each main thread's spans of waiting for a CPU (woken until on a CPU;
 * after being preempted, the whole time until back on one), per role, on CLOCK_MONOTONIC in ms.
 */
function schedOf(
  data: string,
  roles: Map<number, Role>,
): {
  waits: Map<Role, [number, number][]>;
  serveRuns: [number, number][];
  /** what ran on the CPUs (not our main threads): [from, to, whose] */
  others: [number, number, string][];
} {
  const text = execFileSync('perf', ['sched', 'timehist', '-i', data, '--state'], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const waits = new Map<Role, [number, number][]>([
    ['serve', []],
    ['client', []],
    ['server', []],
  ]);
  const last = new Map<number, { end: number; state: string }>();
  const serveRuns: [number, number][] = [];
  const others: [number, number, string][] = [];
  const LINE =
    /^\s*([\d.]+)\s+\[\d+\]\s+(\S*?)\[(\d+)(?:\/(\d+))?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\S+)/;
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const tid = Number(m[3]);
    const end = Number(m[1]) * 1000;
    const role = roles.get(tid); // main threads only: tid = pid
    if (!role) {
      const owner = roles.get(Number(m[4] ?? m[3]));
      others.push([end - Number(m[7]), end, owner ? `${owner}'s ${m[2] ?? ''} thread` : 'other processes']);
      continue;
    }
    const schedIn = end - Number(m[7]);
    const before = last.get(tid);
    const from = before?.state === 'R' ? before.end : schedIn - Number(m[6]);
    if (schedIn > from) waits.get(role)?.push([from, schedIn]);
    if (role === 'serve') serveRuns.push([schedIn, end]);
    last.set(tid, { end, state: m[8] as string });
  }
  return { waits, serveRuns, others };
}
