// The bridge against calling a stdio server directly and against two peer bridges from npm, side by
// side in one run on the same cores, with the same client code (the MCP SDK `Client`); plus the
// aggregate `tools/list` on /mcp with 100 servers / 2,000 tools. Figures: docs/performance.md ("Bridge").
//
//   node_modules/.bin/node bench/bridge.ts                  (about 4 minutes on 2 cores)
//     [--upstream both|everything,fast,modern] [--paths direct,http-floor,switchboard,switchboard-2026,supergateway,mcp-proxy|none]
//     [--calls 3000] [--warmup 1000] [--clients 32] [--per-client 150] [--rounds 5] [--quiet-below 0.25]
//     [--agg-servers 100] [--agg-tools 20] [--agg-calls 200] [--no-aggregate]
//     [--cpu-prof DIR] [--latencies-out FILE] [--quick] [--json-out FILE] [--base DIR]
//
// Paths, each its own process beside the bench (the bench process is the client):
//   direct        StdioClientTransport → the server
//   http-floor    StreamableHTTPClientTransport → bench/bridge-http-floor.mjs, which answers echo itself:
//                 no bridge at all, the cost of the HTTP transport alone
//   switchboard   StreamableHTTPClientTransport → `switchboard serve` (node electron/cli/bin.mjs serve,
//                 a throwaway home, the server approved, an editor token) → /mcp/<server> → the server
//   supergateway  StreamableHTTPClientTransport → supergateway --stdio … --outputTransport streamableHttp --stateful
//   mcp-proxy     StreamableHTTPClientTransport → mcp-proxy --server stream -- …
//   switchboard-2026  the same as switchboard, its client the SDK v2 `Client` at MCP 2026-07-28 (no
//                 session: server/discover, then every request with its _meta envelope)
//   switchboard-base  the same as switchboard, from the checkout in `--base DIR` (another commit, e.g. a
//                 `git worktree add` of it with its node_modules): before and after in one run
// Upstreams: server-everything (`stdio`, its `echo` tool) and bench/bridge-echo-server.mjs (a hand-written
// server that answers `echo` as fast as Node can, so the path's own cost is what shows); `modern` (not in
// `both`): bench/bridge-modern-server.mjs, a remote server of the 2026-07-28 era only (SDK v2, stateless
// HTTP) as a url entry; its `direct` is the SDK v2 client at 2026-07-28 straight to it, and only the
// direct and switchboard paths run against it (both client eras: switchboard, switchboard-2026).
// `remote-2025` (not in `both`): bench/bridge-remote-2025-server.mjs, the same at 2025-11-25 (SDK v1,
// a session per client), its `direct` the SDK v1 client: the servers' side of both eras, side by side.
//
// Per path: `--calls` sequential calls from one client (p50/p99, calls/s), then `--clients` sessions
// calling back to back, `--per-client` calls each (calls/s). All paths of an upstream run at once and
// are measured in `--rounds` interleaved rounds (rotating order), each round waiting until the machine
// is quieter than `--quiet-below` (share of all cores), so other load falls on every path alike.
// `--cpu-prof DIR` runs serve under `node --cpu-prof` and prints its profile over the measured intervals.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InstanceInfoSchema } from '../shared/api.ts';
import { StatusReportSchema } from '../shared/status.ts';
import { CONTROL_TOKEN, readToken } from '../electron/core/tokens/token-file.ts';
import { instanceFile } from '../electron/core/instance-file.ts';
import type { TempHome } from '../test/helpers/temp-home.ts';
import { approvedHome } from './approved-home.ts';
import { summarizeProfile } from './bridge-profile.ts';
import {
  benchArgs,
  BIN,
  BIN_FLAGS,
  clockTicks,
  descendants,
  exited,
  finish,
  fixture,
  killHard,
  machineInfo,
  NODE,
  onCleanup,
  procStat,
  sleep,
  table,
  withTimeout,
  type Figure,
} from './lib.ts';

const require = createRequire(import.meta.url);

const { values: opts } = parseArgs({
  args: benchArgs(),
  options: {
    upstream: { type: 'string', default: 'both' },
    paths: { type: 'string', default: 'direct,http-floor,switchboard,supergateway,mcp-proxy' },
    rounds: { type: 'string', default: '5' },
    'quiet-below': { type: 'string', default: '0.25' },
    calls: { type: 'string', default: '3000' },
    warmup: { type: 'string', default: '1000' },
    clients: { type: 'string', default: '32' },
    'per-client': { type: 'string', default: '150' },
    'agg-servers': { type: 'string', default: '100' },
    'agg-tools': { type: 'string', default: '20' },
    'agg-calls': { type: 'string', default: '200' },
    'no-aggregate': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'latencies-out': { type: 'string' },
    quick: { type: 'boolean', default: false },
    base: { type: 'string' },
  },
  strict: true,
});
const CALLS = opts.quick ? 300 : Number(opts.calls);
const WARMUP = opts.quick ? 50 : Number(opts.warmup);
const CLIENTS = Number(opts.clients);
const PER_CLIENT = opts.quick ? 20 : Number(opts['per-client']);
const CONCURRENT_WARMUP = 10;
const AGG_SERVERS = opts.quick ? 10 : Number(opts['agg-servers']);
const AGG_TOOLS = Number(opts['agg-tools']);
const AGG_CALLS = opts.quick ? 50 : Number(opts['agg-calls']);
const PROFILE_DIR = opts['cpu-prof'];
const ROUNDS = opts.quick ? 2 : Number(opts.rounds);
/** a round starts once the machine is less busy than this (share of all cores), or after 60 s */
const QUIET_BELOW = Number(opts['quiet-below']);

