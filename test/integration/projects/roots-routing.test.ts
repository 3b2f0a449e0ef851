import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { addProject, projectsFilePath } from '../../../electron/core/projects/projects-file.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer } from '../../helpers/servers.ts';

/**
 * Roots routing on the aggregate /mcp (2025-era editors): a project's approved servers are offered
 * to a session whose roots (roots/list, answered by a real SDK client) lie inside the project's
 * folder, judged as resolved paths, and to no other session; when the editor's roots change, its list
 * changes and it is told (tools/list_changed).
 */

const setup = useHeadless({ perTest: true });

function folder(...parts: string[]): string {
  const dir = join(setup.t.dir, ...parts);
  mkdirSync(dir, { recursive: true });
  return realpathSync(dir);
}

/** A real SDK client on /mcp whose roots are `roots()` (undefined: no roots capability). */
async function editor(
  name: string,
  roots?: () => string[],
): Promise<{ client: Client; changed: () => number }> {
  const h = setup.headless;
  const client = new Client(
    { name, version: '1.0.0' },
    { capabilities: roots ? { roots: { listChanged: true } } : {} },
  );
  if (roots)
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: roots().map((uri) => ({ uri })),
    }));
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changes++);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${h.port}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${h.tokens.ensure('test-editor')}` } },
    }),
  );
  setup.clients.push(client);
  return { client, changed: () => changes };
}

async function projectTools(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('acme--'));
}

const uri = (path: string) => pathToFileURL(path).href;

describe("a project's servers on /mcp, by the editor's roots", () => {
  it('are offered to a session whose roots lie inside the folder, and to no other', async () => {
    setup.t.writeServers({ mcpServers: { mine: fixtureServer('mini-server.mjs', '--tools=1') } });
    const acme = folder('acme');
    folder('acme', 'src');
    const sibling = folder('acme-other');
    writeFileSync(
      join(acme, '.mcp.json'),
      JSON.stringify({ mcpServers: { mini: fixtureServer('mini-server.mjs', '--tools=2') } }),
    );
    // A symlink elsewhere leading into the folder, and one inside the folder leading out of it.
    symlinkSync(join(acme, 'src'), join(setup.t.dir, 'into-acme'));
    symlinkSync(sibling, join(acme, 'out'));
    addProject(projectsFilePath(setup.t.home.root), acme, {
      now: Date.now(),
      userHome: setup.t.env.HOME ?? '',
      switchboardHome: setup.t.home.root,
    });
    await setup.start();
    await setup.approveRunning(['mine', 'acme--mini']);

    // Its first list, right after initialize, already has them (the list waits for the roots' answer).
    const inside = await editor('inside', () => [uri(join(acme, 'src'))]);
    expect(await projectTools(inside.client)).toHaveLength(2);
    const viaLink = await editor('via-link', () => [uri(join(setup.t.dir, 'into-acme'))]);
    expect(await projectTools(viaLink.client)).toHaveLength(2);
    const outside = await editor('outside', () => [uri(sibling)]);
    // `acme/../acme-other` is not inside acme, though its spelling begins with it.
    const dotdot = await editor('dotdot', () => [`${uri(acme)}/../acme-other`]);
    const leadsOut = await editor('leads-out', () => [uri(join(acme, 'out'))]);
    // The folder above the project (where the home would be) is not inside it.
    const parent = await editor('parent', () => [uri(setup.t.dir)]);
    const noRoots = await editor('no-roots');

    for (const e of [outside, dotdot, leadsOut, parent, noRoots]) {
      const names = (await e.client.listTools()).tools.map((t) => t.name);
      expect(names.some((n) => n.startsWith('mine__'))).toBe(true);
      expect(names.filter((n) => n.startsWith('acme--'))).toEqual([]);
    }
    // Not callable by its name either, from a session outside.
    const tool = (await projectTools(inside.client)).find((n) => n.endsWith('tool-1'));
    expect((await inside.client.callTool({ name: tool ?? '', arguments: {} })).isError).toBeFalsy();
    await expect(outside.client.callTool({ name: tool ?? '', arguments: {} })).rejects.toThrow(/tool/i);
  });

  it("follows the editor's roots as they change, and tells it to list again", async () => {
    const acme = folder('acme');
    const elsewhere = folder('elsewhere');
    writeFileSync(
      join(acme, '.mcp.json'),
      JSON.stringify({ mcpServers: { mini: fixtureServer('mini-server.mjs', '--tools=2') } }),
    );
    addProject(projectsFilePath(setup.t.home.root), acme, {
      now: Date.now(),
      userHome: setup.t.env.HOME ?? '',
      switchboardHome: setup.t.home.root,
    });
    await setup.start();
    await setup.approveRunning(['acme--mini']);

    let roots = [uri(elsewhere)];
    const e = await editor('moving', () => roots);
    const other = await editor('staying', () => [uri(elsewhere)]);
    expect(await projectTools(e.client)).toEqual([]);

    const before = e.changed();
    roots = [uri(elsewhere), uri(acme)];
    await e.client.sendRootsListChanged();
    await expect.poll(() => e.changed(), { timeout: 10_000 }).toBeGreaterThan(before);
    expect(await projectTools(e.client)).toHaveLength(2);
    expect(await projectTools(other.client)).toEqual([]);

    const again = e.changed();
    roots = [uri(elsewhere)];
    await e.client.sendRootsListChanged();
    await expect.poll(() => e.changed(), { timeout: 10_000 }).toBeGreaterThan(again);
    expect(await projectTools(e.client)).toEqual([]);
  });
});
