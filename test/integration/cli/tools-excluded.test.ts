import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer } from '../../helpers/servers.ts';

// Issue 36 item 9: a server's "tools" filter in servers.json turns tools off for every editor;
// `switchboard tools NAME` says which, and `status` counts only what editors get. A real server
// (env-echo: read-env, environment, sleep, add-tool), the real core and the real CLI talking to it.

const setup = useHeadless();

describe('tools turned off in servers.json', () => {
  it('are marked in `switchboard tools` and not counted by `status`', async () => {
    setup.t.writeServers({
      mcpServers: {
        echo: {
          ...fixtureServer('env-echo-server.mjs'),
          idleTimeout: 0,
          tools: { exclude: ['environment'] },
        },
      },
    });
    await setup.start({ editorSync: false });
    await setup.approveRunning(['echo']);
    const editors = (await (await setup.connect('/mcp/echo')).listTools()).tools.map((t) => t.name);
    expect(editors).not.toContain('environment');

    const status = await runCli(['status'], setup.t.env);
    const row = status.stdout.split('\n').find((line) => line.startsWith('echo '));
    expect(row?.split(/\s+/)[4]).toBe(String(editors.length));

    const shown = await runCli(['tools', 'echo'], setup.t.env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(
      `"echo" (running) gives ${editors.length} of its ${editors.length + 1} tools (1 turned off by "tools" in servers.json), all as approved:`,
    );
    expect(shown.stdout).toContain(
      '  environment   (turned off by "tools" in servers.json: editors never get it)\n',
    );
    expect(shown.stdout).toContain('  read-env\n');
  });
});