const PATH_NAMES = [
  'direct',
  'http-floor',
  'switchboard',
  'switchboard-2026',
  'switchboard-base',
  'supergateway',
  'mcp-proxy',
] as const;
type PathName = (typeof PATH_NAMES)[number];
const paths = opts.paths
  .split(',')
  .map((p) => p.trim())
  .filter((p) => p && p !== 'none') as PathName[];
for (const p of paths)
  if (!PATH_NAMES.includes(p)) throw new Error(`unknown path "${p}" (${PATH_NAMES.join(', ')})`);
const BASE = opts.base === undefined ? undefined : resolve(opts.base);
if (paths.includes('switchboard-base') !== (BASE !== undefined))
  throw new Error('the path switchboard-base and --base DIR (the checkout it runs) go together');
/** The profile folder (and the windows) of a Switchboard path for an upstream. */
const profileKey = (path: PathName, u: Upstream) =>
  path === 'switchboard-base' ? `${u.key}-base` : path === 'switchboard-2026' ? `${u.key}-2026` : u.key;
/** The paths that run Switchboard (their CPU profile is summarised). */
const SWITCHBOARD_PATHS: readonly PathName[] = ['switchboard', 'switchboard-2026', 'switchboard-base'];

interface Upstream {
  key: 'everything' | 'fast' | 'modern' | 'remote-2025';
  label: string;
  command: string;
  args: string[];
  /** a remote server (HTTP): `command` starts it, and it is reached at `url` once it listens */
  remote?: { url?: string };
}

/** How the figures name each upstream. */
const TAGS: Record<Upstream['key'], string> = {
  everything: 'server-everything',
  fast: 'minimal server',
  modern: 'remote 2026-only server',
  'remote-2025': 'remote 2025 server',
};

/** The paths that can reach a remote upstream (the peers bridge stdio servers only). */
const REMOTE_PATHS: readonly PathName[] = ['direct', 'switchboard', 'switchboard-2026', 'switchboard-base'];

