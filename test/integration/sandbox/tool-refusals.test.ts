import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import type { ServerStatus } from '../../../shared/status.ts';
import { textOf } from '../../helpers/bridge.ts';
import { runCli } from '../../helpers/cli.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';
import { sandboxUnavailable } from '../../helpers/sandbox.ts';

// Issue 33 items 3 and 4: what the sandbox refused that comes back inside a tool's answer (a hidden
// repo, a cache folder it could not make, a connection its proxy refused) is named in `status` with
// its one-step grant; the grant is a policy change approved as one; a refused connection is an error
// to the model; and a refusal that ended a run stops being the last error once the server works.
// Real bubblewrap, a real headless Switchboard, a real SDK server (test/fixtures/reach-server.mjs).
const skip = sandboxUnavailable() !== undefined;

describe.skipIf(skip)('refusals inside tool answers', { timeout: 120_000 }, () => {
  const h = useHeadless({ perTest: true });

  const statusOf = (name: string): ServerStatus | undefined =>
    h.headless.core.status.report().servers.find((s) => s.name === name);

  async function reach(extra: Record<string, unknown> = {}): Promise<Client> {
    h.t.writeServers({ mcpServers: { reach: { ...fixtureServer('reach-server.mjs'), ...extra } } });
    await h.start({ editorSync: false });
    await h.approveRunning(['reach']);
    return h.connect('/mcp/reach');
  }

  /** `switchboard grant`, as status says, then the server waits for approval of the change. */
  async function grantAsStatusSays(): Promise<void> {
    const grant = statusOf('reach')?.sandboxGrant;
    if (!grant) throw new Error('status offers no grant');
    const words = grant.command.split(' ');
    expect(words.slice(0, 2)).toEqual(['switchboard', 'grant']);
    const out = await runCli(words.slice(1), h.t.env);
    expect(out.code, out.stderr).toBe(0);
    await waitFor(() => statusOf('reach')?.state === 'pending-approval', 20_000, 'pending after grant');
    const review = h.headless.core.approvals.review('reach');
    expect(review.access.join('\n')).toContain(grant.path.replace(h.t.env.HOME ?? '', '~'));
    await h.approveRunning(['reach']);
  }

  it('a repo under a hidden folder: status names it with its grant; granted and approved, the tool works', async () => {
    const home = h.t.env.HOME ?? '';
    const repo = join(home, 'work', 'repo');
    mkdirSync(repo, { recursive: true });
    writeFileSync(join(repo, 'README.md'), 'hello\n');
    let client = await reach();
    const answer = await client.callTool({ name: 'repo', arguments: { path: repo } });
    expect(textOf(answer)).toBe('Working directory does not exist');
    const status = await waitFor(() => statusOf('reach')?.sandboxGrant && statusOf('reach'), 10_000, 'grant');
    expect(status.state).toBe('running');
    expect(status.sandboxRefused).toBe('sandbox refused reading ~/work/repo: add it to sandbox.read');
    expect(status.sandboxGrant).toEqual({
      path: repo,
      access: 'read',
      command: `switchboard grant reach read ${repo}`,
    });
    const cli = await runCli(['status'], h.t.env);
    expect(cli.stdout).toContain(`switchboard grant reach read ${repo}`);
    const json = JSON.parse((await runCli(['status', '--json'], h.t.env)).stdout) as {
      servers: ServerStatus[];
    };
    expect(json.servers.find((s) => s.name === 'reach')?.sandboxGrant?.command).toBe(
      `switchboard grant reach read ${repo}`,
    );

    await grantAsStatusSays();
    client = await h.connect('/mcp/reach');
    expect(textOf(await client.callTool({ name: 'repo', arguments: { path: repo } }))).toBe('README.md');
    expect(statusOf('reach')?.sandboxGrant).toBeUndefined();
  });

  it('a cache folder it could not make (as @playwright/mcp answers): writing, with a grant of its folder', async () => {
    const home = h.t.env.HOME ?? '';
    mkdirSync(join(home, '.cache'), { recursive: true });
    const browsers = join(home, '.cache', 'ms-playwright', 'chromium-1187');
    let client = await reach();
    const answer = await client.callTool({ name: 'cache', arguments: { path: browsers } });
    expect(textOf(answer)).toMatch(/^Error: E\w+: .*mkdir/);
    const status = await waitFor(() => statusOf('reach')?.sandboxGrant && statusOf('reach'), 10_000, 'grant');
    expect(status.sandboxRefused).toMatch(
      /^sandbox refused writing ~\/\.cache\/ms-playwright.*: add it to sandbox\.write$/,
    );
    expect(status.sandboxGrant).toMatchObject({
      path: join(home, '.cache', 'ms-playwright'),
      access: 'write',
    });

    await grantAsStatusSays();
    client = await h.connect('/mcp/reach');
    expect(textOf(await client.callTool({ name: 'cache', arguments: { path: browsers } }))).toBe(
      `made ${browsers}`,
    );
    expect(existsSync(browsers)).toBe(true);
  });

  it('a connection the proxy refused is an error to the model; a file refusal after it does not hide it', async () => {
    // Only a listed host is reached: the proxy refuses another without looking its name up.
    const client = await reach({ sandbox: { network: ['api.example.org'] } });
    const answer = await client.callTool({ name: 'get', arguments: { url: 'http://notion.example.com/v1' } });
    expect(textOf(answer)).toMatch(
      /^HTTP 403: [\s\S]*Switchboard: sandbox refused connecting to notion\.example\.com/,
    );
    expect(answer.isError).toBe(true);
    await waitFor(
      () => statusOf('reach')?.sandboxRefused?.includes('notion.example.com'),
      10_000,
      'network refusal',
    );
    // Then a folder it cannot make, as mcp-remote's ~/.mcp-auth: the status keeps the connection.
    const auth = join(h.t.env.HOME ?? '', '.mcp-auth');
    await client.callTool({ name: 'cache', arguments: { path: auth } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(statusOf('reach')?.sandboxRefused).toMatch(/^sandbox refused connecting to notion\.example\.com/);
  });

  it('a run that ended on a refusal is no longer the last error once a later start works', async () => {
    const hidden = join(h.t.env.HOME ?? '', 'tool', 'config.json');
    mkdirSync(join(h.t.env.HOME ?? '', 'tool'), { recursive: true });
    writeFileSync(hidden, '{}');
    h.t.writeServers({
      mcpServers: { reach: { ...fixtureServer('reach-server.mjs'), env: { REACH_FAIL_ONCE: hidden } } },
    });
    await h.start({ editorSync: false });
    h.headless.core.approvals.approve('reach', h.headless.core.approvals.review('reach').fingerprint);
    await waitFor(
      () => statusOf('reach')?.lastError?.includes('sandbox refused reading'),
      30_000,
      'failed',
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}: ${JSON.stringify(statusOf('reach'))}`);
    });
    const running = await waitFor(
      () => (statusOf('reach')?.state === 'running' ? statusOf('reach') : undefined),
      60_000,
      'running after the retry',
    );
    expect(running.lastError).toBeNull();
  });
});
