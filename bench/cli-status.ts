// `switchboard status` as people run it: from the launcher `switchboard install-cli` puts on PATH,
// against `npx switchboard status` and `node bin.mjs status`, with serve running (the everyday case)
// and without. Budget (issue 24): `status` from the launcher answers in <= 150 ms with serve running.
//
//   node bench/cli-status.ts [--runs N] [--servers N] [--quick]
//
// A throwaway home with N servers (left waiting for approval, so none starts and status lists N rows),
// a real `serve` on it, the launcher in a temp bin folder. Each
// figure is the wall time from spawn to exit (the answer printed), median of the runs, the kinds
// interleaved; CPU is the process's own user + system time (reaped-children accounting), steadier than
// wall time on a shared machine.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveHome } from '../electron/core/home.ts';
import {
  BIN,
  BIN_FLAGS,
  benchArgs,
  finish,
  fixture,
  killHard,
  machineInfo,
  medianFigure,
  NODE,
  onCleanup,
  reapedChildrenCpuMs,
  ROOT,
  runTimed,
  withTimeout,
  type Figure,
} from './lib.ts';

const { values } = parseArgs({
  args: benchArgs(),
  options: {
    runs: { type: 'string', default: '20' },
    servers: { type: 'string', default: '20' },
    quick: { type: 'boolean', default: false },
  },
});
const runs = values.quick ? 5 : Number(values.runs);
const npxRuns = Math.min(runs, values.quick ? 2 : 5);
const serverCount = Number(values.servers);
const loadStart = loadavg();

const dir = mkdtempSync(join(tmpdir(), 'sb-bench-cli-'));
const env: NodeJS.ProcessEnv = {
  ...process.env,
  HOME: join(dir, 'user'),
  XDG_CONFIG_HOME: join(dir, 'user', '.config'),
  SWITCHBOARD_HOME: join(dir, 'home'),
};
const home = resolveHome(env);
const pids: number[] = [];
const cleanup = onCleanup(() => {
  killHard(pids);
  rmSync(dir, { recursive: true, force: true });
});

/** One command to its end: wall ms and its own CPU ms (user + system, once reaped). */
async function timed(command: string, args: string[], cwd = ROOT): Promise<{ ms: number; cpu: number }> {
  const before = reapedChildrenCpuMs();
  const started = performance.now();
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'ignore', 'ignore'] });
    child.on('error', reject);
    child.on('close', resolve);
  });
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}`);
  return { ms, cpu: reapedChildrenCpuMs() - before };
}

const cli = (args: string[]) => runTimed(NODE, [...BIN_FLAGS, BIN, ...args], env, 60_000);

// The home: N servers (the minimal fixture); the launcher in a bin folder of its own.
const servers = Object.fromEntries(
  Array.from({ length: serverCount }, (_, i) => [
    `s${i}`,
    { command: NODE, args: [fixture('mini-server.mjs')] },
  ]),
);
mkdirSync(home.root, { recursive: true });
writeFileSync(home.serversFile, JSON.stringify({ mcpServers: servers }, null, 2));
const binDir = join(dir, 'bin');
const installed = await cli(['install-cli', '--dir', binDir]);
if (installed.code !== 0) throw new Error(`install-cli: ${installed.stderr}`);
const launcher = join(binDir, process.platform === 'win32' ? 'switchboard.cmd' : 'switchboard');

type Kind = 'launcher' | 'node' | 'npx';
const how: Record<Kind, [string, string[]]> = {
  launcher: [launcher, ['status']],
  node: [NODE, [...BIN_FLAGS, BIN, 'status']],
  npx: ['npx', ['switchboard', 'status']],
};

async function measure(label: string): Promise<Figure[]> {
  const wall: Record<Kind, number[]> = { launcher: [], node: [], npx: [] };
  const cpu: Record<Kind, number[]> = { launcher: [], node: [], npx: [] };
  for (const kind of ['launcher', 'node'] as const) await timed(...how[kind]); // warm caches
  for (let i = 0; i < runs; i++) {
    for (const kind of ['launcher', 'node', 'npx'] as const) {
      if (kind === 'npx' && i >= npxRuns) continue;
      const t = await timed(...how[kind]);
      wall[kind].push(t.ms);
      cpu[kind].push(t.cpu);
    }
  }
  const budget =
    label === 'serve running'
      ? { op: '<=' as const, limit: 150, text: 'status from PATH <= 150 ms' }
      : undefined;
  return [
    medianFigure(`status from the launcher (${label})`, wall.launcher, 'ms', budget),
    medianFigure(`  its CPU time`, cpu.launcher, 'ms'),
    medianFigure(`node bin.mjs status (${label})`, wall.node, 'ms'),
    medianFigure(`  its CPU time`, cpu.node, 'ms'),
    medianFigure(`npx switchboard status (${label})`, wall.npx, 'ms'),
    medianFigure(`  its CPU time (npm included)`, cpu.npx, 'ms'),
  ];
}

const figures: Figure[] = [];
figures.push(...(await measure('serve not running')));

const serve = spawn(NODE, [...BIN_FLAGS, BIN, 'serve', '--port', '0'], {
  env,
  stdio: ['ignore', 'pipe', 'pipe'],
});
if (serve.pid) pids.push(serve.pid);
await withTimeout(
  new Promise<void>((resolve) => {
    let out = '';
    serve.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (/Ctrl\+C stops (?:them all|Switchboard)\./.test(out)) resolve();
    });
  }),
  60_000,
  'serve to start',
);
figures.push(...(await measure('serve running')));
serve.kill('SIGTERM');
await new Promise((resolve) => serve.once('exit', resolve));

// For scale on this machine now: a Node that starts and exits at once.
const bare = { wall: [] as number[], cpu: [] as number[] };
for (let i = 0; i < runs; i++) {
  const t = await timed(NODE, ['-e', '0']);
  bare.wall.push(t.ms);
  bare.cpu.push(t.cpu);
}
figures.push(
  medianFigure('context: node -e 0 (start and exit)', bare.wall, 'ms'),
  medianFigure('  its CPU time', bare.cpu, 'ms'),
);

cleanup();
finish({
  bench: 'cli-status',
  title: `switchboard status: the launcher on PATH, node bin.mjs, npx (${serverCount} servers; ${runs} runs, npx ${npxRuns})`,
  machine: machineInfo(loadStart),
  figures,
  notes: [
    'wall: spawn → exit; CPU: user + system of the command (npx: npm and the Node it starts)',
    'the launcher is what `switchboard install-cli` writes: the project’s Node on bin.mjs, no npm',
  ],
});