const UPSTREAMS: Upstream[] = [
  {
    key: 'everything',
    label: 'server-everything (echo)',
    command: NODE,
    args: [require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
  },
  {
    key: 'fast',
    label: 'minimal echo server (bench/bridge-echo-server.mjs)',
    command: NODE,
    args: [new URL('./bridge-echo-server.mjs', import.meta.url).pathname],
  },
  {
    key: 'modern',
    label:
      'remote echo server of MCP 2026-07-28 only (bench/bridge-modern-server.mjs, SDK v2, stateless HTTP)',
    command: NODE,
    args: [new URL('./bridge-modern-server.mjs', import.meta.url).pathname, '0'],
    remote: {},
  },
  {
    key: 'remote-2025',
    label: 'remote echo server of MCP 2025-11-25 (bench/bridge-remote-2025-server.mjs, SDK v1, sessions)',
    command: NODE,
    args: [new URL('./bridge-remote-2025-server.mjs', import.meta.url).pathname, '0'],
    remote: {},
  },
];
const wanted =
  opts.upstream === 'both' ? ['everything', 'fast'] : opts.upstream.split(',').map((k) => k.trim());
const upstreams = UPSTREAMS.filter((u) => wanted.includes(u.key));
if (upstreams.length === 0)
  throw new Error(`--upstream takes both, or any of everything,fast,modern,remote-2025`);

/** A command line for the peers that take one string (supergateway runs it with a shell). */
function shellLine(u: Upstream): string {
  return [u.command, ...u.args]
    .map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}

// ─── processes ────────────────────────────────────────────────────────────────────────────────────

interface Proc {
  child: ChildProcess;
  pid: number;
  output(): string;
  /** pids seen under it, so they are killed even after it is gone */
  seen: Set<number>;
}

function startProc(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Proc {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not spawn ${command}`);
  const seen = new Set<number>();
  onCleanup(() => killHard([pid, ...seen, ...descendants(pid)]));
  let output = '';
  const keep = (d: Buffer) => {
    output += d.toString();
    if (output.length > 64_000) output = output.slice(-32_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, pid, output: () => output, seen };
}

/** SIGTERM (each tool's clean shutdown path), then SIGKILL for anything left in its tree. */
async function stopProc(p: Proc): Promise<void> {
  for (const pid of descendants(p.pid)) p.seen.add(pid);
  p.child.kill('SIGTERM');
  await withTimeout(exited(p.child), 15_000, `pid ${p.pid} to exit`).catch(() => undefined);
  await sleep(100);
  killHard([p.pid, ...p.seen, ...descendants(p.pid)]);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** An error's message with its causes (fetch's "fetch failed" says nothing without them). */
function describe(err: unknown): string {
  let text = err instanceof Error ? err.message : String(err);
  for (let cause = err instanceof Error ? err.cause : undefined; cause;) {
    text += ` (cause: ${cause instanceof Error ? cause.message : String(cause)})`;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return text;
}

/** CPU time (ms) used so far by one process. */
function cpuMs(pid: number): number | null {
  const stat = procStat(pid);
  return stat ? ((stat.utime + stat.stime) * 1000) / clockTicks() : null;
}

// ─── clients ──────────────────────────────────────────────────────────────────────────────────────

/** What the bench uses of a client: the SDK v1 `Client` (2025-11-25) and the v2 one (2026-07-28). */
interface BenchClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

/** The SDK v2 client at 2026-07-28 exactly (pinned: no fallback to 2025, so the era measured is sure). */
async function modernClient(url: string, headers: Record<string, string>): Promise<BenchClient> {
  const client = new ModernClient(
    { name: 'bench', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new ModernTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

async function httpClient(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** Retries connecting until the endpoint answers MCP (the peers print no reliable ready line). */
async function httpClientWhenReady(
  url: string,
  headers: Record<string, string>,
  proc: Proc,
): Promise<Client> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    try {
      return await httpClient(url, headers);
    } catch (err) {
      if (proc.child.exitCode !== null)
        throw new Error(`${url}: the process exited:\n${proc.output()}`, { cause: err });
      if (performance.now() > deadline)
        throw new Error(`${url} not ready after 30 s:\n${proc.output()}`, { cause: err });
      await sleep(100);
    }
  }
}

interface Target {
  path: PathName;
  /** the proxy process (not the server) whose CPU is counted; undefined for direct */
  proxyPid: number | undefined;
  /** a new client session (direct: the one shared stdio connection) */
  connect(): Promise<BenchClient>;
  stop(): Promise<void>;
}

async function startDirect(u: Upstream): Promise<Target> {
  const url = u.remote?.url;
  if (url !== undefined)
    return {
      path: 'direct',
      proxyPid: undefined,
      connect: () => (u.key === 'modern' ? modernClient(url, {}) : httpClient(url, {})),
      stop: async () => {},
    };
  const transport = new StdioClientTransport({ command: u.command, args: u.args, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid !== null) onCleanup(() => killHard([pid]));
  return {
    path: 'direct',
    proxyPid: undefined,
    connect: async () => client,
    stop: async () => {
      await client.close();
      if (pid !== null) killHard([pid]);
    },
  };
}

interface Serve {
  proc: Proc;
  port: number;
  token: string;
  t: TempHome;
}

/** The flags of a checkout's bin.mjs shebang (as lib.ts BIN_FLAGS reads ours). */
function binFlags(bin: string): string[] {
  const line = readFileSync(bin, 'utf8').split('\n')[0] ?? '';
  return (/^#!.*?\bnode\b(.*)$/.exec(line)?.[1] ?? '').trim().split(/\s+/).filter(Boolean);
}

/**
 * `switchboard serve --port 0` as a child process (of the checkout in `repo`, else this one);
 * resolves once all `count` servers are running.
 */
async function startServe(
  servers: Record<string, { command: string; args: string[] } | { url: string }>,
  nodeFlags: string[] = [],
  repo?: string,
): Promise<Serve> {
  const { t, token } = approvedHome(servers, repo);
  const bin = repo === undefined ? BIN : join(repo, 'electron/cli/bin.mjs');
  const flags = repo === undefined ? BIN_FLAGS : binFlags(bin);
  const proc = startProc(NODE, [...nodeFlags, ...flags, bin, 'serve', '--port', '0'], t.env);
  const count = Object.keys(servers).length;
  const deadline = performance.now() + 60_000 + count * 1_000;
  let port: number | undefined;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`switchboard serve exited:\n${proc.output()}`);
    if (performance.now() > deadline)
      throw new Error(`switchboard serve: servers not running in time:\n${proc.output()}`);
    try {
      port ??= InstanceInfoSchema.parse(JSON.parse(readFileSync(instanceFile(t.home), 'utf8'))).port;
      const control = readToken(t.home.tokens, CONTROL_TOKEN);
      const res = await fetch(`http://127.0.0.1:${port}/api/status`, {
        headers: { authorization: `Bearer ${control}` },
      });
      // Another commit's report may have other fields: only these two are read.
      const report = repo === undefined ? StatusReportSchema.parse(await res.json()) : await looseStatus(res);
      if (report.servers.filter((s) => s.state === 'running' && s.toolCount).length === count) break;
    } catch {
      // not up yet
    }
    await sleep(100);
  }
  return { proc, port, token, t };
}

/** The short commit a checkout is at (and whether its work tree differs from it). */
function commitOf(repo: string): string {
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
  try {
    return (
      git('rev-parse', '--short', 'HEAD') +
      (git('status', '--porcelain', '--untracked-files=no') ? ' + changes' : '')
    );
  } catch {
    return 'unknown';
  }
}

async function looseStatus(res: Response): Promise<{ servers: { state: string; toolCount?: number }[] }> {
  const report = (await res.json()) as { servers?: { state: string; toolCount?: number }[] };
  return { servers: report.servers ?? [] };
}

function startSwitchboard(u: Upstream): Promise<Target> {
  return switchboardTarget(u, 'switchboard');
}

function startSwitchboard2026(u: Upstream): Promise<Target> {
  return switchboardTarget(u, 'switchboard-2026');
}

function startSwitchboardBase(u: Upstream): Promise<Target> {
  return switchboardTarget(u, 'switchboard-base', BASE);
}

