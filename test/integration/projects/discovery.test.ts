import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { addProject, projectsFilePath } from '../../../electron/core/projects/projects-file.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer } from '../../helpers/servers.ts';

/**
 * An editor in discovery mode (find_tools and call_tool instead of every tool) working in a project:
 * its discovery tools see the project's servers exactly as the aggregate would for that session (by
 * the project route, by a 2025 session's roots on /mcp), and Claude Code's per-project settings give
 * it the project route under its one aggregate entry's name instead of an entry per server.
 */
const setup = useHeadless({ perTest: true });

interface ClaudeJson {
  mcpServers?: Record<string, unknown>;
  projects?: Record<string, { mcpServers?: Record<string, { url?: string }> }>;
}

async function claudeCode(path: string, roots: string[] = []): Promise<Client> {
  const client = new Client(
    { name: 'claude-code', version: '1.0.0' },
    { capabilities: roots.length ? { roots: {} } : {} },
  );
  if (roots.length)
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: roots.map((r) => ({ uri: pathToFileURL(r).href })),
    }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${setup.base}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${setup.headless.tokens.ensure('claude-code')}` } },
    }),
  );
  setup.clients.push(client);
  return client;
}

/** What find_tools finds for `query`, by name. */
async function found(client: Client, query: string): Promise<string[]> {
  const result = await client.callTool({
    name: 'find_tools',
    arguments: { query, limit: 20 },
  });
  expect(result.isError).toBeFalsy();
  return (result.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name).sort();
}

async function discovery(on: boolean): Promise<void> {
  const res = await fetch(`${setup.base}/api/editors/claude-code/tools`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${setup.headless.tokens.controlToken()}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ discovery: on }),
  });
  expect(res.status).toBe(200);
}

describe("discovery mode in a project's folder", () => {
  it("finds and calls the project's servers where the aggregate would offer them, and Claude Code gets the project route", async () => {
    setup.t.writeServers({ mcpServers: { mine: fixtureServer('mini-server.mjs', '--tools=2') } });
    const dir = join(setup.t.dir, 'acme');
    mkdirSync(join(dir, 'src'), { recursive: true });
    const acme = realpathSync(dir);
    writeFileSync(
      join(acme, '.mcp.json'),
      JSON.stringify({ mcpServers: { mini: fixtureServer('mini-server.mjs', '--tools=2') } }),
    );
    addProject(projectsFilePath(setup.t.home.root), acme, {
      now: Date.now(),
      userHome: setup.t.env.HOME ?? '',
      switchboardHome: setup.t.home.root,
    });
    const claudeJson = join(setup.t.env.HOME ?? '', '.claude.json');
    mkdirSync(dirname(claudeJson), { recursive: true });
    writeFileSync(claudeJson, JSON.stringify({ projects: {} }));
    await setup.start();
    await setup.approveRunning(['mine', 'acme--mini']);
    const local = () =>
      (JSON.parse(readFileSync(claudeJson, 'utf8')) as ClaudeJson).projects?.[acme]?.mcpServers ?? {};
    await expect.poll(() => Object.keys(local())).toEqual(['acme--mini']);

    await discovery(true);
    // In the folder, Claude Code's aggregate entry (the one entry of discovery mode) is the project
    // route: its local scope wins over the user-level entry of the same name.
    await expect
      .poll(() => local())
      .toEqual({ switchboard: expect.objectContaining({ url: `${setup.base}/mcp/@acme` }) });

    const ofProject = (names: string[]) => names.filter((n) => n.startsWith('acme--mini__'));
    const onRoute = await claudeCode('/mcp/@acme');
    expect((await onRoute.listTools()).tools.map((t) => t.name)).toEqual(['find_tools', 'call_tool']);
    expect(ofProject(await found(onRoute, 'acme tool number 1'))).toContain('acme--mini__tool-1');
    expect(await found(onRoute, 'mine tool number 1')).toContain('mine__tool-1');
    const called = await onRoute.callTool({
      name: 'call_tool',
      arguments: { name: 'acme--mini__tool-1', arguments: {} },
    });
    expect(called.isError).toBeFalsy();

    // On /mcp, a 2025 session whose roots lie in the folder finds them too; one outside does not.
    const inside = await claudeCode('/mcp', [join(acme, 'src')]);
    expect(ofProject(await found(inside, 'acme tool number 1'))).toContain('acme--mini__tool-1');
    const outside = await claudeCode('/mcp', [setup.t.dir]);
    const outsideFinds = await found(outside, 'acme tool number 1');
    expect(outsideFinds).toContain('mine__tool-1');
    expect(ofProject(outsideFinds)).toEqual([]);
    const refused = await outside.callTool({
      name: 'call_tool',
      arguments: { name: 'acme--mini__tool-1', arguments: {} },
    });
    expect(refused.isError).toBe(true);

    // Discovery off: an entry per project server again.
    await discovery(false);
    await expect.poll(() => Object.keys(local())).toEqual(['acme--mini']);
  });
});
