// Runs the official MCP conformance suite's server scenarios (@modelcontextprotocol/conformance) against
// one endpoint and reads back each scenario's verdict, for the bridge's conformance test and for
// test/conformance/report.ts.
//
// A scenario passes when none of its checks is a FAILURE: the runner's own rule. (WARNINGs are
// SHOULDs; server-sse-polling warns even directly, because SDK 1.32 rightly sends no SSE priming
// event to the protocol version 2025-03-26 that scenario announces.)
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { NODE } from '../helpers/servers.ts';

const require = createRequire(import.meta.url);
const RUNNER = require.resolve('@modelcontextprotocol/conformance/dist/index.js');
/** A preload for the runner that adds `Authorization: Bearer $SB_CONFORMANCE_TOKEN` to its requests. */
const WITH_TOKEN = fileURLToPath(new URL('../fixtures/conformance-auth.mjs', import.meta.url));

export const CheckSchema = z.looseObject({
  id: z.string(),
  status: z.enum(['SUCCESS', 'FAILURE', 'WARNING', 'INFO', 'SKIPPED']),
  errorMessage: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type Check = z.infer<typeof CheckSchema>;

export interface ScenarioResult {
  scenario: string;
  checks: Check[];
  /** `<check id>: <what went wrong>` for each failed check; empty when the scenario passed */
  failures: string[];
}

export interface SuiteRun {
  url: string;
  /** every server scenario of the suite, in the runner's order */
  scenarios: ScenarioResult[];
  /** the runner's exit code (1 when a check failed) and console output */
  exitCode: number | null;
  output: string;
  durationMs: number;
}

/** Runs the runner with node; resolves with its exit code and console output. */
function runRunner(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

let scenarioNames: Promise<string[]> | undefined;

/** The suite's server scenarios, as `conformance list --server` prints them. */
export function serverScenarios(): Promise<string[]> {
  scenarioNames ??= runRunner([RUNNER, 'list', '--server']).then(({ output }) => {
    const names = [...output.matchAll(/^ {2}- (\S+)/gm)].map((m) => m[1] ?? '');
    if (names.length === 0) throw new Error(`conformance list --server printed no scenarios:\n${output}`);
    return names;
  });
  return scenarioNames;
}

/** What a failed check says went wrong, with the tool's own error when it answered one. */
function describeFailure(check: Check): string {
  let message = check.errorMessage ?? '(no message)';
  // A tool that failed (e.g. its sampling request was refused) says why in its result, which the
  // scenario keeps in details; the scenario's own message only says that sampling never happened.
  const result = z
    .object({ isError: z.literal(true), content: z.array(z.object({ text: z.string().optional() })) })
    .safeParse(check.details?.['result']);
  if (result.success) message += ` (the tool answered: ${result.data.content.map((c) => c.text).join(' ')})`;
  return `${check.id}: ${message}`;
}

/** The checks.json of each scenario the runner wrote under outDir (one folder per scenario). */
function readResults(outDir: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const dir of readdirSync(outDir)) {
    // server-<scenario>-<2026-11-23T18-27-51-587Z>
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir)?.[1];
    if (!scenario) continue;
    const json: unknown = JSON.parse(readFileSync(join(outDir, dir, 'checks.json'), 'utf8'));
    results.set(scenario, z.array(CheckSchema).parse(json));
  }
  return results;
}

export interface RunOptions {
  url: string;
  /** a bridge token, sent with every request the runner makes (the bridge refuses requests without one) */
  token?: string;
  /** a folder for the runner's results (a fresh subfolder is made in it) */
  resultsDir: string;
  /** one scenario only; default: every server scenario (the runner's `--suite all`) */
  scenario?: string;
}

/**
 * One runner invocation against url: every server scenario (they run one after another), each
 * scenario's checks read from the checks.json the runner writes with `-o`. A scenario the runner left
 * no result for counts as failed, with the runner's output as the reason.
 */
export async function runSuite(options: RunOptions): Promise<SuiteRun> {
  const names = options.scenario ? [options.scenario] : await serverScenarios();
  const outDir = mkdtempSync(join(options.resultsDir, 'run-'));
  const started = Date.now();
  const { code, output } = await runRunner(
    [
      ...(options.token ? ['--import', WITH_TOKEN] : []),
      RUNNER,
      'server',
      '--url',
      options.url,
      ...(options.scenario ? ['--scenario', options.scenario] : ['--suite', 'all']),
      '-o',
      outDir,
    ],
    { ...process.env, SB_CONFORMANCE_TOKEN: options.token ?? '' },
  );
  const durationMs = Date.now() - started;
  const results = readResults(outDir);
  const scenarios = names.map((scenario): ScenarioResult => {
    const checks = results.get(scenario);
    if (!checks) {
      return { scenario, checks: [], failures: [`no result: the runner wrote none. Its output:\n${output}`] };
    }
    return { scenario, checks, failures: checks.filter((c) => c.status === 'FAILURE').map(describeFailure) };
  });
  return { url: options.url, scenarios, exitCode: code, output, durationMs };
}

export interface ScenarioSummary {
  scenario: string;
  /** in how many of the runs it failed */
  failedRuns: number;
  runs: number;
  /** the distinct `check: message` lines of its failures, over all runs */
  failures: string[];
}

/** Each scenario's verdict over several runs against one endpoint. */
export function summarize(runs: readonly SuiteRun[]): ScenarioSummary[] {
  const byScenario = new Map<string, ScenarioSummary>();
  for (const run of runs) {
    for (const { scenario, failures } of run.scenarios) {
      const summary = byScenario.get(scenario) ?? { scenario, failedRuns: 0, runs: 0, failures: [] };
      summary.runs++;
      if (failures.length > 0) summary.failedRuns++;
      for (const f of failures) if (!summary.failures.includes(f)) summary.failures.push(f);
      byScenario.set(scenario, summary);
    }
  }
  return [...byScenario.values()];
}

/** `scenario (failed in k of n runs) → check: message` lines, one per distinct failed check. */
export function describeFailures(summaries: readonly ScenarioSummary[]): string[] {
  return summaries
    .filter((s) => s.failedRuns > 0)
    .flatMap((s) =>
      s.failures.map((f) => `${s.scenario} (failed in ${s.failedRuns} of ${s.runs} runs) → ${f}`),
    );
}
