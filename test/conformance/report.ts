// Prints how many of the MCP conformance suite's server scenarios pass against our fixture server
// directly, through Switchboard's bridge (as a `url` entry and as a stdio entry) and through
// supergateway (a peer bridge), with what failed and why. The HTTP fixture runs with --poll (it lets
// go of a call's stream before asking its client anything), as in conformance-scenarios.test.ts.
//
//   node_modules/.bin/node test/conformance/report.ts [--runs N]
//
// With --runs N (default 1) each endpoint gets N runs of the whole suite, one after another; a
// scenario counts as passed when it passed in every run. The endpoints run side by side: each has
// its own server process behind it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startFixtureHttp, startSupergateway, startSwitchboard, type Running } from './endpoints.ts';
import { describeFailures, runSuite, summarize, type SuiteRun } from './suite.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '1' } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write(`--runs takes a whole number of runs (1 or more), not "${values.runs}"\n`);
  process.exit(2);
}

const require = createRequire(import.meta.url);
const versionOf = (pkg: string): string =>
  (JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')) as { version: string }).version;

interface Endpoint {
  label: string;
  url: string;
  token?: string;
}

async function runsAgainst(endpoint: Endpoint, resultsDir: string): Promise<SuiteRun[]> {
  const done: SuiteRun[] = [];
  for (let i = 0; i < runs; i++) done.push(await runSuite({ ...endpoint, resultsDir }));
  return done;
}

const resultsDir = mkdtempSync(join(tmpdir(), 'sb-conformance-report-'));
const started: Running[] = [];
let switchboard: Awaited<ReturnType<typeof startSwitchboard>> | undefined;
try {
  const fixture = await startFixtureHttp({ poll: true });
  started.push(fixture);
  switchboard = await startSwitchboard(fixture.url);
  const supergateway = await startSupergateway();
  started.push(supergateway);
  const endpoints: Endpoint[] = [
    { label: 'the fixture directly (Streamable HTTP)', url: fixture.url },
    {
      label: 'Switchboard /mcp/conf-http (url entry)',
      url: switchboard.url('conf-http'),
      token: switchboard.token,
    },
    {
      label: 'Switchboard /mcp/conf-stdio (stdio entry)',
      url: switchboard.url('conf-stdio'),
      token: switchboard.token,
    },
    { label: `supergateway ${versionOf('supergateway')} --stateful (stdio)`, url: supergateway.url },
  ];
  const all = await Promise.all(endpoints.map((e) => runsAgainst(e, resultsDir)));

  const lines = [
    `MCP conformance ${versionOf('@modelcontextprotocol/conformance')}, server scenarios` +
      (runs > 1 ? `, ${runs} runs each (passed = passed in every run)` : ''),
    '',
    '| endpoint | scenarios passed | failed |',
    '| --- | --- | --- |',
  ];
  const details: string[] = [];
  endpoints.forEach((endpoint, i) => {
    const summaries = summarize(all[i] ?? []);
    const failing = summaries.filter((s) => s.failedRuns > 0);
    const names = failing.map((s) => s.scenario + (runs > 1 ? ` (${s.failedRuns}/${s.runs})` : ''));
    lines.push(
      `| ${endpoint.label} | ${summaries.length - failing.length} / ${summaries.length} | ${names.join(', ') || '—'} |`,
    );
    if (failing.length > 0)
      details.push('', `${endpoint.label}:`, ...describeFailures(summaries).map((l) => `  ${l}`));
  });
  process.stdout.write([...lines, ...details, ''].join('\n'));
} finally {
  await switchboard?.stop();
  await Promise.all(started.map((r) => r.stop()));
  rmSync(resultsDir, { recursive: true, force: true });
}
