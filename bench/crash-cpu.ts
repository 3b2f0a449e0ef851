// CPU that one instantly crashing server costs Switchboard under backoff (design.md: < 1 % CPU).
//
//   node_modules/.bin/node bench/crash-cpu.ts [--seconds 90] [--quick]
//
// (a) real time: a real Supervisor in this process (log files and pid files on, as in `serve`) runs
//     test/fixtures/crash-on-start.mjs for --seconds of wall time; CPU = this process
//     (process.cpuUsage()) + the crashed children (cutime/cstime of /proc/self/stat: children count
//     once reaped, and every one is reaped within the window).
// (b) virtual time: the same, driven by ManualClock (test/helpers/manual-clock.ts) through the whole
//     5-minute crash-loop window: how many spawns 5 minutes hold and the CPU they cost, spread over
//     those 5 minutes. Also without the crash-loop rule, to show what backoff alone would cost.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Clock } from '../electron/core/clock.ts';
import { Supervisor } from '../electron/core/supervisor/supervisor.ts';
import type {
  DesiredServer,
  SupervisedStatus,
  SupervisorTimings,
} from '../electron/core/supervisor/types.ts';
import type { ServerState } from '../shared/status.ts';
import { ManualClock } from '../test/helpers/manual-clock.ts';
import {
  benchArgs,
  finish,
  fixture,
  machineInfo,
  NODE,
  onCleanup,
  reapedChildrenCpuMs,
  sleep,
  withTimeout,
  type Budget,
  type Figure,
} from './lib.ts';

const BUDGET: Budget = {
  op: '<',
  limit: 1,
  text: 'a server that crashes at once costs < 1 % CPU under backoff',
};
const NAME = 'crashy';
const WINDOW_MS = 5 * 60_000;

const { values: opts } = parseArgs({
  args: benchArgs(),
  options: { seconds: { type: 'string', default: '90' }, quick: { type: 'boolean', default: false } },
  strict: true,
});
const SECONDS = opts.quick ? 20 : Number(opts.seconds);

const dir = mkdtempSync(join(tmpdir(), 'sb-bench-crash-'));
onCleanup(() => rmSync(dir, { recursive: true, force: true }));

const env: Record<string, string> = {};
for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;

const crashy: DesiredServer = {
  name: NAME,
  fingerprint: 'bench',
  transport: 'stdio',
  prepare: async () => ({
    transport: 'stdio',
    command: NODE,
    args: [fixture('crash-on-start.mjs')],
    cwd: undefined,
    env,
    redact: [],
  }),
};

interface Cpu {
  /** wall clock, ms (performance.now()) */
  at: number;
  /** this process: user + system, ms */
  hostMs: number;
  /** reaped children: user + system, ms */
  childrenMs: number;
}

function cpuNow(): Cpu {
  const u = process.cpuUsage();
  return { at: performance.now(), hostMs: (u.user + u.system) / 1000, childrenMs: reapedChildrenCpuMs() };
}

function delta(from: Cpu, to: Cpu): Cpu {
  return {
    at: to.at - from.at,
    hostMs: to.hostMs - from.hostMs,
    childrenMs: to.childrenMs - from.childrenMs,
  };
}

function makeSupervisor(
  name: string,
  clock: Clock | undefined,
  timings: Partial<SupervisorTimings>,
  random?: () => number,
) {
  const runDir = join(dir, name, 'run');
  const logsDir = join(dir, name, 'logs');
  mkdirSync(runDir, { recursive: true });
  mkdirSync(logsDir, { recursive: true });
  const sup = new Supervisor({
    runDir,
    logsDir,
    timings,
    ...(clock ? { clock } : {}),
    ...(random ? { random } : {}),
  });
  const pids = new Set<number>();
  sup.on('status', (s) => {
    if (s.pid !== null) pids.add(s.pid);
  });
  onCleanup(() => {
    for (const pid of pids) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });
  return { sup, pids };
}

