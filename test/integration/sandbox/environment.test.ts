import { describe, expect, it } from 'vitest';
import { textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { sandboxUnavailable } from '../../helpers/sandbox.ts';
import { fixtureServer } from '../../helpers/servers.ts';

// Issue 32 item 6: a real headless Switchboard started from a shell that holds a token, a cloud key
// and the desktop bus address runs a real MCP server (env-echo-server.mjs), sandboxed (real
// bubblewrap) and not: each sees the short named list and what its entry passes on purpose, never
// the rest of the shell's environment.

const PLANTED = {
  GITHUB_TOKEN: 'ghp_planted0000000000000000000000000000',
  AWS_SECRET_ACCESS_KEY: 'planted/aws/secret/key/000000000000000000',
  DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
};

const skip = sandboxUnavailable() !== undefined;
const s = useHeadless();

describe('what a server gets of the environment serve was started with', { timeout: 120_000 }, () => {
  it.skipIf(skip)(
    'sandboxed or not: PATH, HOME and what its env names, none of the shell’s secrets',
    async () => {
      const env: NodeJS.ProcessEnv = { ...s.t.env, ...PLANTED, GIVEN_ON_PURPOSE: 'passed-by-name' };
      s.t.writeServers({
        mcpServers: {
          boxed: { ...fixtureServer('env-echo-server.mjs'), env: { DECLARED: '${env:GIVEN_ON_PURPOSE}' } },
          open: {
            ...fixtureServer('env-echo-server.mjs'),
            env: { DECLARED: '${env:GIVEN_ON_PURPOSE}' },
            sandbox: false,
          },
        },
      });
      const h = await s.start({ env, editorSync: false });

      // The approval says which variables it gets, by name, and never their values.
      for (const name of ['boxed', 'open']) {
        const line = h.core.approvals
          .review(name)
          .access.find((l) => l.startsWith('gets from your environment:'));
        expect(line).toBeDefined();
        expect(line).toContain('PATH');
        expect(line).toContain('HOME');
        expect(line).not.toContain('GITHUB_TOKEN');
        expect(line).not.toContain(env.HOME ?? '~');
      }

      await s.approveRunning(['boxed', 'open']);
      for (const name of ['boxed', 'open']) {
        const client = await s.connect(`/mcp/${name}`);
        const seen = JSON.parse(
          textOf(await client.callTool({ name: 'environment', arguments: {} })),
        ) as Record<string, string>;
        for (const planted of Object.keys(PLANTED))
          expect(seen[planted], `${name}: ${planted}`).toBeUndefined();
        expect(Object.values(seen).join('\n')).not.toContain(PLANTED.GITHUB_TOKEN);
        expect(seen.DECLARED, name).toBe('passed-by-name');
        expect(seen.PATH, name).toBeTruthy();
        expect(seen.HOME, name).toBe(env.HOME);
        // Nothing of Switchboard's own beyond the list either (its home, the test runner's variables).
        expect(seen.SWITCHBOARD_HOME, name).toBeUndefined();
        expect(seen.GIVEN_ON_PURPOSE, name).toBeUndefined();
      }
    },
  );
});
