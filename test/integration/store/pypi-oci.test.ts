import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { editorToken, httpClient } from '../../helpers/bridge.ts';
import { defined, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// PyPI (uvx) and OCI (docker run) servers from the package store, end to end: approval resolves the
// exact versions with hashes (uv) or the image digest (docker), the server starts from the pin, and a
// restart asks no registry. They need uv with PyPI, or a running Docker engine: where those are
// missing the tests are skipped, and the reason is printed (this machine has neither; the parts that
// run without them are test/unit/store/).

function missing(check: () => void, what: string): string | undefined {
  try {
    check();
    return undefined;
  } catch (err) {
    return `${what} (${(err as Error).message.split('\n')[0]})`;
  }
}

const noUv = missing(() => execFileSync('uv', ['--version'], { stdio: 'pipe' }), 'uv is not installed');
const noDocker = missing(
  () =>
    execFileSync('docker', ['info', '--format', '{{.ServerVersion}}'], { stdio: 'pipe', timeout: 10_000 }),
  'no Docker engine is running',
);
if (noUv) console.warn(`SKIPPED PyPI store test: ${noUv}`);
if (noDocker) console.warn(`SKIPPED OCI store test: ${noDocker}`);

let t: TempHome;
let headless: Headless | undefined;
beforeEach(() => {
  t = tempHome();
});
afterEach(async () => {
  await headless?.stop();
  headless = undefined;
  t.cleanup();
});

async function approveAndList(server: { command: string; args: string[] }): Promise<string[]> {
  t.writeServers({ mcpServers: { pinned: server } });
  const h = await startHeadless({
    home: t.home,
    keychain: new MemoryKeychain(),
    env: t.env,
    port: 0,
    editorSync: false,
  });
  headless = h;
  const shown = await h.core.approvals.preview('pinned');
  const pkg = defined(shown.package, 'package review');
  expect(pkg.lines.join('\n')).toMatch(/pinned: (sha256:)?[0-9a-f]{64}/);
  h.core.approvals.approve('pinned', shown.fingerprint);
  await waitFor(
    () => h.core.status.report().servers.find((s) => s.state === 'running' && s.toolCount !== null),
    300_000,
    'running',
  );
  const client = await httpClient(`http://127.0.0.1:${h.port}/mcp/pinned`, editorToken(h.tokens));
  const tools = (await client.listTools()).tools.map((tool) => tool.name);
  await client.close();
  return tools;
}

describe('package store: PyPI and OCI', { timeout: 600_000 }, () => {
  it.skipIf(noUv !== undefined)(
    'pins a uvx server to exact versions with hashes and runs it from its venv',
    async () => {
      expect(await approveAndList({ command: 'uvx', args: ['mcp-server-time'] })).toContain(
        'get_current_time',
      );
      const [install] = defined(headless, 'headless').core.store.storeUsage().installs;
      expect(install?.id).toMatch(/^pypi\/mcp-server-time@/);
    },
  );

  it.skipIf(noDocker !== undefined)('pins a docker run server to its image digest', async () => {
    expect(await approveAndList({ command: 'docker', args: ['run', '-i', '--rm', 'mcp/time'] })).toContain(
      'get_current_time',
    );
    const plan = defined(headless, 'headless').core.state.approval('pinned')?.config.package;
    expect(plan?.lock).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
