import { describe, expect, it } from 'vitest';
import { StatusReportSchema } from '../../../shared/status.ts';
import { runCli } from '../../helpers/cli.ts';
import { useOAuthServe } from '../../helpers/oauth-serve.ts';
import { waitFor } from '../../helpers/servers.ts';

/** `switchboard login` while Switchboard is not running: the next `serve` starts the server signed in. */

const s = useOAuthServe('off');
const NAME = s.name;

describe('switchboard login without a running Switchboard', () => {
  it('signs in by itself, and the next serve starts the server with that sign-in', async () => {
    await s.prepare({ approveAtOnce: true });
    const { t, fixture } = s;
    const env = s.signInEnv();

    const early = await runCli(['login', NAME], env);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain(`"${NAME}" is not approved, and signing in connects to it`);

    expect((await runCli(['approve', NAME, '--yes'], t.env)).code).toBe(0);
    const login = await runCli(['login', NAME], env);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`Signed in to "${NAME}". Switchboard uses it from its next start.`);

    await s.startServe();
    await waitFor(
      async () => {
        const status = await runCli(['status', '--json'], t.env);
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
