import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Headless } from '../../../electron/headless/serve.ts';
import { runSuite, type SuiteRun } from '../../conformance/suite.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { everythingServer } from '../../helpers/servers.ts';

// The official MCP conformance suite's `dns-rebinding-protection` server scenario against a bridge
// endpoint (/mcp/everything, server-everything approved and running):
//
//   conformance server --url http://127.0.0.1:<port>/mcp/everything --scenario dns-rebinding-protection
//
// It POSTs initialize twice: with Host/Origin evil.example.com (must get 4xx) and with the URL's own
// 127.0.0.1:<port> (must get 2xx). The scenario is written for servers without authentication and has
// no option to send headers, while every bridge request needs a token; so the runner is started with a
// small preload (test/fixtures/conformance-auth.mjs) that adds an editor token to each request it
// sends, and to nothing else. (Every server scenario, through the bridge: conformance-scenarios.test.ts.)

const setup = useHeadless();
let headless: Headless;
let results: string;

beforeAll(async () => {
  results = mkdtempSync(join(tmpdir(), 'sb-conformance-'));
  setup.defer(() => rmSync(results, { recursive: true, force: true }));
  setup.t.writeServers({ mcpServers: { everything: everythingServer() } });
  headless = await setup.start();
  await setup.approveRunning(['everything'], 45_000);
});

function runScenario(token: string | undefined): Promise<SuiteRun> {
  return runSuite({
    url: `http://127.0.0.1:${headless.port}/mcp/everything`,
    token,
    resultsDir: results,
    scenario: 'dns-rebinding-protection',
  });
}

/** [check id, status, HTTP status] of each check the scenario recorded. */
function verdicts(run: SuiteRun): unknown[][] {
  return (run.scenarios[0]?.checks ?? []).map((c) => [c.id, c.status, c.details?.['statusCode']]);
}

describe('MCP conformance: dns-rebinding-protection against /mcp/everything', () => {
  it('passes with an editor token', async () => {
    const token = headless.tokens.create('conformance').token;
    const run = await runScenario(token);
    expect(verdicts(run), run.output).toEqual([
      ['localhost-host-rebinding-rejected', 'SUCCESS', 403],
      ['localhost-host-valid-accepted', 'SUCCESS', 200],
    ]);
    expect(run.exitCode, run.output).toBe(0);
  });

  it('without a token: the foreign Host is still refused (403 comes before authentication), the valid one gets 401', async () => {
    const run = await runScenario(undefined);
    expect(verdicts(run)).toEqual([
      ['localhost-host-rebinding-rejected', 'SUCCESS', 403],
      ['localhost-host-valid-accepted', 'FAILURE', 401],
    ]);
  });
});
