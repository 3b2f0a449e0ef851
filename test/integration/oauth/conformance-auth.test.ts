import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { clientAuthScenarios, runClientAuthSuite, SPEC_VERSION } from '../../conformance/client-auth.ts';
import { HANG_MS } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

/**
 * The MCP conformance suite's client auth scenarios (spec 2025-11-25: metadata discovery variants,
 * client ID metadata documents, scope selection and step-up, retry limits, token endpoint auth
 * methods, pre-registration), with `switchboard try --call test-tool` as the client: every scenario
 * passes with no failed check and no warning.
 */

const RESULTS = fileURLToPath(new URL('../../../test-results/conformance/', import.meta.url));
let t: TempHome | undefined;

afterAll(() => t?.cleanup());

describe('MCP conformance: client auth scenarios (switchboard try)', () => {
  // Every scenario runs at once; each waits for its client to end (an event), bounded only against a
  // hang: on a busy machine they are slow, not failing.
  it(`passes every ${SPEC_VERSION} client auth scenario`, { timeout: 2 * HANG_MS }, async () => {
    mkdirSync(RESULTS, { recursive: true });
    t = tempHome();
    const expected = await clientAuthScenarios();
    expect(expected.length).toBeGreaterThanOrEqual(14);
    const { results, output } = await runClientAuthSuite({
      resultsDir: RESULTS,
      env: t.env,
      timeoutMs: HANG_MS,
    });
    const byName = new Map(results.map((r) => [r.scenario, r]));
    const missing = expected.filter((name) => !byName.has(name));
    expect(missing, `scenarios without a result; the runner said:\n${output}`).toEqual([]);
    const problems = expected.flatMap((name) =>
      (byName.get(name)?.problems ?? []).map((p) => `${name}: ${p}`),
    );
    expect(problems, join(RESULTS, '…/checks.json')).toEqual([]);
    for (const name of expected)
      expect(byName.get(name)?.checks.some((c) => c.status === 'SUCCESS')).toBe(true);
  });
});