async function switchboardTarget(u: Upstream, path: PathName, repo?: string): Promise<Target> {
  const dir = PROFILE_DIR && join(PROFILE_DIR, profileKey(path, u));
  const flags = dir ? ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${dir}`] : [];
  const entry = u.remote?.url !== undefined ? { url: u.remote.url } : { command: u.command, args: u.args };
  const serve = await startServe({ [u.key]: entry }, flags, repo);
  const url = `http://127.0.0.1:${serve.port}/mcp/${u.key}`;
  const headers = { authorization: `Bearer ${serve.token}` };
  return {
    path,
    proxyPid: serve.proc.pid,
    connect: () => (path === 'switchboard-2026' ? modernClient(url, headers) : httpClient(url, headers)),
    stop: async () => {
      await stopProc(serve.proc);
      serve.t.cleanup();
    },
  };
}

/** A peer process serving Streamable HTTP at `url` without auth; its first (readiness) client is reused. */
async function httpProcessTarget(path: PathName, args: string[], port: number): Promise<Target> {
  const proc = startProc(NODE, args);
  const url = `http://127.0.0.1:${port}/mcp`;
  let first: Client | undefined = await httpClientWhenReady(url, {}, proc);
  return {
    path,
    proxyPid: proc.pid,
    connect: async () => {
      const client = first ?? (await httpClient(url, {}));
      first = undefined;
      return client;
    },
    stop: () => stopProc(proc),
  };
}

async function startSupergateway(u: Upstream): Promise<Target> {
  const port = await freePort();
  // --stateful: one server process per session, kept for the session. The default (stateless) mode
  // spawns a new server process for every POST, which no latency figure survives. --logLevel none:
  // its default logs every message.
  const args = ['--stdio', shellLine(u), '--outputTransport', 'streamableHttp', '--stateful'];
  args.push('--port', String(port), '--logLevel', 'none');
  return httpProcessTarget('supergateway', [require.resolve('supergateway/dist/index.js'), ...args], port);
}

async function startMcpProxy(u: Upstream): Promise<Target> {
  const port = await freePort();
  // --server stream: Streamable HTTP only (no SSE endpoint); --no-eventStore: no resumability buffer,
  // which a request/response client never uses (its README's advice for such deployments).
  const args = ['--host', '127.0.0.1', '--port', String(port), '--server', 'stream', '--no-eventStore'];
  args.push('--', u.command, ...u.args);
  return httpProcessTarget('mcp-proxy', [require.resolve('mcp-proxy/dist/bin/mcp-proxy.mjs'), ...args], port);
}

/** Not a bridge: a Node HTTP endpoint that answers echo itself, i.e. the Streamable HTTP transport's own cost. */
async function startHttpFloor(): Promise<Target> {
  const port = await freePort();
  const script = new URL('./bridge-http-floor.mjs', import.meta.url).pathname;
  return httpProcessTarget('http-floor', [script, String(port)], port);
}

const STARTERS: Record<PathName, (u: Upstream) => Promise<Target>> = {
  direct: startDirect,
  'http-floor': startHttpFloor,
  switchboard: startSwitchboard,
  'switchboard-2026': startSwitchboard2026,
  'switchboard-base': startSwitchboardBase,
  supergateway: startSupergateway,
  'mcp-proxy': startMcpProxy,
};

// ─── measurements ─────────────────────────────────────────────────────────────────────────────────

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1] as number;
}

interface Run {
  p50: number;
  p99: number;
  mean: number;
  callsPerSec: number;
  /** CPU of the proxy process per call, µs (null for direct) */
  proxyCpuUs: number | null;
  /** CPU of the client (this process) per call, µs */
  clientCpuUs: number;
}

function runOf({ latencies, wallMs, cpuMs: proxyCpu, clientCpuMs }: Tally): Run {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    clientCpuUs: (clientCpuMs * 1000) / latencies.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    mean: sorted.reduce((s, v) => s + v, 0) / sorted.length,
    callsPerSec: (latencies.length * 1000) / wallMs,
    proxyCpuUs: proxyCpu === null ? null : (proxyCpu * 1000) / latencies.length,
  };
}

let seq = 0;
async function echo(client: BenchClient): Promise<void> {
  const message = `m${++seq}`;
  const result = await client.callTool({ name: 'echo', arguments: { message } });
  const content = (result as { content?: { type: string; text?: string }[] }).content;
  const text = content?.[0]?.text;
  if (text !== `Echo: ${message}`) throw new Error(`echo answered ${JSON.stringify(result).slice(0, 200)}`);
}

async function timedCalls(client: BenchClient, count: number, into: number[]): Promise<void> {
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await echo(client);
    into.push(performance.now() - t0);
  }
}

interface Tally {
  latencies: number[];
  wallMs: number;
  /** the proxy process's CPU */
  cpuMs: number | null;
  /** this (client) process's CPU */
  clientCpuMs: number;
}

const tally = (): Tally => ({ latencies: [], wallMs: 0, cpuMs: 0, clientCpuMs: 0 });

interface PathState {
  path: PathName;
  target?: Target;
  seqClient?: BenchClient;
  concClients: BenchClient[];
  seq: Tally;
  conc: Tally;
  error?: string;
}

/** Every latency measured, in call order, for --latencies-out. */
const rawLatencies: Record<string, { seq: number[]; conc: number[] }> = {};

