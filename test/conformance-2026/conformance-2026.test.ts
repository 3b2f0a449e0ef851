import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckSchema } from '../conformance/suite.ts';
import { freePort, startSwitchboard, type SwitchboardUnderTest } from '../conformance/endpoints.ts';
import { defined, NODE } from '../helpers/servers.ts';

// The official MCP conformance suite's 2026-07-28 server scenarios (`--requirements 2026-07-28`: the
// ones that revision requires, frozen at its release) through Switchboard: the suite's reference
// server (which speaks 2026-07-28) is a url entry, and the runner talks to /mcp/<entry> with an editor
// token (preloaded, test/fixtures/conformance-auth.mjs). Every required scenario must pass: the
// editors' side (edge rules, MRTR, listen, cache hints) and the servers' side (a 2026 server, its
// input_required) at once. Needs test/conformance-2026 installed (install.sh; .ci/run does it).

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const PACKAGE = here('./node_modules/@modelcontextprotocol/conformance/');
const RUNNER = join(PACKAGE, 'dist/index.js');
const TSX = here('./node_modules/tsx/dist/cli.mjs');
const REFERENCE = here('./reference/');
const WITH_TOKEN = here('../fixtures/conformance-auth.mjs');
const installed = existsSync(RUNNER) && existsSync(TSX);
const required = process.env.SWITCHBOARD_REQUIRE_CONFORMANCE_2026 === '1';

/** The server scenarios the revision requires: the `server:` list of the suite's requirements file. */
function requiredScenarios(): string[] {
  const text = readFileSync(join(PACKAGE, 'requirements/2026-07-28.yaml'), 'utf8');
  const section = /^server:\n((?: {2}- \S+\n)+)/m.exec(text)?.[1] ?? '';
  return [...section.matchAll(/- (\S+)/g)].map((m) => m[1] ?? '');
}

let reference: ChildProcess | undefined;
let switchboard: SwitchboardUnderTest | undefined;
let outDir = '';

async function startReference(): Promise<string> {
  // It prints the port it was given, not the one it got: it is given a free one.
  const port = await freePort();
  reference = spawn(NODE, [TSX, 'everything-server.ts'], {
    cwd: REFERENCE,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stdout = defined(reference.stdout, 'reference server stdout');
  return new Promise((resolve, reject) => {
    let seen = '';
    stdout.on('data', (d: Buffer) => {
      seen += d.toString();
      const m = /MCP endpoint: (http:\/\/localhost:\d+\/mcp)/.exec(seen);
      if (m?.[1]) resolve(m[1]);
    });
    reference?.once('exit', (code) => reject(new Error(`the reference server exited (${code}):\n${seen}`)));
  });
}

function runSuite(url: string, token: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      NODE,
      ['--import', WITH_TOKEN, RUNNER, 'server', '--url', url, '--requirements', '2026-07-28', '-o', outDir],
      { env: { ...process.env, SB_CONFORMANCE_TOKEN: token }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', () => resolve(output));
  });
}

/** Each scenario's failed checks (`check: message`), from the checks.json the runner wrote per scenario. */
function failuresByScenario(): Map<string, string[]> {
  const results = new Map<string, string[]>();
  for (const dir of readdirSync(outDir)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir)?.[1];
    if (!scenario) continue;
    const checks = CheckSchema.array().parse(
      JSON.parse(readFileSync(join(outDir, dir, 'checks.json'), 'utf8')),
    );
    results.set(
      scenario,
      checks.filter((c) => c.status === 'FAILURE').map((c) => `${c.id}: ${c.errorMessage ?? '(no message)'}`),
    );
  }
  return results;
}

describe.skipIf(!installed && !required)(
  'MCP conformance, 2026-07-28 server scenarios through the bridge',
  () => {
    let output = '';

    beforeAll(async () => {
      if (!installed)
        throw new Error('test/conformance-2026 is not installed: run bash test/conformance-2026/install.sh');
      outDir = mkdtempSync(join(tmpdir(), 'sb-conformance-2026-'));
      const url = await startReference();
      switchboard = await startSwitchboard(url);
      output = await runSuite(switchboard.url('conf-http'), switchboard.token);
    }, 240_000);

    afterAll(async () => {
      await switchboard?.stop();
      reference?.kill();
      if (outDir) rmSync(outDir, { recursive: true, force: true });
    });

    it('passes every scenario 2026-07-28 requires of a server, through /mcp/<entry>', () => {
      const scenarios = requiredScenarios();
      expect(scenarios.length, 'the revision requires 37 server scenarios').toBe(37);
      const results = failuresByScenario();
      const failed = scenarios.flatMap((s) => {
        const failures = results.get(s);
        if (failures === undefined) return [`${s}: no result (the runner said:\n${output.slice(-2000)})`];
        return failures.map((f) => `${s} → ${f}`);
      });
      expect(failed, 'scenario → failed check: message').toEqual([]);
    });
  },
);
