// The sandbox's cost (design.md: <= 30 ms added per server start, nothing measurable per call).
//
//   node bench/sandbox.ts [--runs N] [--calls N] [--quick] [--node PATH]
//
// Start: spawn → first answer to `initialize` of a minimal hand-written server (test/fixtures/
// mini-server.mjs, so the server's own start is small next to what is measured), run three ways in
// turn (interleaved, so a busy machine weighs on all alike): unsandboxed; sandboxed with the default
// policy (bubblewrap, plus socat relaying its filtered network to a proxy in this process); sandboxed
// with "network": "none" (bubblewrap alone). The sandboxed times include building the policy and the
// bubblewrap command line and starting the proxy, as the core does at each start. Per call: tools/call
// round trips over stdio to a running server, sandboxed and not (the sandbox does not touch stdio).
// --node: the Node the server runs on (default: this one). On a Node without NODE_USE_ENV_PROXY
// (before 22.21 / 24.5) that way is the sandbox without the preload, so it shows the preload's cost.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { SandboxSetting } from '../shared/schema/servers.ts';
import { sandboxPolicy } from '../electron/core/sandbox/policy.ts';
import { Sandboxes, type Program } from '../electron/core/sandbox/sandboxes.ts';
import { detectSandboxSupport } from '../electron/core/sandbox/support.ts';
import {
  benchArgs,
  finish,
  fixture,
  machineInfo,
  medianFigure,
  NODE,
  onCleanup,
  clockTicks,
  descendants,
  procStat,
  summarize,
  type Figure,
} from './lib.ts';

const { values } = parseArgs({
  args: benchArgs(),
  options: {
    runs: { type: 'string', default: '30' },
    calls: { type: 'string', default: '2000' },
    quick: { type: 'boolean', default: false },
    node: { type: 'string', default: NODE },
  },
});
const SERVER_NODE = values.node;
const runs = values.quick ? 5 : Number(values.runs);
const calls = values.quick ? 200 : Number(values.calls);
const loadStart = loadavg();

const support = detectSandboxSupport();
if (!support.engine || !support.networkFilter) {
  console.error(`no sandbox here: ${support.missing || support.networkFilterMissing}`);
  process.exit(1);
}
const dir = mkdtempSync(join(tmpdir(), 'sb-sandbox-bench-'));
onCleanup(() => rmSync(dir, { recursive: true, force: true }));
const home = join(dir, 'user');
const switchboardHome = join(dir, 'switchboard');
const ownFolder = join(switchboardHome, 'data', 'bench');
mkdirSync(ownFolder, { recursive: true });
const sandboxes = new Sandboxes({ support });
const server = fixture('mini-server.mjs');
const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: home };

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
});

type Way = 'unsandboxed' | 'sandboxed' | 'node env proxy' | 'no network';
const SETTINGS: Record<Way, SandboxSetting | undefined | 'off'> = {
  unsandboxed: 'off',
  sandboxed: undefined,
  // the default sandbox with Node's own NODE_USE_ENV_PROXY=1 instead of Switchboard's lazy preload
  // (sandbox/node-proxy.ts): what the preload saves
  'node env proxy': undefined,
  'no network': { network: 'none' },
};

async function program(way: Way): Promise<{ program: Program; release: () => Promise<void> }> {
  const plain: Program = { command: SERVER_NODE, args: [server], cwd: ownFolder, env };
  const setting = SETTINGS[way];
  if (setting === 'off') return { program: plain, release: async () => {} };
  const policy = sandboxPolicy({
    name: 'bench',
    setting,
    command: SERVER_NODE,
    args: [server],
    env: {},
    cwd: undefined,
    ownFolder,
    switchboardHome,
    userHome: home,
    support,
  });
  const wrapped = await sandboxes.wrap(plain, policy);
  if (way === 'node env proxy') {
    delete wrapped.program.env.NODE_OPTIONS;
    wrapped.program.env.NODE_USE_ENV_PROXY = '1';
  }
  return { program: wrapped.program, release: () => wrapped.run?.release() ?? Promise.resolve() };
}

/** Lines from a child's stdout, one promise at a time. */
function lines(child: ChildProcess): () => Promise<string> {
  let buffer = '';
  const waiting: ((line: string) => void)[] = [];
  const ready: string[] = [];
  child.stdout?.on('data', (d: Buffer) => {
    buffer += d.toString();
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const next = waiting.shift();
      if (next) next(line);
      else ready.push(line);
    }
  });
  return () => {
    const line = ready.shift();
    return line !== undefined ? Promise.resolve(line) : new Promise((resolve) => waiting.push(resolve));
  };
}

/** CPU (ms) of a process tree so far: each process's own and what it reaped. */
function treeCpuMs(pid: number): number {
  let ticks = 0;
  for (const p of [pid, ...descendants(pid)]) {
    const stat = procStat(p);
    if (stat) ticks += stat.utime + stat.stime + stat.cutime + stat.cstime;
  }
  return (ticks * 1000) / clockTicks();
}

const ownCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

interface Run {
  ms: number;
  cpu: number;
  child: ChildProcess;
  next: () => Promise<string>;
  release: () => Promise<void>;
}

