import type { ChildProcess } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusReportSchema, type ServerStatus } from '../../../shared/status.ts';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { SIGN_IN_KEYCHAIN_SERVICE } from '../../../electron/core/oauth/sign-in-store.ts';
import { httpClient, textOf } from '../../helpers/bridge.ts';
import { exited, runCli, startServe } from '../../helpers/cli.ts';
import { startOAuthFixture, type OAuthFixture } from '../../helpers/oauth-server.ts';
import { HANG_MS, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

/**
 * OAuth for a remote server that speaks only MCP 2026-07-28 (issue 34, servers' side): `switchboard
 * login` signs in to it (its check takes the server's server/discover with the new token, as the
 * server refuses initialize), Switchboard reaches it with the stored token, and when it refuses the
 * access token (401) Switchboard refreshes it with the stored refresh token and goes on, as the 2025
 * transport does. Real processes: `serve`, the CLI's `login`, the real keychain (test/run.sh), the
 * OAuth fixture serving /mcp with the SDK v2 server only.
 */

const NAME = `fx2026-${Math.random().toString(36).slice(2, 8)}`;
let t: TempHome;
let fixture: OAuthFixture;
let serve: { child: ChildProcess; output: () => string };
let editorToken: string;
let port: number;

async function status(): Promise<ServerStatus | undefined> {
  const result = await runCli(['status', '--json'], t.env);
  expect(result.code, result.stderr).toBe(0);
  return StatusReportSchema.parse(JSON.parse(result.stdout)).servers.find((s) => s.name === NAME);
}

function stateIs(state: ServerStatus['state']): Promise<ServerStatus> {
  return waitFor(
    async () => {
      const s = await status();
      return s?.state === state ? s : undefined;
    },
    HANG_MS,
    `${NAME} ${state}`,
  );
}

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
  fixture = await startOAuthFixture({ approveAtOnce: true, modern: true });
  t = tempHome();
  t.writeServers({ mcpServers: { [NAME]: { url: fixture.url } } });
  serve = await startServe(t.env);
  port = Number(/127\.0\.0\.1:(\d+)/.exec(serve.output())?.[1]);
  const token = await runCli(['token', 'create', 'test-editor'], t.env);
  expect(token.code, token.stderr).toBe(0);
  editorToken = token.stdout.trim().split('\n').at(-1) ?? '';
}, HANG_MS);

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  if (serve) await exited(serve.child);
  fixture?.stop();
  await new OsKeychain({ service: SIGN_IN_KEYCHAIN_SERVICE }).delete(NAME).catch(() => false);
  t?.cleanup();
});

describe('OAuth for a 2026-only remote server', { timeout: HANG_MS }, () => {
  it('is signed in like a 2025 one, and a refused access token is refreshed, not an error', async () => {
    expect((await runCli(['approve', NAME, '--yes'], t.env)).code).toBe(0);
    await stateIs('needs-sign-in');
    const login = await runCli(['login', NAME], { ...t.env, SWITCHBOARD_SIGN_IN: 'fetch' });
    expect(login.code, login.stderr).toBe(0);
    await stateIs('running');
    expect(await callThroughBridge('signed in')).toBe('signed-in echo: signed in');

    // The server stops taking the access token Switchboard holds (revoked, rotated on its side).
    const before = (await fixture.state()).counts;
    await fixture.revokeAccessTokens();
    expect(await callThroughBridge('after a 401')).toBe('signed-in echo: after a 401');
    const after = (await fixture.state()).counts;
    expect(after.refreshes).toBeGreaterThan(before.refreshes);
    expect(after.authorizations).toBe(before.authorizations); // no new sign-in was needed
    expect((await status())?.state).toBe('running');
  });
});
