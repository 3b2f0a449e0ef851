import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { runSuite, type SuiteRun } from '../../conformance/suite.ts';
import { everythingServer, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

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

let t: TempHome;
let headless: Headless;
let results: string;

beforeAll(async () => {
  t = tempHome();
  results = mkdtempSync(join(tmpdir(), 'sb-conformance-'));
  t.writeServers({ mcpServers: { everything: everythingServer() } });
  headless = await startHeadless({ home: t.home, keychain: new MemoryKeychain(), env: t.env, port: 0 });
  headless.core.approve('everything', headless.core.review('everything').fingerprint);
  await waitFor(
    () =>
      headless.core
        .status()
        .servers.find((s) => s.name === 'everything' && s.state === 'running' && s.toolCount),
    45_000,
    'server-everything running',
  );
});

afterAll(async () => {
  await headless?.stop();
  t?.cleanup();
  if (results) rmSync(results, { recursive: true, force: true });
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