interface PathResult {
  path: PathName;
  seq?: Run;
  conc?: Run;
  error?: string;
}

/** Monotonic time in µs: the clock V8's .cpuprofile timestamps use (CLOCK_MONOTONIC on Linux). */
const monoUs = () => Number(process.hrtime.bigint() / 1000n);

type Window = [from: number, to: number];
/** When switchboard was being measured, per profile folder: the profile is summarised over these only. */
const profileWindows = new Map<string, Record<string, Window[]>>();

function addWindow(dir: string, kind: string, window: Window): void {
  const windows = profileWindows.get(dir) ?? {};
  (windows[kind] ??= []).push(window);
  profileWindows.set(dir, windows);
}

/** Runs `work` on one path and adds its latencies, wall time and the proxy's and client's CPU to the tally. */
async function measure(
  u: Upstream,
  state: PathState,
  kind: 'seq' | 'conc',
  work: (latencies: number[]) => Promise<void>,
): Promise<void> {
  const into = state[kind];
  const pid = state.target?.proxyPid;
  const cpu0 = pid === undefined ? null : cpuMs(pid);
  const client0 = process.cpuUsage();
  const mono0 = monoUs();
  const t0 = performance.now();
  await work(into.latencies);
  into.wallMs += performance.now() - t0;
  const client = process.cpuUsage(client0);
  into.clientCpuMs += (client.user + client.system) / 1000;
  const cpu1 = pid === undefined ? null : cpuMs(pid);
  into.cpuMs = into.cpuMs === null || cpu0 === null || cpu1 === null ? null : into.cpuMs + cpu1 - cpu0;
  if (SWITCHBOARD_PATHS.includes(state.path)) addWindow(profileKey(state.path, u), kind, [mono0, monoUs()]);
}

/** Share of both cores busy over `ms` (everything on the machine: /proc/stat). */
async function machineBusy(ms = 300): Promise<number> {
  const read = () => {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    return { total: v.reduce((s, x) => s + x, 0), idle };
  };
  const a = read();
  await sleep(ms);
  const b = read();
  return b.total === a.total ? 0 : 1 - (b.idle - a.idle) / (b.total - a.total);
}

let noisy = 0;
/** Waits (up to 60 s) until other work on the machine leaves it mostly idle, so rounds are comparable. */
async function waitQuiet(): Promise<void> {
  const deadline = performance.now() + 60_000;
  for (;;) {
    const busy = await machineBusy();
    if (busy < QUIET_BELOW) return;
    if (performance.now() > deadline) {
      noisy++;
      return;
    }
    await sleep(700);
  }
}

/**
 * Every path of one upstream, started side by side and measured in interleaved rounds (the order
 * rotates each round), so a burst of other load on the machine falls on all paths alike.
 */
/** Starts a remote upstream's server; its url is set on `u.remote` once it listens. */
async function startRemote(u: Upstream): Promise<Proc> {
  const proc = startProc(u.command, u.args);
  const deadline = performance.now() + 20_000;
  for (;;) {
    const port = /listening (\d+)/.exec(proc.output())?.[1];
    if (port !== undefined) {
      if (u.remote) u.remote.url = `http://127.0.0.1:${port}/mcp`;
      return proc;
    }
    if (proc.child.exitCode !== null || performance.now() > deadline)
      throw new Error(`${u.label} did not start:\n${proc.output()}`);
    await sleep(50);
  }
}

async function measureUpstream(u: Upstream): Promise<PathResult[]> {
  const remote = u.remote ? await startRemote(u) : undefined;
  const own = u.remote ? paths.filter((p) => REMOTE_PATHS.includes(p)) : paths;
  const states: PathState[] = own.map((path) => ({ path, concClients: [], seq: tally(), conc: tally() }));
  const fail = (state: PathState, err: unknown) => {
    state.error = describe(err);
    say(`  ${state.path}: FAILED: ${state.error.split('\n')[0] ?? ''}`);
  };
  try {
    for (const state of states) {
      try {
        state.target = await STARTERS[state.path](u);
        state.seqClient = await state.target.connect();
        await timedCalls(state.seqClient, WARMUP, []);
        for (let i = 0; i < CLIENTS; i++) state.concClients.push(await state.target.connect());
        await Promise.all(state.concClients.map((c) => timedCalls(c, CONCURRENT_WARMUP, [])));
      } catch (err) {
        fail(state, err);
      }
    }
    for (let round = 0; round < ROUNDS; round++) {
      const order = states.map((_, i) => states[(i + round) % states.length] as PathState);
      for (const state of order) {
        const client = state.seqClient;
        if (state.error || !client) continue;
        await waitQuiet();
        // One untimed call first: the wait may have outlasted a keep-alive connection.
        await timedCalls(client, 1, [])
          .then(() => measure(u, state, 'seq', (into) => timedCalls(client, Math.ceil(CALLS / ROUNDS), into)))
          .catch((err: unknown) => fail(state, err));
      }
      for (const state of order) {
        if (state.error) continue;
        await waitQuiet();
        const perClient = Math.ceil(PER_CLIENT / ROUNDS);
        await Promise.all(state.concClients.map((c) => timedCalls(c, 1, [])))
          .then(() =>
            measure(u, state, 'conc', (into) =>
              Promise.all(state.concClients.map((c) => timedCalls(c, perClient, into))).then(() => undefined),
            ),
          )
          .catch((err: unknown) => fail(state, err));
      }
    }
  } finally {
    for (const state of states) {
      if (state.path !== 'direct')
        await Promise.all(state.concClients.map((c) => c.close().catch(() => undefined)));
      await state.target?.stop().catch(() => undefined);
    }
    if (remote) await stopProc(remote);
    await sleep(300);
  }
  for (const s of states)
    rawLatencies[`${u.key}/${s.path}`] = { seq: s.seq.latencies, conc: s.conc.latencies };
  return states.map((s) => {
    if (s.error) return { path: s.path, error: s.error };
    const seq = runOf(s.seq);
    const conc = runOf(s.conc);
    say(
      `  ${s.path}: p50 ${seq.p50.toFixed(3)} ms, p99 ${seq.p99.toFixed(3)} ms, 1 client ${seq.callsPerSec.toFixed(0)} calls/s, ` +
        `${CLIENTS} clients ${conc.callsPerSec.toFixed(0)} calls/s`,
    );
    return { path: s.path, seq, conc };
  });
}

