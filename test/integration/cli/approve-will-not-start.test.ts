import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findInstance } from '../../../electron/core/instance-file.ts';
import { TokenStore } from '../../../electron/core/tokens/token-store.ts';
import { ApprovalPreviewSchema, ApproveCliResultSchema } from '../../../shared/api.ts';
import { ApprovalsResponseSchema, UiRoutes } from '../../../shared/ui-api.ts';
import { runCli, startServe, stopProcess } from '../../helpers/cli.ts';
import { fixtureServer } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Issue 36 item 8: what would stop a server from starting is shown on its approval, not only after
// it: a command that is nowhere on PATH, and a ${secret:…} the keychain does not hold. The real CLI,
// a real `serve`, and the real keychain of test/run.sh (asked for names only).

/** Only this file uses this secret name: the keychain is shared by the whole test run. */
const SECRET = 'will-not-start-probe';
const GHOST = 'WILL NOT START: command not found on PATH: no-such-program';
const MISSING = `WILL NOT START: keychain secret "${SECRET}" is not stored — set it with \`switchboard secret set ${SECRET}\``;

let t: TempHome;

/** --force: servers.json still references it. */
const forget = () => runCli(['secret', 'rm', SECRET, '--force'], t.env);

beforeEach(async () => {
  t = tempHome();
  await forget();
});

afterEach(async () => {
  await forget();
  t.cleanup();
});

function servers(): void {
  t.writeServers({
    mcpServers: {
      ghost: { command: 'no-such-program' },
      needs: { ...fixtureServer('env-echo-server.mjs'), env: { TOKEN: `\${secret:${SECRET}}` } },
      fine: fixtureServer('env-echo-server.mjs'),
    },
  });
}

describe('switchboard approve: what would stop it from starting', () => {
  it('says a command added with `add` is nowhere on PATH', async () => {
    expect((await runCli(['add', 'ghost', '--', 'no-such-program'], t.env)).code).toBe(0);
    const shown = await runCli(['approve', 'ghost'], t.env);
    expect(shown.stdout).toContain(`  ! ${GHOST}`);
    const json = ApproveCliResultSchema.parse(
      JSON.parse((await runCli(['approve', 'ghost', '--json'], t.env)).stdout),
    );
    expect(json.preview.willNotStart[0]).toContain(GHOST);
  });

  it('says a referenced secret is not in the keychain, and stops saying it once it is set', async () => {
    servers();
    const before = await runCli(['approve', 'needs'], t.env);
    expect(before.stdout).toContain(`  ! ${MISSING}`);
    // A server that can start is not warned about.
    expect((await runCli(['approve', 'fine'], t.env)).stdout).not.toContain('WILL NOT START');
    expect((await runCli(['secret', 'set', SECRET], t.env, 'a-value\n')).code).toBe(0);
    expect((await runCli(['approve', 'needs'], t.env)).stdout).not.toContain('WILL NOT START');
  });

  it('shows both through a running serve: approve, the control API and the UI’s approval cards', async () => {
    servers();
    const serve = await startServe(t.env);
    try {
      expect((await runCli(['approve', 'ghost'], t.env)).stdout).toContain(`  ! ${GHOST}`);
      expect((await runCli(['approve', 'needs'], t.env)).stdout).toContain(`  ! ${MISSING}`);

      const port = findInstance(t.home)?.port;
      const control = new TokenStore(t.home.tokens).controlToken();
      const get = async (path: string): Promise<unknown> => {
        const res = await fetch(`http://127.0.0.1:${port}${path}`, {
          headers: { authorization: `Bearer ${control}` },
        });
        expect(res.status).toBe(200);
        return res.json();
      };
      const preview = ApprovalPreviewSchema.parse(await get('/api/servers/needs/approval'));
      expect(preview.willNotStart).toEqual([MISSING]);

      const cards = ApprovalsResponseSchema.parse(await get(UiRoutes.approvals)).approvals;
      const card = (name: string) => cards.find((c) => c.name === name)?.willNotStart;
      expect(card('ghost')?.[0]).toContain(GHOST);
      expect(card('needs')).toEqual([MISSING]);
      expect(card('fine')).toEqual([]);
    } finally {
      await stopProcess(serve.child);
    }
  });
});
