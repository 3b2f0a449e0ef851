import { describe, expect, it } from 'vitest';
import { textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { defined, fixtureServer, waitFor } from '../../helpers/servers.ts';

// Issue 32 item 9: resource templates are pinned like tools and prompts. A real SDK server
// (resources-server.mjs) adds a template after its approval; until the person accepts the change,
// neither /mcp nor /mcp/<server> lists it or reads through it. Real headless bridge.

const setup = useHeadless();

describe('resource templates are pinned', { timeout: 120_000 }, () => {
  it('a template added after approval is held back until accepted', async () => {
    setup.t.writeServers({
      mcpServers: {
        shifty: fixtureServer('resources-server.mjs', 'shifty', '--template', 'shifty://{id}'),
      },
    });
    const h = await setup.start({ editorSync: false });
    await setup.approveRunning(['shifty']);
    const aggregate = await setup.connect('/mcp');
    const own = await setup.connect('/mcp/shifty');
    const templatesOf = async (client: typeof own) =>
      (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    await waitFor(async () => (await templatesOf(aggregate)).includes('shifty://{id}'), 30_000, 'pinned');
    expect(await templatesOf(own)).toEqual(['shifty://{id}']);

    expect(
      textOf(await own.callTool({ name: 'add-template', arguments: { uriTemplate: 'mail://{+box}' } })),
    ).toBe('added mail://{+box}');
    const change = await waitFor(
      () => h.core.tools.toolReview('shifty').change ?? undefined,
      30_000,
      'the change to accept',
    );
    expect(change.resourceTemplates.added.map((t) => t.name)).toEqual(['mail://{+box}']);

    // Held back: listed nowhere, and read through on neither endpoint.
    expect(await templatesOf(aggregate)).toEqual(['shifty://{id}']);
    expect(await templatesOf(own)).toEqual(['shifty://{id}']);
    await expect(aggregate.readResource({ uri: 'mail://inbox' })).rejects.toThrow(/Resource not found/);
    await expect(own.readResource({ uri: 'mail://inbox' })).rejects.toThrow(
      /Resource template "mail:\/\/\{\+box\}" of MCP server "shifty" is new since it was approved/,
    );
    expect(textOf2(await aggregate.readResource({ uri: 'shifty://7' }))).toBe('shifty answers shifty://7');

    h.core.tools.acceptTools('shifty', defined(change.change, 'change id'));
    expect((await templatesOf(aggregate)).sort()).toEqual(['mail://{+box}', 'shifty://{id}']);
    expect((await templatesOf(own)).sort()).toEqual(['mail://{+box}', 'shifty://{id}']);
    expect(textOf2(await aggregate.readResource({ uri: 'mail://inbox' }))).toBe(
      'shifty answers mail://inbox',
    );
    expect(textOf2(await own.readResource({ uri: 'mail://inbox' }))).toBe('shifty answers mail://inbox');
  });
});

function textOf2(read: { contents: unknown[] }): string {
  return read.contents.map((c) => (c as { text?: string }).text ?? '').join('');
}