// ─── aggregate tools/list ─────────────────────────────────────────────────────────────────────────

interface AggregateResult {
  servers: number;
  tools: number;
  sdk: { p50: number; p99: number };
  raw: { p50: number; p99: number; bytes: number };
  serveCpuUs: number | null;
}

async function aggregate(): Promise<AggregateResult> {
  const servers: Record<string, { command: string; args: string[] }> = {};
  for (let i = 1; i <= AGG_SERVERS; i++) {
    servers[`s${String(i).padStart(3, '0')}`] = {
      command: NODE,
      args: [fixture('mini-server.mjs'), `--tools=${AGG_TOOLS}`],
    };
  }
  const flags = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${join(PROFILE_DIR, 'aggregate')}`] : [];
  const t0 = performance.now();
  const serve = await startServe(servers, flags);
  say(`  ${AGG_SERVERS} servers running after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  try {
    const url = `http://127.0.0.1:${serve.port}/mcp`;
    const headers = { authorization: `Bearer ${serve.token}` };
    const client = await httpClient(url, headers);
    const expected = AGG_SERVERS * AGG_TOOLS;
    const first = await client.listTools();
    if (first.tools.length !== expected)
      throw new Error(`/mcp lists ${first.tools.length} tools, expected ${expected}`);
    // The SDK client as an editor would use it: HTTP + JSON.parse + the SDK's schema validation.
    for (let i = 0; i < 10; i++) await client.listTools();
    await sleep(2_000); // let the 100 fresh servers and the bridge settle
    await waitQuiet();
    await client.listTools(); // the wait may have outlasted a keep-alive connection
    const cpu0 = cpuMs(serve.proc.pid);
    const sdk: number[] = [];
    const sdkFrom = monoUs();
    for (let i = 0; i < AGG_CALLS; i++) {
      const s = performance.now();
      await client.listTools();
      sdk.push(performance.now() - s);
    }
    addWindow('aggregate', 'sdk', [sdkFrom, monoUs()]);
    const cpu1 = cpuMs(serve.proc.pid);
    // A bare JSON-RPC POST (no session): HTTP + JSON.parse only, so the bridge's own share shows.
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const post = async () => {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body,
      });
      const text = await res.text();
      const parsed = JSON.parse(text) as { result?: { tools?: unknown[] } };
      if (parsed.result?.tools?.length !== expected) throw new Error(`raw tools/list: ${text.slice(0, 200)}`);
      return text.length;
    };
    for (let i = 0; i < 10; i++) await post();
    await waitQuiet();
    await post();
    const raw: number[] = [];
    let bytes = 0;
    const rawFrom = monoUs();
    for (let i = 0; i < AGG_CALLS; i++) {
      const s = performance.now();
      bytes = await post();
      raw.push(performance.now() - s);
    }
    addWindow('aggregate', 'raw', [rawFrom, monoUs()]);
    await client.close();
    const sdkSorted = sdk.sort((a, b) => a - b);
    const rawSorted = raw.sort((a, b) => a - b);
    return {
      servers: AGG_SERVERS,
      tools: expected,
      sdk: { p50: percentile(sdkSorted, 0.5), p99: percentile(sdkSorted, 0.99) },
      raw: { p50: percentile(rawSorted, 0.5), p99: percentile(rawSorted, 0.99), bytes },
      serveCpuUs: cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) * 1000) / AGG_CALLS,
    };
  } finally {
    await stopProc(serve.proc);
    serve.t.cleanup();
  }
}

// ─── the run ──────────────────────────────────────────────────────────────────────────────────────

const say = (text: string) => console.log(text);
const load0 = loadavg();
const figures: Figure[] = [];
const notes: string[] = [];
const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? 'n/a' : v.toFixed(3));
const rate = (v: number | undefined) => (v === undefined ? 'n/a' : v.toFixed(0));
if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });

say(
  `bridge: ${CALLS} sequential calls (after ${WARMUP} warm-up), ${CLIENTS} clients × ${PER_CLIENT} calls (after ${CONCURRENT_WARMUP} each)`,
);
const results = new Map<string, PathResult[]>();
for (const u of paths.length ? upstreams : []) {
  say(`upstream: ${u.label}`);
  results.set(u.key, await measureUpstream(u));
}