async function start(way: Way): Promise<Run> {
  const t0 = performance.now();
  const own0 = ownCpuMs();
  const { program: p, release } = await program(way);
  const child = spawn(p.command, p.args, {
    cwd: p.cwd,
    env: p.env,
    stdio: ['pipe', 'pipe', 'ignore'],
    detached: true,
  });
  const next = lines(child);
  child.stdin?.write(`${INITIALIZE}\n`);
  await next();
  const ms = performance.now() - t0;
  // Everything of it that ran up to its answer, and this process's own part (policy, argv, proxy).
  const cpu = treeCpuMs(child.pid ?? 0) + (ownCpuMs() - own0);
  return { ms, cpu, child, next, release };
}

async function stop(run: { child: ChildProcess; release: () => Promise<void> }): Promise<void> {
  const gone = new Promise((resolve) => run.child.once('close', resolve));
  run.child.stdin?.end();
  await gone;
  await run.release();
}

const starts: Record<Way, number[]> = {
  unsandboxed: [],
  sandboxed: [],
  'node env proxy': [],
  'no network': [],
};
// CPU of one start, up to its answer to initialize: much less dependent on how busy the machine is
// than the wall-clock time (at 10 ms per clock tick, so a mean over many runs).
const cpu: Record<Way, number[]> = { unsandboxed: [], sandboxed: [], 'node env proxy': [], 'no network': [] };
for (let i = 0; i < runs + 1; i++) {
  for (const way of Object.keys(starts) as Way[]) {
    const run = await start(way);
    await stop(run);
    if (i > 0) {
      // the first round warms caches
      starts[way].push(run.ms);
      cpu[way].push(run.cpu);
    }
  }
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function callTimes(way: Way): Promise<number[]> {
  const run = await start(way);
  const times: number[] = [];
  for (let id = 2; id < calls + 2; id++) {
    const t0 = performance.now();
    run.child.stdin?.write(
      `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'tool-1', arguments: {} } })}\n`,
    );
    await run.next();
    times.push(performance.now() - t0);
  }
  await stop(run);
  return times.slice(Math.floor(calls / 10)); // warm-up
}
const plainCalls = await callTimes('unsandboxed');
const sandboxedCalls = await callTimes('sandboxed');
await sandboxes.dispose();

const median = (xs: number[]) => summarize(xs).median;
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)] ?? 0;
const figures: Figure[] = [
  medianFigure('start, unsandboxed (spawn → initialize answered)', starts.unsandboxed, 'ms'),
  medianFigure('start, sandboxed (default: bubblewrap + socat + proxy)', starts.sandboxed, 'ms'),
  medianFigure(
    'start, sandboxed, with NODE_USE_ENV_PROXY=1 instead of the preload',
    starts['node env proxy'],
    'ms',
  ),
  medianFigure('start, sandboxed with "network": "none" (bubblewrap only)', starts['no network'], 'ms'),
  {
    name: 'CPU per start, unsandboxed (all its processes, to initialize answered)',
    value: mean(cpu.unsandboxed),
    unit: 'ms',
  },
  {
    name: 'CPU added per start, default sandbox',
    value: mean(cpu.sandboxed) - mean(cpu.unsandboxed),
    unit: 'ms',
    budget: { op: '<=', limit: 30, text: 'sandbox: <= 30 ms added per server start' },
  },
  {
    name: 'CPU added per start, default sandbox with NODE_USE_ENV_PROXY=1 instead',
    value: mean(cpu['node env proxy']) - mean(cpu.unsandboxed),
    unit: 'ms',
  },
  {
    name: 'CPU added per start, "network": "none"',
    value: mean(cpu['no network']) - mean(cpu.unsandboxed),
    unit: 'ms',
  },
  {
    name: 'added per start (default sandbox, median of runs)',
    value: median(starts.sandboxed) - median(starts.unsandboxed),
    unit: 'ms',
  },
  {
    name: 'added per start, with NODE_USE_ENV_PROXY=1 instead',
    value: median(starts['node env proxy']) - median(starts.unsandboxed),
    unit: 'ms',
  },
  {
    name: 'added per start ("network": "none")',
    value: median(starts['no network']) - median(starts.unsandboxed),
    unit: 'ms',
  },
  medianFigure('tools/call round trip over stdio, unsandboxed', plainCalls, 'ms'),
  medianFigure('tools/call round trip over stdio, sandboxed', sandboxedCalls, 'ms'),
  {
    name: 'added per call, p50 (sandboxed − unsandboxed)',
    value: median(sandboxedCalls) - median(plainCalls),
    unit: 'ms',
    detail: `p99 ${p99(plainCalls).toFixed(3)} → ${p99(sandboxedCalls).toFixed(3)} ms`,
    budget: { op: '<=', limit: 0.05, text: 'sandbox: nothing measurable per call' },
  },
];
finish({
  bench: 'sandbox',
  title: `Sandbox cost per server start (${runs} runs each, interleaved) and per call (${calls} calls)`,
  machine: machineInfo(loadStart),
  figures,
  notes: [
    `server's Node ${SERVER_NODE}`,
    `engine ${support.engine.path}, network relay ${support.networkFilter.kind === 'socat' ? support.networkFilter.path : 'seatbelt'}${support.root ? ', as root' : ''}`,
  ],
});
