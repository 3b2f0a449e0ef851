import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { SIGN_IN_KEYCHAIN_SERVICE } from '../../../electron/core/oauth/sign-in-store.ts';
import { runCli } from '../../helpers/cli.ts';
import { filesContaining } from '../../helpers/oauth-server.ts';
import { useOAuthServe } from '../../helpers/oauth-serve.ts';
import { HANG_MS } from '../../helpers/servers.ts';

/**
 * OAuth sign-in for a remote server, end to end through real processes: `switchboard serve`, the CLI,
 * the real keychain, and an OAuth-protected MCP server built on the SDK's own auth router
 * (test/fixtures/oauth-server.mjs) that approves at once. SWITCHBOARD_SIGN_IN=fetch makes `login`
 * fetch the authorization page and follow its redirect instead of opening a browser. Steps build on
 * each other, in order.
 */

const TTL_SECONDS = 3;
// Sign-ins live in the keychain under the server's name: unique per run, as tests share the keyring.
const s = useOAuthServe('fx');
const NAME = s.name;

// a serve start on a busy machine: waited for, not raced
beforeAll(() => s.startAll({ tokenTtlSeconds: TTL_SECONDS, approveAtOnce: true }), HANG_MS);

// Each step waits for what it causes (a state, an answer); the bound is against a hang only.
describe('OAuth sign-in for a remote server', { timeout: HANG_MS }, () => {
  it('waits in needs-sign-in (no retries) and tells an editor to sign in in Switchboard', async () => {
    const approve = await runCli(['approve', NAME, '--yes'], s.t.env);
    expect(approve.code, approve.stderr).toBe(0);
    const waiting = await s.stateIs('needs-sign-in');
    expect(waiting.lastError).toMatch(/sign in/);

    const answer = await s.callThroughBridge('hello');
    expect(answer).toMatch(/^error: .*needs you to sign in.*in Switchboard/);
    // An AI agent reads this: it names no command to run.
    expect(answer).not.toMatch(/switchboard (login|approve|restart)/);

    const table = await runCli(['status'], s.t.env);
    expect(table.stdout).toMatch(new RegExp(`${NAME}\\s+needs-sign-in.*switchboard login ${NAME}`));
    // Waiting is not failing: no backoff, no restarts while nobody signs in.
    await new Promise((r) => setTimeout(r, 1_500));
    const still = await s.status();
    expect(still?.state).toBe('needs-sign-in');
    expect(still?.restarts).toBe(waiting.restarts);
  });

  it('switchboard login signs in, the server runs, and an editor calls its tool through the bridge', async () => {
    // A sign-in someone started in the UI and left in the browser: login takes over from it.
    const control = readFileSync(join(s.t.home.tokens, 'control'), 'utf8').trim();
    const api = (method: string) =>
      fetch(`http://127.0.0.1:${s.port}/api/servers/${NAME}/sign-in`, {
        method,
        headers: { authorization: `Bearer ${control}`, 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      }).then((r) => r.json() as Promise<Record<string, unknown>>);
    const started = await api('POST');
    expect(started).toMatchObject({ status: 'browser', url: expect.stringContaining('/authorize?') });
    expect((await api('GET')).pending).toMatchObject({ url: started.url });

    const login = await runCli(['login', NAME], s.signInEnv());
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`Signed in to "${NAME}"`);
    await s.stateIs('running');
    expect(await s.callThroughBridge('after sign-in')).toBe('signed-in echo: after sign-in');
    const { counts } = await s.fixture.state();
    expect(counts.registrations).toBe(1);
    expect(counts.codeExchanges).toBe(1);
  });

  it('refreshes a short-lived access token: calls keep working after it expired', async () => {
    const before = (await s.fixture.state()).counts.refreshes;
    await new Promise((r) => setTimeout(r, (TTL_SECONDS + 1) * 1000));
    expect(await s.callThroughBridge('later')).toBe('signed-in echo: later');
    await new Promise((r) => setTimeout(r, (TTL_SECONDS + 1) * 1000));
    expect(await s.callThroughBridge('later still')).toBe('signed-in echo: later still');
    const after = await s.fixture.state();
    expect(after.counts.refreshes).toBeGreaterThanOrEqual(before + 2);
    expect(after.counts.authorizations).toBe(1); // no new sign-in was needed
    expect((await s.status())?.state).toBe('running');
  });

  it('a revoked refresh token brings back needs-sign-in, not a crash loop', async () => {
    await s.fixture.revokeRefreshTokens();
    await new Promise((r) => setTimeout(r, (TTL_SECONDS + 1) * 1000));
    expect(await s.callThroughBridge('revoked')).toMatch(/^error: .*sign in/);
    const waiting = await s.stateIs('needs-sign-in');
    await new Promise((r) => setTimeout(r, 2_000));
    const still = await s.status();
    expect(still?.state).toBe('needs-sign-in');
    expect(still?.restarts).toBe(waiting.restarts);
    expect((await s.fixture.state()).counts.refused).toBeGreaterThanOrEqual(1);

    // Signing in again brings it back.
    const login = await runCli(['login', NAME], s.signInEnv());
    expect(login.code, login.stderr).toBe(0);
    await s.stateIs('running');
    expect(await s.callThroughBridge('again')).toBe('signed-in echo: again');
  });

  it('switchboard logout forgets the sign-in; the server waits for a new one', async () => {
    const logout = await runCli(['logout', NAME], s.t.env);
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stdout).toContain(`Signed out of "${NAME}"`);
    await s.stateIs('needs-sign-in');
    expect(await new OsKeychain({ service: SIGN_IN_KEYCHAIN_SERVICE }).get(NAME)).toBeUndefined();
  });

  it('leaves no token or client secret in any file under HOME, in any log, or in its output', async () => {
    const secrets = await s.fixture.issuedSecrets();
    expect(secrets.length).toBeGreaterThanOrEqual(6);
    expect(filesContaining(s.t.dir, secrets)).toEqual([]);
    const output = s.serve.output();
    expect(secrets.filter((s) => output.includes(s))).toEqual([]);
    const logs = await runCli(['logs', NAME, '--lines', '1000'], s.t.env);
    expect(logs.stdout).toContain('needs sign-in');
    expect(secrets.filter((s) => logs.stdout.includes(s))).toEqual([]);
  });
});