for (const u of upstreams) {
  const list = results.get(u.key);
  if (!list) continue;
  const direct = list.find((r) => r.path === 'direct')?.seq;
  const rows = [
    [
      'path',
      'p50 ms',
      'p99 ms',
      'mean ms',
      '+p50 vs direct',
      '+p99 vs direct',
      '1 client calls/s',
      `${CLIENTS} clients calls/s`,
      `${CLIENTS}c p50 ms`,
      `${CLIENTS}c p99 ms`,
      'proxy CPU µs/call 1c/32c',
      'client CPU µs/call 1c/32c',
    ],
  ];
  for (const r of list) {
    if (!r.seq || !r.conc) {
      rows.push([r.path, `failed: ${(r.error ?? '').split('\n')[0]?.slice(0, 100) ?? ''}`]);
      continue;
    }
    const added = (v: number, d: number | undefined) =>
      d === undefined || r.path === 'direct' ? '' : (v - d).toFixed(3);
    rows.push([
      r.path,
      ms(r.seq.p50),
      ms(r.seq.p99),
      ms(r.seq.mean),
      added(r.seq.p50, direct?.p50),
      added(r.seq.p99, direct?.p99),
      rate(r.seq.callsPerSec),
      rate(r.conc.callsPerSec),
      r.conc.p50.toFixed(2),
      r.conc.p99.toFixed(2),
      r.seq.proxyCpuUs === null || r.conc.proxyCpuUs === null
        ? ''
        : `${r.seq.proxyCpuUs.toFixed(0)} / ${r.conc.proxyCpuUs.toFixed(0)}`,
      `${r.seq.clientCpuUs.toFixed(0)} / ${r.conc.clientCpuUs.toFixed(0)}`,
    ]);
  }
  say(`\n${u.label}: tools/call echo`);
  say(table(rows));

  const sb = list.find((r) => r.path === 'switchboard');
  if (sb?.seq && sb.conc) {
    const tag = TAGS[u.key];
    if (direct) {
      figures.push(
        {
          name: `${tag}: bridge adds, p50`,
          value: sb.seq.p50 - direct.p50,
          unit: 'ms',
          detail: `${ms(sb.seq.p50)} vs direct ${ms(direct.p50)}`,
          budget: { op: '<=', limit: 0.5, text: 'bridge adds ≤ 0.5 ms p50' },
        },
        {
          name: `${tag}: bridge adds, p99`,
          value: sb.seq.p99 - direct.p99,
          unit: 'ms',
          detail: `${ms(sb.seq.p99)} vs direct ${ms(direct.p99)}`,
          budget: { op: '<=', limit: 2, text: 'bridge adds ≤ 2 ms p99' },
        },
      );
    }
    const floor = list.find((r) => r.path === 'http-floor')?.seq;
    if (floor) {
      figures.push({
        name: `${tag}: bridge adds over http-floor, p50`,
        value: sb.seq.p50 - floor.p50,
        unit: 'ms',
        detail: `${ms(sb.seq.p50)} vs ${ms(floor.p50)}: the bridge's own share`,
      });
    }
    figures.push(
      { name: `${tag}: bridge, 1 client`, value: sb.seq.callsPerSec, unit: 'calls/s' },
      {
        name: `${tag}: bridge, ${CLIENTS} clients`,
        value: sb.conc.callsPerSec,
        unit: 'calls/s',
        detail: '≥ 2,000 wanted',
      },
      {
        name: `${tag}: bridge, ${CLIENTS} clients, wall time per call`,
        value: 1000 / sb.conc.callsPerSec,
        unit: 'ms',
        detail: '≤ 0.5 ms ⇔ ≥ 2,000 calls/s',
        budget: { op: '<=', limit: 0.5, text: '≥ 2,000 calls/s with 32 concurrent clients' },
      },
    );
    const peers = list.filter((r) => (r.path === 'supergateway' || r.path === 'mcp-proxy') && r.seq);
    for (const peer of peers) {
      if (!peer.seq) continue;
      figures.push({
        name: `${tag}: bridge p50 − ${peer.path} p50`,
        value: sb.seq.p50 - peer.seq.p50,
        unit: 'ms',
        detail: `${ms(sb.seq.p50)} vs ${ms(peer.seq.p50)}; p99 ${ms(sb.seq.p99)} vs ${ms(peer.seq.p99)}`,
        budget: { op: '<', limit: 0, text: `lower latency than ${peer.path}` },
      });
    }
  }
  // The 2026-07-28 era on the same bridge, against the same budgets and beside the 2025 path.
  const modern = list.find((r) => r.path === 'switchboard-2026');
  if (modern?.seq && modern.conc) {
    const tag = TAGS[u.key];
    if (direct)
      figures.push(
        {
          name: `${tag}: bridge at 2026-07-28 adds, p50`,
          value: modern.seq.p50 - direct.p50,
          unit: 'ms',
          detail: `${ms(modern.seq.p50)} vs direct ${ms(direct.p50)}`,
          budget: { op: '<=', limit: 0.5, text: 'bridge adds ≤ 0.5 ms p50' },
        },
        {
          name: `${tag}: bridge at 2026-07-28 adds, p99`,
          value: modern.seq.p99 - direct.p99,
          unit: 'ms',
          detail: `${ms(modern.seq.p99)} vs direct ${ms(direct.p99)}`,
          budget: { op: '<=', limit: 2, text: 'bridge adds ≤ 2 ms p99' },
        },
      );
    if (modern.seq.proxyCpuUs !== null)
      figures.push({
        name: `${tag}: bridge CPU per call at 2026-07-28, 1 client`,
        value: modern.seq.proxyCpuUs,
        unit: 'µs',
        detail: `2025-11-25 on the same run: ${sb?.seq?.proxyCpuUs?.toFixed(0) ?? 'n/a'} µs`,
      });
  }
  for (const r of list) if (r.error) notes.push(`${u.key}/${r.path} failed: ${r.error.split('\n')[0] ?? ''}`);
}

