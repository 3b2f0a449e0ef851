// `switchboard outdated` for many approved npm servers: how long the person waits for the answer
// (wall time of the CLI, from start to exit), with 20 servers and with 1, once when nothing is newer
// and once when a dependency of every server has a newer release. The registry is the tests' local
// one (test/helpers/npm-registry.ts: packages in through `npm publish`); a real registry adds its
// latency per lookup (~0.2 s), which the lookups then share.
//
// --serve: the same with a real `switchboard serve` running on the temp home, so the CLI asks serve's
// control API and serve resolves (npm-batch-child.ts); also serve's RSS before and after, and which
// processes under serve resolved (the batch child, or an npm per server). The servers are disabled
// there (approved, checked, never started): 20 servers starting would only add load to the machine.
//
// --heap DIR (with --serve): serve also gets `--heapsnapshot-signal=SIGUSR2`, and a heap snapshot (a
// full GC first) is written to DIR before and after the runs, with serve's RSS right after each: what
// serve's heap still holds, apart from memory V8 has not given back (compare them with
// bench/heap-diff.ts). --probe (with --serve): serve also loads bench/gc-probe.mjs, and before and
// after the runs its memory after a full GC is read (RSS, V8's heap used and resident, malloc'd).
//
//   node_modules/.bin/node bench/outdated.ts [--servers 20] [--runs 3] [--serve [--heap DIR] [--probe]]
import { execFile, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Core } from '../electron/core/core.ts';
import { MemoryKeychain } from '../electron/core/secrets/keychain.ts';
import { startNpmRegistry } from '../test/helpers/npm-registry.ts';
import { tempHome } from '../test/helpers/temp-home.ts';
import {
  BIN,
  BIN_FLAGS,
  benchArgs,
  descendants,
  finish,
  killHard,
  machineInfo,
  medianFigure,
  NODE,
  onCleanup,
  procStatusKb,
  ROOT,
  sleep,
  withTimeout,
} from './lib.ts';

const { values: opts } = parseArgs({
  args: benchArgs(),
  options: {
    servers: { type: 'string', default: '20' },
    runs: { type: 'string', default: '3' },
    serve: { type: 'boolean', default: false },
    heap: { type: 'string' },
    probe: { type: 'boolean', default: false },
  },
  strict: true,
});
const SERVERS = Number(opts.servers);
const RUNS = Number(opts.runs);
const SERVE = opts.serve;
const HEAP = SERVE ? opts.heap : undefined;
if (HEAP) mkdirSync(HEAP, { recursive: true });
const PROBE = SERVE && opts.probe;
const load0 = loadavg();

const t = tempHome();
onCleanup(() => t.cleanup());
const registry = await startNpmRegistry();
onCleanup(() => void registry.close());
const fixtures = join(ROOT, 'test/fixtures/store');
await registry.publish(join(fixtures, 'sb-store-dep'));
const names = Array.from({ length: SERVERS }, (_, i) => `sb-out-${String(i + 1).padStart(2, '0')}`);
const setupStart = performance.now();
await Promise.all(
  names.map(async (name) => {
    const dir = mkdtempSync(join(t.dir, `${name}-`));
    cpSync(join(fixtures, 'sb-store-pkg'), dir, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string };
    manifest.name = name;
    writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
    await registry.publish(dir);
  }),
);
const env = { ...t.env, ...registry.npmEnv(join(t.dir, 'npm-cache')) };
delete env.NODE_OPTIONS;
t.writeServers({
  mcpServers: Object.fromEntries(
    names.map((n) => [n, { command: 'npx', args: ['-y', n], ...(SERVE ? { enabled: false } : {}) }]),
  ),
});
const core = new Core({ home: t.home, keychain: new MemoryKeychain(), env });
core.servers.load();
for (const name of names) core.approvals.approve(name, (await core.approvals.preview(name)).fingerprint);
const setupMs = performance.now() - setupStart;

const probeFile = join(t.dir, 'gc-probe.jsonl');

/** Serve's memory after a full GC (--probe), as bench/gc-probe.mjs reads it. */
async function probe(name: string): Promise<string | null> {
  if (!PROBE || servePid === undefined) return null;
  const lines = () => (existsSync(probeFile) ? readFileSync(probeFile, 'utf8').trim().split('\n').length : 0);
  const before = lines();
  process.kill(servePid, 'SIGWINCH');
  while (lines() === before) await sleep(100);
  const last = readFileSync(probeFile, 'utf8').trim().split('\n').at(-1) ?? '{}';
  return `${name}, after a full GC: ${last}`;
}