/** The next status event of NAME whose state is one of `states`. */
function nextState(sup: Supervisor, states: readonly ServerState[]): Promise<SupervisedStatus> {
  return withTimeout(
    new Promise<SupervisedStatus>((resolve) => {
      const onStatus = (s: SupervisedStatus) => {
        if (s.name !== NAME || !states.includes(s.state)) return;
        sup.off('status', onStatus);
        resolve(s);
      };
      sup.on('status', onStatus);
    }),
    20_000,
    `${NAME} to reach ${states.join(' or ')}`,
  );
}

// ─── (b) the 5-minute schedule on a manual clock ──────────────────────────────────────────────────

interface Schedule {
  spawns: number;
  /** virtual seconds after the first spawn at which each spawn happened */
  spawnTimes: number[];
  endState: ServerState | undefined;
  cpu: Cpu;
  realMs: number;
}

async function manualSchedule(label: string, timings: Partial<SupervisorTimings>): Promise<Schedule> {
  const clock = new ManualClock();
  // Jitter pinned to 0 (random() = 0.5) so the count is the same on every run.
  const { sup, pids } = makeSupervisor(label, clock, timings, () => 0.5);
  const start = clock.now();
  const end = start + WINDOW_MS;
  const spawnTimes: number[] = [];
  sup.on('status', (s) => {
    if (s.state === 'starting' && s.pid !== null) spawnTimes.push((clock.now() - start) / 1000);
  });
  const before = cpuNow();
  let settled = nextState(sup, ['backoff', 'crash-loop', 'error']);
  await sup.reconcile([crashy]);
  for (;;) {
    const status = await settled;
    if (status.state !== 'backoff' || status.nextRetryAt === null || status.nextRetryAt > end) break;
    settled = nextState(sup, ['backoff', 'crash-loop', 'error']);
    clock.advance(status.nextRetryAt - clock.now());
  }
  clock.advance(end - clock.now());
  await sleep(300); // nothing more may start: a spawn here would show in pids
  const after = cpuNow();
  const endState = sup.statusOf(NAME)?.state;
  await sup.shutdown();
  return { spawns: pids.size, spawnTimes, endState, cpu: delta(before, after), realMs: after.at - before.at };
}

// ─── (a) real time ────────────────────────────────────────────────────────────────────────────────

interface RealRun {
  spawns: number;
  crashLoopAfterS: number | null;
  total: Cpu;
  /** from the first start to crash-loop */
  backoff: Cpu | null;
  /** from crash-loop to the end of the window */
  after: Cpu | null;
}

async function realTime(seconds: number): Promise<RealRun> {
  const { sup, pids } = makeSupervisor('real', undefined, {});
  let atCrashLoop: Cpu | undefined;
  sup.on('status', (s) => {
    if (s.state === 'crash-loop' && atCrashLoop === undefined) atCrashLoop = cpuNow();
  });
  const before = cpuNow();
  await sup.reconcile([crashy]);
  await sleep(seconds * 1000);
  const end = cpuNow();
  await sup.shutdown();
  return {
    spawns: pids.size,
    crashLoopAfterS: atCrashLoop ? (atCrashLoop.at - before.at) / 1000 : null,
    total: delta(before, end),
    backoff: atCrashLoop ? delta(before, atCrashLoop) : null,
    after: atCrashLoop ? delta(atCrashLoop, end) : null,
  };
}

const pct = (c: Cpu) => ((c.hostMs + c.childrenMs) / c.at) * 100;

const load0 = loadavg();
console.log('(b) manual clock: the 5-minute window, with and without crash-loop');
const withLoop = await manualSchedule('manual', {});
const noLoop = await manualSchedule('manual-no-crash-loop', { crashLoopFailures: Number.MAX_SAFE_INTEGER });
for (const [label, s] of [
  ['with crash-loop', withLoop],
  ['without crash-loop', noLoop],
] as const) {
  console.log(
    `  ${label}: ${s.spawns} spawns at ${s.spawnTimes.map((t) => t.toFixed(0)).join(', ')} s; ends ${s.endState}; ` +
      `CPU host ${s.cpu.hostMs.toFixed(0)} ms + children ${s.cpu.childrenMs.toFixed(0)} ms (${s.realMs.toFixed(0)} ms real)`,
  );
}

