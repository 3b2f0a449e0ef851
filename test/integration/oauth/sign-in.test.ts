import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusReportSchema, type ServerStatus } from '../../../shared/status.ts';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { SIGN_IN_KEYCHAIN_SERVICE } from '../../../electron/core/oauth/sign-in-store.ts';
import { httpClient, textOf } from '../../helpers/bridge.ts';
import { exited, runCli, startServe } from '../../helpers/cli.ts';
import { filesContaining, startOAuthFixture, type OAuthFixture } from '../../helpers/oauth-server.ts';
import { HANG_MS, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

/**
 * OAuth sign-in for a remote server, end to end through real processes: `switchboard serve`, the CLI,
 * the real keychain, and an OAuth-protected MCP server built on the SDK's own auth router
 * (test/fixtures/oauth-server.mjs) that approves at once. SWITCHBOARD_SIGN_IN=fetch makes `login`
 * fetch the authorization page and follow its redirect instead of opening a browser. Steps build on
 * each other, in order.
 */

const TTL_SECONDS = 3;
// Sign-ins live in the keychain under the server's name: unique per run, as tests share the keyring.
const NAME = `fx-${Math.random().toString(36).slice(2, 8)}`;
let t: TempHome;
let fixture: OAuthFixture;
let serve: { child: ChildProcess; output: () => string };
let editorToken: string;
let port: number;
const env = () => ({ ...t.env, SWITCHBOARD_SIGN_IN: 'fetch' });

async function status(): Promise<ServerStatus | undefined> {
  const result = await runCli(['status', '--json'], t.env);
  expect(result.code, result.stderr).toBe(0);
  return StatusReportSchema.parse(JSON.parse(result.stdout)).servers.find((s) => s.name === NAME);
}

function stateIs(state: ServerStatus['state'], what = state): Promise<ServerStatus> {
  return waitFor(
    async () => {
      const s = await status();
      return s?.state === state ? s : undefined;
    },
    HANG_MS,
    `${NAME} ${what}`,
  );
}

/** An editor's tool call through the bridge: the answer's text, or the MCP error's message. */
async function callThroughBridge(message: string): Promise<string> {
  let client: Client | undefined;
  try {
    client = await httpClient(`http://127.0.0.1:${port}/mcp/${NAME}`, editorToken);
    return textOf(await client.callTool({ name: 'echo', arguments: { message } }));
  } catch (err) {
    if (err instanceof McpError) return `error: ${err.message}`;
    throw err;
  } finally {
    await client?.close();
  }
}

beforeAll(async () => {
  fixture = await startOAuthFixture({ tokenTtlSeconds: TTL_SECONDS, approveAtOnce: true });
  t = tempHome();
  t.writeServers({ mcpServers: { [NAME]: { url: fixture.url } } });
  serve = await startServe(t.env);
  port = Number(/127\.0\.0\.1:(\d+)/.exec(serve.output())?.[1]);
  const token = await runCli(['token', 'create', 'test-editor'], t.env);
  expect(token.code, token.stderr).toBe(0);
  editorToken = token.stdout.trim().split('\n').at(-1) ?? '';
}, HANG_MS); // a serve start on a busy machine: waited for, not raced

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  if (serve) await exited(serve.child);
  fixture?.stop();
  await new OsKeychain({ service: SIGN_IN_KEYCHAIN_SERVICE }).delete(NAME).catch(() => false);
  t?.cleanup();
});