/** `switchboard serve` on the temp home (--serve), once it said it is running. */
async function startServe(): Promise<number> {
  const flags = [
    ...BIN_FLAGS,
    ...(HEAP ? ['--heapsnapshot-signal=SIGUSR2'] : []),
    ...(PROBE ? ['--expose-gc', '--import', join(ROOT, 'bench/gc-probe.mjs')] : []),
  ];
  const child = spawn(NODE, [...flags, BIN, 'serve', '--port', '0'], {
    env: { ...env, SB_GC_PROBE: probeFile },
    cwd: HEAP ?? process.cwd(), // where Node writes the snapshots
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not spawn switchboard serve');
  onCleanup(() => killHard([pid, ...descendants(pid)]));
  let output = '';
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        output += d.toString();
        if (output.includes('Ctrl+C stops')) resolve();
      });
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${output}`)));
    }),
    60_000,
    'serve to start',
  );
  return pid;
}
const servePid = SERVE ? await startServe() : undefined;
const rssMb = () => (servePid === undefined ? null : (procStatusKb(servePid, 'VmRSS') ?? NaN) / 1024);

/** A heap snapshot of serve (--heap), named NAME.heapsnapshot; serve's RSS once it is written. */
async function snapshot(name: string): Promise<string | null> {
  if (!HEAP || servePid === undefined) return null;
  const before = new Set(readdirSync(HEAP));
  process.kill(servePid, 'SIGUSR2');
  // Node names the file itself; it is complete once its size stops changing.
  for (let last = -1; ; await sleep(500)) {
    const made = readdirSync(HEAP).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (!made) continue;
    const size = statSync(join(HEAP, made)).size;
    if (size > 0 && size === last) {
      renameSync(join(HEAP, made), join(HEAP, `${name}.heapsnapshot`));
      break;
    }
    last = size;
  }
  return `${name}: RSS after its full GC ${rssMb()?.toFixed(1)} MB`;
}

function isBatchChild(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('npm-batch-child-main');
  } catch {
    return false; // gone
  }
}

/** Which processes under serve resolved while `work` ran: batch children and npm lock processes. */
async function watchingServe<T>(
  work: () => Promise<T>,
): Promise<{ value: T; batch: number; npm: number; childMb: number }> {
  const batch = new Set<number>();
  const npm = new Set<number>();
  let childKb = 0;
  let on = true;
  const watch = (async () => {
    while (on && servePid !== undefined) {
      for (const pid of descendants(servePid)) {
        let cmdline: string;
        try {
          cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          continue; // gone
        }
        if (cmdline.includes('npm-batch-child-main')) {
          batch.add(pid);
          childKb = Math.max(childKb, procStatusKb(pid, 'VmRSS') ?? 0);
        } else if (cmdline.includes('--package-lock-only')) npm.add(pid);
      }
      await sleep(20);
    }
  })();
  try {
    const value = await work();
    return { value, batch: batch.size, npm: npm.size, childMb: childKb / 1024 };
  } finally {
    on = false;
    await watch;
  }
}
const resolvedBy: string[] = [];

function outdated(args: string[]): Promise<{ ms: number; stdout: string; stderr: string }> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      NODE,
      [...BIN_FLAGS, BIN, 'outdated', ...args],
      { env, maxBuffer: 1 << 24 },
      (err, stdout, stderr) => {
        // exit 1 means some server could not be checked: a failed measurement
        if (err) reject(new Error(`outdated failed: ${stderr}`));
        else resolve({ ms: performance.now() - start, stdout, stderr });
      },
    );
  });
}

async function measure(args: string[], expect: (stdout: string) => boolean): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const watched = await watchingServe(() => outdated(args));
    const run = watched.value;
    if (!expect(run.stdout)) throw new Error(`unexpected answer:\n${run.stdout}`);
    out.push(run.ms);
    if (SERVE)
      resolvedBy.push(
        `${watched.batch} batch child(ren) (RSS up to ${watched.childMb.toFixed(0)} MB), ${watched.npm} npm process(es)`,
      );
    // Serve's batch child stays a moment after its last answer: the next run starts a batch of its own.
    while (servePid !== undefined && descendants(servePid).some(isBatchChild)) await sleep(100);
  }
  return out;
}

const budget = { op: '<=' as const, limit: 3000, text: '≤ 3 s for 20 servers (issue 36 item 3)' };
const none = (s: string) => s.startsWith('Every stored package is the newest');
if (SERVE) await sleep(2_000); // serve's start-up settles before its memory is read
const rssBefore = rssMb();
const heapNotes: (string | null)[] = [await probe('before'), await snapshot('before')];
const current = await measure([], none);
const one = await measure([names[0] ?? ''], none);
await registry.publishAs(join(fixtures, 'sb-store-dep'), '1.0.1');
resolvedBy.length = 0;
const newer = await measure([], (s) => (s.match(/sb-store-dep 1\.0\.0 → 1\.0\.1/g) ?? []).length === SERVERS);
const rssAfter = rssMb();
const rssPeak = servePid === undefined ? null : (procStatusKb(servePid, 'VmHWM') ?? NaN) / 1024;
heapNotes.push(await probe('after'), await snapshot('after'));

finish({
  bench: 'outdated',
  title: `switchboard outdated: ${SERVERS} approved npm servers, local registry${SERVE ? ', serve running' : ''}`,
  machine: machineInfo(load0),
  figures: [
    medianFigure(
      `outdated, ${SERVERS} servers, nothing newer`,
      current,
      'ms',
      SERVERS >= 20 ? budget : undefined,
    ),
    medianFigure(
      `outdated, ${SERVERS} servers, a dependency of each newer`,
      newer,
      'ms',
      SERVERS >= 20 ? budget : undefined,
    ),
    medianFigure('outdated NAME, 1 server, nothing newer', one, 'ms'),
  ],
  notes: [
    `setup (publish ${SERVERS} packages, approve ${SERVERS} servers): ${(setupMs / 1000).toFixed(1)} s`,
    ...(SERVE
      ? [
          `serve RSS before the runs ${rssBefore?.toFixed(1)} MB, after ${rssAfter?.toFixed(1)} MB, peak (VmHWM) ${rssPeak?.toFixed(1)} MB`,
          `resolved under serve, per run with a newer dependency: ${resolvedBy.join('; ')}`,
          ...heapNotes.filter((n) => n !== null),
        ]
      : []),
  ],
});
// The registry's server and the core's timers would keep the process alive; cleanups run on exit.
process.exit(0);
