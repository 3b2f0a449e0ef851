import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import type { ServerStatus } from '../../../shared/status.ts';
import { closeAll, editorToken, httpClient, textOf } from '../../helpers/bridge.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// A server's "tools" filter in servers.json: tools it excludes (or does not include) are neither listed
// nor callable on /mcp/<server> and /mcp; a change of the filter applies at once, without a restart
// and without asking for approval again. A real SDK server, the real bridge, real SDK clients.

let t: TempHome;
let headless: Headless | undefined;
let toolsFile: string;
const clients: Client[] = [];

beforeEach(() => {
  t = tempHome();
  toolsFile = join(t.dir, 'tools.json');
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

afterEach(async () => {
  await closeAll(clients);
  await headless?.stop();
  headless = undefined;
  t.cleanup();
});

function writeConfig(tools: unknown): void {
  const server = { ...fixtureServer('shifty-server.mjs', toolsFile), ...(tools ? { tools } : {}) };
  t.writeServers({ mcpServers: { gh: server } });
}

async function serve(tools: unknown): Promise<Headless> {
  writeConfig(tools);
  const h = await startHeadless({
    home: t.home,
    keychain: new MemoryKeychain(),
    env: t.env,
    port: 0,
    editorSync: false,
  });
  headless = h;
  h.core.approve('gh', h.core.review('gh').fingerprint);
  await waitFor(() => statusOf(h)?.state === 'running' && statusOf(h)?.toolCount, 30_000, 'gh running');
  return h;
}

function statusOf(h: Headless): ServerStatus | undefined {
  return h.core.status().servers.find((s) => s.name === 'gh');
}

async function connect(h: Headless, path: string): Promise<Client> {
  const client = await httpClient(`http://127.0.0.1:${h.port}${path}`, editorToken(h.tokens));
  clients.push(client);
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

describe('a server\u2019s tools filter (servers.json "tools")', () => {
  it('lists and calls only the tools it lets through, on /mcp/<server> and /mcp', async () => {
    const h = await serve({
      include: ['search*', 'read', 'delete_*'],
      exclude: ['delete_*', 'search_issues'],
    });
    const direct = await connect(h, '/mcp/gh');
    const aggregate = await connect(h, '/mcp');
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
    const direct = await connect(h, '/mcp/gh');
    const aggregate = await connect(h, '/mcp');
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
