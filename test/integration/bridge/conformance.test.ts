import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { everythingServer, NODE, waitFor } from '../../helpers/servers.ts';
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
// sends, and to nothing else.

const require = createRequire(import.meta.url);
const CONFORMANCE = require.resolve('@modelcontextprotocol/conformance/dist/index.js');
const WITH_TOKEN = fileURLToPath(new URL('../../fixtures/conformance-auth.mjs', import.meta.url));

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
  details?: { statusCode?: number };
}

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

/** Runs the scenario; resolves with the runner's exit code, output and the checks it recorded. */
function runScenario(
  token: string | undefined,
): Promise<{ code: number | null; output: string; checks: Check[] }> {
  const out = mkdtempSync(join(results, 'run-'));
  const url = `http://127.0.0.1:${headless.port}/mcp/everything`;
  const args = [
    ...(token ? ['--import', WITH_TOKEN] : []),
    CONFORMANCE,
    'server',
    '--url',
    url,
    '--scenario',
    'dns-rebinding-protection',
    '-o',
    out,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, args, {
      env: { ...process.env, SB_CONFORMANCE_TOKEN: token ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const dirs = readdirSync(out);
      const file = dirs.length === 1 ? join(out, dirs[0] ?? '', 'checks.json') : undefined;
      const checks = file ? (JSON.parse(readFileSync(file, 'utf8')) as Check[]) : [];
      resolve({ code, output, checks });
    });
  });
}

describe('MCP conformance: dns-rebinding-protection against /mcp/everything', () => {
  it('passes with an editor token', async () => {
    const token = headless.tokens.create('conformance').token;
    const { code, output, checks } = await runScenario(token);
    expect(
      checks.map((c) => [c.id, c.status, c.details?.statusCode]),
      output,
    ).toEqual([
      ['localhost-host-rebinding-rejected', 'SUCCESS', 403],
      ['localhost-host-valid-accepted', 'SUCCESS', 200],
    ]);
    expect(code, output).toBe(0);
  });

  it('without a token: the foreign Host is still refused (403 comes before authentication), the valid one gets 401', async () => {
    const { checks } = await runScenario(undefined);
    expect(checks.map((c) => [c.id, c.status, c.details?.statusCode])).toEqual([
      ['localhost-host-rebinding-rejected', 'SUCCESS', 403],
      ['localhost-host-valid-accepted', 'FAILURE', 401],
    ]);
  });
});
