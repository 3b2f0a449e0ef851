import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { runCli } from '../../helpers/cli.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Issue 36 item 7 with a real CLI and the real keychain of test/run.sh's session: a reference that
// is almost right is refused by `add` saying which was meant, and nothing reaches the keychain;
// in servers.json it is an error at its field.

const keychain = new OsKeychain();
let t: TempHome;
beforeEach(() => {
  t = tempHome();
});
afterEach(async () => {
  for (const name of await keychain.list()) if (name.startsWith('probe-')) await keychain.delete(name);
  t.cleanup();
});

describe('references that are almost right', () => {
  it.each(['${secrets:probe-token}', '${secrte:probe-token}'])(
    'add --env API_TOKEN=%s is refused with the one meant; nothing is stored',
    async (typo) => {
      const run = await runCli(['add', 'probe', '--env', `API_TOKEN=${typo}`, '--', 'node', 'x.mjs'], t.env);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`"${typo}" looks like a reference but is not one`);
      expect(run.stderr).toContain('did you mean "${secret:probe-token}"?');
      expect((await keychain.list()).filter((n) => n.startsWith('probe-'))).toEqual([]);
      expect(existsSync(t.home.serversFile) ? readFileSync(t.home.serversFile, 'utf8') : '').not.toContain(
        'probe',
      );
    },
  );

  it('servers.json: the error names the field and the reference meant', async () => {
    writeFileSync(
      t.home.serversFile,
      JSON.stringify({ mcpServers: { probe: { command: 'node', env: { TOKEN: '$secret:probe-token' } } } }),
    );
    const run = await runCli(['status'], t.env);
    expect(run.stdout).toContain(
      'server "probe", field "env.TOKEN": "$secret:probe-token" looks like a reference but is not one',
    );
    expect(run.stdout).toContain('did you mean "${secret:probe-token}"?');
  });
});
