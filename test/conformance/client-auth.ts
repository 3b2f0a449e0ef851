// Runs the MCP conformance suite's client auth scenarios (@modelcontextprotocol/conformance, spec
// 2025-11-25) against `switchboard try`, through test/conformance/auth-client.mjs, and reads back
// each scenario's checks. The runner starts every scenario's authorization and MCP servers itself and
// runs the client once per scenario, all in parallel.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { NODE } from '../helpers/servers.ts';
import { CheckSchema, type Check } from './suite.ts';

const require = createRequire(import.meta.url);
const RUNNER = require.resolve('@modelcontextprotocol/conformance/dist/index.js');
const CLIENT = fileURLToPath(new URL('./auth-client.mjs', import.meta.url));
export const SPEC_VERSION = '2025-11-25';

export interface ClientScenarioResult {
  scenario: string;
  checks: Check[];
  /** `<check id>: <what went wrong>` for each FAILURE and WARNING */
  problems: string[];
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** The client auth scenarios of this spec version, as `conformance list` names them. */
export async function clientAuthScenarios(): Promise<string[]> {
  const { output } = await run([RUNNER, 'list'], process.env);
  return [...output.matchAll(/^ {2}- (auth\/\S+) \[([^\]]*)\]/gm)]
    .filter((m) => (m[2] ?? '').split(',').includes(SPEC_VERSION))
    .map((m) => m[1] ?? '');
}

/**
 * `conformance client --suite auth --spec-version 2025-11-25 --command "<node> auth-client.mjs"`,
 * with `env` for the client (SWITCHBOARD_HOME and HOME in a temp folder).
 */
export async function runClientAuthSuite(options: {
  resultsDir: string;
  env: NodeJS.ProcessEnv;
  /** how long the runner waits for one scenario's client (its default, 30 s, is too short on a busy machine) */
  timeoutMs?: number;
}): Promise<{ results: ClientScenarioResult[]; output: string; exitCode: number | null }> {
  const outDir = mkdtempSync(join(options.resultsDir, 'client-auth-'));
  const { code, output } = await run(
    [
      RUNNER,
      'client',
      '--suite',
      'auth',
      '--spec-version',
      SPEC_VERSION,
      '--command',
      `${NODE} ${CLIENT}`,
      '-o',
      outDir,
      ...(options.timeoutMs ? ['--timeout', String(options.timeoutMs)] : []),
    ],
    options.env,
  );
  const results: ClientScenarioResult[] = [];
  for (const entry of readdirSync(outDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name !== 'checks.json') continue;
    // <outDir>/auth/<scenario>-<2026-11-23T19-19-12-952Z>/checks.json
    const dir = relative(outDir, entry.parentPath);
    const scenario = /^(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir)?.[1] ?? dir;
    const checks = z
      .array(CheckSchema)
      .parse(JSON.parse(readFileSync(join(entry.parentPath, entry.name), 'utf8')));
    const problems = checks
      .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
      .map((c) => `${c.id} (${c.status}): ${c.errorMessage ?? String(c['description'] ?? '')}`);
    results.push({ scenario, checks, problems });
  }
  return { results, output, exitCode: code };
}