// Each step waits for what it causes (a state, an answer); the bound is against a hang only.
describe('OAuth sign-in for a remote server', { timeout: HANG_MS }, () => {
  it('waits in needs-sign-in (no retries) and tells an editor to sign in in Switchboard', async () => {
    const approve = await runCli(['approve', NAME, '--yes'], t.env);
    expect(approve.code, approve.stderr).toBe(0);
    const waiting = await stateIs('needs-sign-in');
    expect(waiting.lastError).toMatch(/sign in/);

    const answer = await callThroughBridge('hello');
    expect(answer).toMatch(/^error: .*needs you to sign in.*in Switchboard/);
    // An AI agent reads this: it names no command to run.
    expect(answer).not.toMatch(/switchboard (login|approve|restart)/);

    const table = await runCli(['status'], t.env);
    expect(table.stdout).toMatch(new RegExp(`${NAME}\\s+needs-sign-in.*switchboard login ${NAME}`));
    // Waiting is not failing: no backoff, no restarts while nobody signs in.
    await new Promise((r) => setTimeout(r, 1_500));
    const still = await status();
    expect(still?.state).toBe('needs-sign-in');
    expect(still?.restarts).toBe(waiting.restarts);
  });

  it('switchboard login signs in, the server runs, and an editor calls its tool through the bridge', async () => {
    // A sign-in someone started in the UI and left in the browser: login takes over from it.
    const control = readFileSync(join(t.home.tokens, 'control'), 'utf8').trim();
    const api = (method: string) =>
      fetch(`http://127.0.0.1:${port}/api/servers/${NAME}/sign-in`, {
        method,
        headers: { authorization: `Bearer ${control}`, 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      }).then((r) => r.json() as Promise<Record<string, unknown>>);
    const started = await api('POST');
    expect(started).toMatchObject({ status: 'browser', url: expect.stringContaining('/authorize?') });
    expect((await api('GET')).pending).toMatchObject({ url: started.url });

    const login = await runCli(['login', NAME], env());
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`Signed in to "${NAME}"`);
    await stateIs('running');
    expect(await callThroughBridge('after sign-in')).toBe('signed-in echo: after sign-in');
    const { counts } = await fixture.state();
    expect(counts.registrations).toBe(1);
    expect(counts.codeExchanges).toBe(1);
  });

  it('refreshes a short-lived access token: calls keep working after it expired', async () => {
    const before = (await fixture.state()).counts.refreshes;
    await new Promise((r) => setTimeout(r, (TTL_SECONDS + 1) * 1000));
    expect(await callThroughBridge('later')).toBe('signed-in echo: later');
    await new Promise((r) => setTimeout(r, (TTL_SECONDS + 1) * 1000));
    expect(await callThroughBridge('later still')).toBe('signed-in echo: later still');
    const after = await fixture.state();
    expect(after.counts.refreshes).toBeGreaterThanOrEqual(before + 2);
    expect(after.counts.authorizations).toBe(1); // no new sign-in was needed
    expect((await status())?.state).toBe('running');
  });

  it('a revoked refresh token brings back needs-sign-in, not a crash loop', async () => {
    await fixture.revokeRefreshTokens();
    await new Promise((r) => setTimeout(r, (TTL_SECONDS + 1) * 1000));
    expect(await callThroughBridge('revoked')).toMatch(/^error: .*sign in/);
    const waiting = await stateIs('needs-sign-in');
    await new Promise((r) => setTimeout(r, 2_000));
    const still = await status();
    expect(still?.state).toBe('needs-sign-in');
    expect(still?.restarts).toBe(waiting.restarts);
    expect((await fixture.state()).counts.refused).toBeGreaterThanOrEqual(1);

    // Signing in again brings it back.
    const login = await runCli(['login', NAME], env());
    expect(login.code, login.stderr).toBe(0);
    await stateIs('running');
    expect(await callThroughBridge('again')).toBe('signed-in echo: again');
  });

  it('switchboard logout forgets the sign-in; the server waits for a new one', async () => {
    const logout = await runCli(['logout', NAME], t.env);
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stdout).toContain(`Signed out of "${NAME}"`);
    await stateIs('needs-sign-in');
    expect(await new OsKeychain({ service: SIGN_IN_KEYCHAIN_SERVICE }).get(NAME)).toBeUndefined();
  });

  it('leaves no token or client secret in any file under HOME, in any log, or in its output', async () => {
    const secrets = await fixture.issuedSecrets();
    expect(secrets.length).toBeGreaterThanOrEqual(6);
    expect(filesContaining(t.dir, secrets)).toEqual([]);
    const output = serve.output();
    expect(secrets.filter((s) => output.includes(s))).toEqual([]);
    const logs = await runCli(['logs', NAME, '--lines', '1000'], t.env);
    expect(logs.stdout).toContain('needs sign-in');
    expect(secrets.filter((s) => logs.stdout.includes(s))).toEqual([]);
  });
});
