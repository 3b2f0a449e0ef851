import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { useOAuthServe } from '../../helpers/oauth-serve.ts';
import { HANG_MS } from '../../helpers/servers.ts';

/**
 * OAuth for a remote server that speaks only MCP 2026-07-28 (issue 34, servers' side): `switchboard
 * login` signs in to it (its check takes the server's server/discover with the new token, as the
 * server refuses initialize), Switchboard reaches it with the stored token, and when it refuses the
 * access token (401) Switchboard refreshes it with the stored refresh token and goes on, as the 2025
 * transport does. Real processes: `serve`, the CLI's `login`, the real keychain (test/run.sh), the
 * OAuth fixture serving /mcp with the SDK v2 server only.
 */

const s = useOAuthServe('fx2026');
const NAME = s.name;

beforeAll(() => s.startAll({ approveAtOnce: true, modern: true }), HANG_MS);

describe('OAuth for a 2026-only remote server', { timeout: HANG_MS }, () => {
  it('is signed in like a 2025 one, and a refused access token is refreshed, not an error', async () => {
    expect((await runCli(['approve', NAME, '--yes'], s.t.env)).code).toBe(0);
    await s.stateIs('needs-sign-in');
    const login = await runCli(['login', NAME], s.signInEnv());
    expect(login.code, login.stderr).toBe(0);
    await s.stateIs('running');
    expect(await s.callThroughBridge('signed in')).toBe('signed-in echo: signed in');

    // The server stops taking the access token Switchboard holds (revoked, rotated on its side).
    const before = (await s.fixture.state()).counts;
    await s.fixture.revokeAccessTokens();
    expect(await s.callThroughBridge('after a 401')).toBe('signed-in echo: after a 401');
    const after = (await s.fixture.state()).counts;
    expect(after.refreshes).toBeGreaterThan(before.refreshes);
    expect(after.authorizations).toBe(before.authorizations); // no new sign-in was needed
    expect((await s.status())?.state).toBe('running');
  });
});