console.log(`(a) real time: ${SECONDS} s of a real Supervisor with the crashing fixture`);
const real = await realTime(SECONDS);
console.log(
  `  ${real.spawns} spawns; crash-loop after ${real.crashLoopAfterS?.toFixed(1) ?? '—'} s; ` +
    `CPU host ${real.total.hostMs.toFixed(0)} ms + children ${real.total.childrenMs.toFixed(0)} ms`,
);

const perSpawn = (c: Cpu, spawns: number) => (spawns === 0 ? null : (c.hostMs + c.childrenMs) / spawns);
const figures: Figure[] = [
  { name: `(a) spawns in ${SECONDS} s (real time)`, value: real.spawns, unit: '' },
  { name: '(a) crash-loop reached after', value: real.crashLoopAfterS, unit: 's' },
  {
    name: '(a) CPU per crash (host + child)',
    value: perSpawn(real.total, real.spawns),
    unit: 'ms',
    detail: `host ${(real.total.hostMs / Math.max(1, real.spawns)).toFixed(1)} + child ${(real.total.childrenMs / Math.max(1, real.spawns)).toFixed(1)}`,
  },
  {
    name: `(a) CPU over the ${SECONDS} s window`,
    value: pct(real.total),
    unit: '%',
    detail: `host ${((real.total.hostMs / real.total.at) * 100).toFixed(3)} %`,
    budget: BUDGET,
  },
  {
    name: '(a) CPU while in backoff (start → crash-loop)',
    value: real.backoff ? pct(real.backoff) : null,
    unit: '%',
    detail: real.backoff ? `host ${((real.backoff.hostMs / real.backoff.at) * 100).toFixed(3)} %` : '',
    budget: BUDGET,
  },
  {
    name: '(a) CPU in crash-loop (idle after)',
    value: real.after ? pct(real.after) : null,
    unit: '%',
    budget: BUDGET,
  },
  {
    name: '(b) spawns in 5 min (manual clock)',
    value: withLoop.spawns,
    unit: '',
    detail: `at ${withLoop.spawnTimes.map((t) => t.toFixed(0)).join(', ')} s; ends ${withLoop.endState}`,
  },
  {
    name: '(b) CPU of those spawns over 5 min',
    value: ((withLoop.cpu.hostMs + withLoop.cpu.childrenMs) / WINDOW_MS) * 100,
    unit: '%',
    detail: `${(withLoop.cpu.hostMs + withLoop.cpu.childrenMs).toFixed(0)} ms CPU in all`,
    budget: BUDGET,
  },
  {
    name: '(b) without crash-loop: spawns in 5 min',
    value: noLoop.spawns,
    unit: '',
    detail: `at ${noLoop.spawnTimes.map((t) => t.toFixed(0)).join(', ')} s`,
  },
  {
    name: '(b) without crash-loop: CPU over 5 min',
    value: ((noLoop.cpu.hostMs + noLoop.cpu.childrenMs) / WINDOW_MS) * 100,
    unit: '%',
    detail: `${(noLoop.cpu.hostMs + noLoop.cpu.childrenMs).toFixed(0)} ms CPU in all`,
    budget: BUDGET,
  },
];
const notes = [
  'CPU % is of one core: (this process + its reaped children) CPU time / wall (or virtual) time',
  '(b) pins the jitter to 0 (random() = 0.5); real runs have ±20 %',
];
if (real.spawns !== withLoop.spawns)
  notes.push(`(a) saw ${real.spawns} spawns where (b) saw ${withLoop.spawns}`);

finish({
  bench: 'crash-cpu',
  title: 'one server that crashes at once: CPU under backoff',
  machine: machineInfo(load0),
  figures,
  notes,
});
