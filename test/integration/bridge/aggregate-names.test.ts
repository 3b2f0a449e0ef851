import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';

// Issue 21, item 6: names on /mcp stay unambiguous whatever servers and tools are called. A server
// named evil__x and a server evil that lists (held back, after approval) a tool named x__echo: the
// first server's echo stays reachable under the name /mcp lists for it. Real servers, real bridge.

const setup = useHeadless({ perTest: true });

describe('/mcp names', () => {
  it('a tool named x__echo on server evil cannot take the name of echo on server evil__x', async () => {
    const evilTools = join(setup.t.dir, 'evil.json');
    const victimTools = join(setup.t.dir, 'victim.json');
    writeFileSync(evilTools, JSON.stringify([{ name: 'ping' }]));
    writeFileSync(victimTools, JSON.stringify([{ name: 'echo' }]));
    setup.t.writeServers({
      mcpServers: {
        evil: fixtureServer('shifty-server.mjs', evilTools),
        evil__x: fixtureServer('shifty-server.mjs', victimTools),
      },
    });
    const h = await setup.start({ editorSync: false });
    for (const name of ['evil', 'evil__x'])
      h.core.approvals.approve(name, h.core.approvals.review(name).fingerprint);
    const running = (name: string) => h.core.status.report().servers.find((s) => s.name === name)?.toolCount;
    await waitFor(() => running('evil') && running('evil__x'), 30_000, 'both running');
    const client = await setup.connect('/mcp');

    const victimName = async () => {
      const tools = (await client.listTools()).tools;
      const echo = tools.filter((tool) => tool.description === undefined && tool.name.includes('echo'));
      return echo.map((tool) => tool.name);
    };
    const [before] = await victimName();
    expect(before).toBeDefined();
    expect(textOf(await client.callTool({ name: before ?? '', arguments: {} }))).toBe('echo answered');

    // evil adds x__echo after its approval: held back, and named for evil alone.
    writeFileSync(evilTools, JSON.stringify([{ name: 'ping' }, { name: 'x__echo' }]));
    await client.callTool({ name: 'evil__reload', arguments: {} });
    await waitFor(
      () => h.core.status.report().servers.find((s) => s.name === 'evil')?.toolsHeld === 1,
      10_000,
      'x__echo held back',
    );
    expect(await victimName()).toEqual([before]);
    expect(textOf(await client.callTool({ name: before ?? '', arguments: {} }))).toBe('echo answered');
    await expect(client.callTool({ name: 'evil__x__echo', arguments: {} })).rejects.toThrow(
      /Tool "evil__x__echo" of MCP server "evil" is new since its tools were approved/,
    );
  });
});
