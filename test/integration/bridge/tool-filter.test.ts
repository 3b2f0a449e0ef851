import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Headless } from '../../../electron/headless/serve.ts';
import type { ServerStatus } from '../../../shared/status.ts';
import { textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';

// A server's "tools" filter in servers.json: tools it excludes (or does not include) are neither listed
// nor callable on /mcp/<server> and /mcp; a change of the filter applies at once, without a restart
// and without asking for approval again. A real SDK server, the real bridge, real SDK clients.

const setup = useHeadless({ perTest: true });
let toolsFile: string;

beforeEach(() => {
  toolsFile = join(setup.t.dir, 'tools.json');
  writeFileSync(
    toolsFile,
    JSON.stringify([
      { name: 'search_code' },
      { name: 'search_issues' },
      { name: 'delete_repo' },
      { name: 'read' },
    ]),
  );
});

function writeConfig(tools: unknown): void {
  const server = { ...fixtureServer('shifty-server.mjs', toolsFile), ...(tools ? { tools } : {}) };
  setup.t.writeServers({ mcpServers: { gh: server } });
}

async function serve(tools: unknown): Promise<Headless> {
  writeConfig(tools);
  const h = await setup.start({ editorSync: false });
  await setup.approveRunning(['gh']);
  return h;
}

function statusOf(h: Headless): ServerStatus | undefined {
  return h.core.status.report().servers.find((s) => s.name === 'gh');
}

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

describe('a server\u2019s tools filter (servers.json "tools")', () => {
  it('lists and calls only the tools it lets through, on /mcp/<server> and /mcp', async () => {
    const h = await serve({
      include: ['search*', 'read', 'delete_*'],
      exclude: ['delete_*', 'search_issues'],
    });
    const direct = await setup.connect('/mcp/gh');
    const aggregate = await setup.connect('/mcp');
    expect(await names(direct)).toEqual(['read', 'search_code']);
    expect(await names(aggregate)).toEqual(['gh__read', 'gh__search_code']);

    expect(textOf(await direct.callTool({ name: 'search_code', arguments: {} }))).toBe(
      'search_code answered',
    );
    expect(textOf(await aggregate.callTool({ name: 'gh__read', arguments: {} }))).toBe('read answered');
    // Excluded: not callable by its name on either endpoint, and the error says where it is turned off.
    await expect(direct.callTool({ name: 'delete_repo', arguments: {} })).rejects.toThrow(
      /turned off in Switchboard \(its "tools" in servers.json\)/,
    );
    await expect(aggregate.callTool({ name: 'gh__delete_repo', arguments: {} })).rejects.toThrow(
      /turned off in Switchboard/,
    );
    // Not included (reload is always listed by the server): refused too.
    await expect(direct.callTool({ name: 'reload', arguments: {} })).rejects.toThrow(/turned off/);
    // Not counted as a call of the server's (the server never saw it).
    expect(
      h.core.activity
        .of('gh')
        ?.tools.map((x) => x.name)
        .sort(),
    ).toEqual(['read', 'search_code']);
  });

  it('applies an edit of the filter at once: editors are told to list again, nothing restarts or asks again', async () => {
    const h = await serve({ exclude: ['delete_*'] });
    const pid = statusOf(h)?.pid;
    const direct = await setup.connect('/mcp/gh');
    const aggregate = await setup.connect('/mcp');
    let directChanged = 0;
    let aggregateChanged = 0;
    direct.setNotificationHandler(ToolListChangedNotificationSchema, () => void directChanged++);
    aggregate.setNotificationHandler(ToolListChangedNotificationSchema, () => void aggregateChanged++);
    expect(await names(direct)).not.toContain('delete_repo');
    await new Promise((r) => setTimeout(r, 300)); // let both GET streams open

    writeConfig({ exclude: ['search_*'] });
    await waitFor(() => directChanged > 0 && aggregateChanged > 0, 10_000, 'list_changed on both');
    expect(await names(direct)).toEqual(['delete_repo', 'read', 'reload']);
    expect(await names(aggregate)).toEqual(['gh__delete_repo', 'gh__read', 'gh__reload']);
    expect(textOf(await direct.callTool({ name: 'delete_repo', arguments: {} }))).toBe(
      'delete_repo answered',
    );
    await expect(aggregate.callTool({ name: 'gh__search_code', arguments: {} })).rejects.toThrow(
      /turned off/,
    );
    expect(statusOf(h)).toMatchObject({ state: 'running', pid });

    writeConfig(undefined);
    await waitFor(async () => (await names(direct)).length === 5, 10_000, 'every tool again');
  });
});
