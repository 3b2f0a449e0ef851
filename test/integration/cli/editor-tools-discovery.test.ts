import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer } from '../../helpers/servers.ts';

// Issue 36 item 9: in discovery mode an editor lists only find_tools and call_tool, so
// `editors tools EDITOR` must not say "GETS IT yes" of every other tool. A real server (env-echo), the
// real core and bridge, a real SDK client with VS Code's token, and the real CLI talking to the core.

const setup = useHeadless();

describe('editors tools in discovery mode', () => {
  it('says the tools are reached through call_tool, as the editor lists them', async () => {
    setup.t.writeServers({
      mcpServers: { echo: { ...fixtureServer('env-echo-server.mjs'), idleTimeout: 0 } },
    });
    await setup.start({ editorSync: false });
    await setup.approveRunning(['echo']);

    const on = await runCli(['editors', 'tools', 'vscode', '--discovery', 'on'], setup.t.env);
    expect(on.code, on.stderr).toBe(0);
    const listed = (await (await setup.connect('/mcp', 'vscode')).listTools()).tools.map((t) => t.name);
    expect(listed.sort()).toEqual(['call_tool', 'find_tools']);

    const rows = on.stdout.split('\n').filter((line) => line.startsWith('echo '));
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) expect(row).toMatch(/^echo\s+\S+\s+via call_tool\s/);
    expect(on.stdout).toMatch(/VS Code \(discovery mode: find_tools and call_tool\): 2 tools/);
    expect(on.stdout).toContain('VS Code lists only find_tools and call_tool');

    // Off again: every tool is listed, and said so.
    const off = await runCli(['editors', 'tools', 'vscode', '--discovery', 'off'], setup.t.env);
    const offRows = off.stdout.split('\n').filter((line) => line.startsWith('echo '));
    for (const row of offRows) expect(row).toMatch(/^echo\s+\S+\s+yes\s/);
  });
});