if (!opts['no-aggregate']) {
  say(
    `\naggregate tools/list on /mcp: ${AGG_SERVERS} servers × ${AGG_TOOLS} tools (test/fixtures/mini-server.mjs)`,
  );
  try {
    const a = await aggregate();
    say(
      table([
        ['client', 'p50 ms', 'p99 ms', 'detail'],
        ['SDK Client.listTools()', ms(a.sdk.p50), ms(a.sdk.p99), `${a.tools} tools, ${AGG_CALLS} calls`],
        [
          'bare POST + JSON.parse',
          ms(a.raw.p50),
          ms(a.raw.p99),
          `${(a.raw.bytes / 1024).toFixed(0)} KiB; serve CPU ${a.serveCpuUs === null ? 'n/a' : (a.serveCpuUs / 1000).toFixed(2)} ms/call`,
        ],
      ]),
    );
    // The budget is for 2,000 tools; a smaller run (--quick) prints its figures without one.
    const budget =
      a.tools >= 2000
        ? { op: '<=' as const, limit: 20, text: 'aggregate tools/list ≤ 20 ms (100 servers / 2,000 tools)' }
        : undefined;
    const fig = (name: string, value: number): Figure => ({
      name: `aggregate tools/list (${a.servers} servers, ${a.tools} tools), ${name}`,
      value,
      unit: 'ms',
      ...(budget ? { budget } : {}),
    });
    figures.push(
      fig('SDK client, p50', a.sdk.p50),
      fig('SDK client, p99', a.sdk.p99),
      fig('bare POST, p50', a.raw.p50),
      fig('bare POST, p99', a.raw.p99),
    );
  } catch (err) {
    const message = describe(err);
    say(`  aggregate FAILED: ${message}`);
    notes.push(`aggregate failed: ${message.split('\n')[0] ?? ''}`);
  }
}

if (paths.length)
  notes.push(
    `latency = one SDK callTool('echo') round trip, sequential, ${CALLS} calls after ${WARMUP} warm-up; added = bridge − direct stdio`,
    `${CLIENTS} clients = ${CLIENTS} separate sessions (direct: ${CLIENTS} concurrent callers on its one stdio connection), ${PER_CLIENT} calls each; calls/s = all calls / wall time`,
    'proxy CPU = user+system CPU of the proxy process alone (not the MCP server) per call',
    'peers: supergateway --stateful --logLevel none (one server process per session); mcp-proxy --server stream --no-eventStore',
    'http-floor = bench/bridge-http-floor.mjs, a Node HTTP endpoint answering echo itself: the Streamable HTTP transport alone',
    ...(BASE === undefined ? [] : [`switchboard-base = serve from ${BASE} at commit ${commitOf(BASE)}`]),
    `measured in ${ROUNDS} interleaved rounds per upstream (order rotating), each started once the machine was < ${QUIET_BELOW * 100}% busy` +
      (noisy ? ` (${noisy} round(s) started busy after waiting 60 s: figures disturbed)` : ''),
  );

if (opts['latencies-out']) writeFileSync(opts['latencies-out'], JSON.stringify(rawLatencies) + '\n');

const WINDOW_LABELS: Record<string, string> = {
  seq: '1 client, sequential calls',
  conc: `${CLIENTS} clients`,
  sdk: 'SDK listTools() on /mcp',
  raw: 'bare tools/list POSTs on /mcp',
};
if (PROFILE_DIR) {
  for (const dir of readdirSync(PROFILE_DIR)) {
    const full = join(PROFILE_DIR, dir);
    let files: string[];
    try {
      files = readdirSync(full).filter((f) => f.endsWith('.cpuprofile'));
    } catch {
      continue;
    }
    const windows = profileWindows.get(dir);
    if (windows) writeFileSync(join(full, 'windows.json'), JSON.stringify(windows) + '\n');
    for (const f of files) {
      const file = join(full, f);
      if (!windows) {
        say(`\nCPU profile of switchboard serve (${dir}), whole run: ${file}`);
        say(summarizeProfile(file, { top: 20 }));
        continue;
      }
      for (const [kind, list] of Object.entries(windows)) {
        say(
          `\nCPU profile of switchboard serve (${dir}), only while measuring ${WINDOW_LABELS[kind] ?? kind}: ${file}`,
        );
        say(summarizeProfile(file, { top: 20, windows: list }));
      }
    }
  }
}

finish({
  bench: 'bridge',
  title: 'bridge: tools/call latency and throughput vs direct stdio and peers; aggregate tools/list',
  machine: machineInfo(load0),
  figures,
  notes,
});
