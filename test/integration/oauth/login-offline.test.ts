import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { SIGN_IN_KEYCHAIN_SERVICE } from '../../../electron/core/oauth/sign-in-store.ts';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { StatusReportSchema } from '../../../shared/status.ts';
import { exited, runCli, startServe } from '../../helpers/cli.ts';
import { startOAuthFixture, type OAuthFixture } from '../../helpers/oauth-server.ts';
import { waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

/** `switchboard login` while Switchboard is not running: the next `serve` starts the server signed in. */

const NAME = `off-${Math.random().toString(36).slice(2, 8)}`;
let t: TempHome | undefined;
let fixture: OAuthFixture | undefined;
let serve: { child: ChildProcess } | undefined;

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  if (serve) await exited(serve.child);
  fixture?.stop();
  await new OsKeychain({ service: SIGN_IN_KEYCHAIN_SERVICE }).delete(NAME).catch(() => false);
  t?.cleanup();
});

describe('switchboard login without a running Switchboard', () => {
  it('signs in by itself, and the next serve starts the server with that sign-in', async () => {
    fixture = await startOAuthFixture({ approveAtOnce: true });
    t = tempHome();
    t.writeServers({ mcpServers: { [NAME]: { url: fixture.url } } });
    const env = { ...t.env, SWITCHBOARD_SIGN_IN: 'fetch' };

    const early = await runCli(['login', NAME], env);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain(`"${NAME}" is not approved, and signing in connects to it`);

    expect((await runCli(['approve', NAME, '--yes'], t.env)).code).toBe(0);
    const login = await runCli(['login', NAME], env);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`Signed in to "${NAME}". Switchboard uses it from its next start.`);

    serve = await startServe(t.env);
    await waitFor(
      async () => {
        const status = await runCli(['status', '--json'], t?.env ?? {});
        const server = StatusReportSchema.parse(JSON.parse(status.stdout)).servers.find(
          (s) => s.name === NAME,
        );
        expect(server?.state).not.toBe('needs-sign-in');
        return server?.state === 'running';
      },
      30_000,
      `${NAME} running`,
    );
    const { counts } = await fixture.state();
    expect(counts.authorizations).toBe(1);

    const again = await runCli(['login', NAME], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('the sign-in Switchboard holds still works');
  });
});
