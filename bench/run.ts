// Runs every benchmark in sequence, each in a process of its own, and prints a summary table.
//
//   npm run bench                         (node bench/run.ts)
//   npm run bench -- --quick              fewer runs and servers, shorter windows: a smoke test
//   npm run bench -- --only crash-cpu     one of them (serve-startup, crash-cpu, bridge, cold-call, …)
//   npm run bench -- --wait-quiet         before each bench, wait (up to 15 min) until the machine is
//                                         idle (< 10 % CPU busy over 5 s): wall-clock figures need it
//
// Each bench prints its own figures as it goes; their JSON lands in bench/results/ (git-ignored).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  formatValue,
  NODE,
  onCleanup,
  ROOT,
  systemBusyPercent,
  table,
  verdict,
  withTimeout,
  type BenchResult,
} from './lib.ts';

const BENCHES = [
  { name: 'serve-startup', timeoutMs: 20 * 60_000 },
  { name: 'crash-cpu', timeoutMs: 10 * 60_000 },
  { name: 'bridge', timeoutMs: 20 * 60_000 },
  { name: 'cold-call', timeoutMs: 10 * 60_000 },
  { name: 'store-cold-call', timeoutMs: 10 * 60_000 },
  { name: 'relay-startup', timeoutMs: 5 * 60_000 },
  { name: 'editor-sync', timeoutMs: 5 * 60_000 },
  { name: 'cli-status', timeoutMs: 10 * 60_000 },
  { name: 'tools', timeoutMs: 5 * 60_000 },
  { name: 'sandbox', timeoutMs: 10 * 60_000 },
] as const;

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'wait-quiet': { type: 'boolean', default: false },
  },
  strict: true,
});
const selected = BENCHES.filter((b) => opts.only === undefined || b.name === opts.only);
if (selected.length === 0) {
  console.error(`no bench named "${opts.only}"; there are: ${BENCHES.map((b) => b.name).join(', ')}`);
  process.exit(2);
}

const resultsDir = join(ROOT, 'bench', 'results');
mkdirSync(resultsDir, { recursive: true });

/** Waits until the machine is idle; returns the last busy % seen. */
async function waitQuiet(): Promise<number> {
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    const busy = await systemBusyPercent(5_000);
    if (busy < 10 || Date.now() > deadline) return busy;
    console.log(`  machine ${busy.toFixed(0)} % busy; waiting for it to be idle…`);
  }
}

async function runBench(name: string, timeoutMs: number): Promise<BenchResult | string> {
  if (opts['wait-quiet']) console.log(`\nmachine ${(await waitQuiet()).toFixed(0)} % busy before ${name}`);
  const out = join(resultsDir, `${name}.json`);
  const args = [join(ROOT, 'bench', `${name}.ts`), ...(opts.quick ? ['--quick'] : []), '--json-out', out];
  console.log(`\n### ${name}: node ${args.map((a) => a.replace(ROOT, '')).join(' ')}`);
  const child = spawn(NODE, args, { stdio: 'inherit', cwd: ROOT });
  const stop = onCleanup(() => child.kill('SIGTERM'));
  const code = await withTimeout(
    new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c))),
    timeoutMs,
    `${name} to finish`,
  ).catch((err: unknown) => {
    stop();
    return (err as Error).message;
  });
  if (typeof code === 'string') return code;
  if (code !== 0) return `exited with code ${code}`;
  try {
    return JSON.parse(readFileSync(out, 'utf8')) as BenchResult;
  } catch (err) {
    return `no result: ${(err as Error).message}`;
  }
}

const results: BenchResult[] = [];
const failures: string[] = [];
for (const bench of selected) {
  const result = await runBench(bench.name, bench.timeoutMs);
  if (typeof result === 'string') failures.push(`${bench.name}: ${result}`);
  else results.push(result);
}

const rows = [['bench', 'figure', 'value', 'budget', '']];
let missed = 0;
for (const result of results) {
  for (const figure of result.figures) {
    const v = verdict(figure);
    if (v === 'MISSED') missed += 1;
    rows.push([
      result.bench,
      figure.name,
      formatValue(figure.value, figure.unit),
      figure.budget ? `${figure.budget.op} ${figure.budget.limit} ${figure.unit}` : '',
      v,
    ]);
  }
}
const first = results[0]?.machine;
console.log('\n## Summary');
if (first)
  console.log(`${first.date} · ${first.revision} · Node ${first.node} · ${first.cpus} × ${first.cpuModel}`);
console.log(table(rows));
console.log(`\n${missed} budget figure(s) missed. Details above; JSON in bench/results/.`);
for (const failure of failures) console.error(`FAILED ${failure}`);
process.exitCode = failures.length > 0 ? 1 : 0;
