import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Headless } from '../../../electron/headless/serve.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { defined, everythingServer, fixtureServer, waitFor } from '../../helpers/servers.ts';

// One headless Switchboard shared by the tests here: server-everything (resources, templates,
// prompts) and two copies of the probe fixture, "alpha" and "beta", which both list probe://shared.

const SERVERS = ['everything', 'alpha', 'beta'];
const setup = useHeadless();
let headless: Headless;

beforeAll(async () => {
  setup.t.writeServers({
    mcpServers: {
      everything: everythingServer(),
      beta: fixtureServer('probe-server.mjs', 'beta'),
      alpha: fixtureServer('probe-server.mjs', 'alpha'),
    },
  });
  headless = await setup.start({ editorSync: false });
  await setup.approveRunning(SERVERS, 45_000);
});

function running(name: string): Promise<unknown> {
  return waitFor(
    () =>
      headless.core.status
        .report()
        .servers.find((s) => s.name === name && s.state === 'running' && s.toolCount),
    45_000,
    `${name} running`,
  );
}

function textOfContents(result: { contents: unknown[] }): string {
  return result.contents.map((c) => (c as { text?: string }).text ?? '').join('');
}

function textOfMessages(result: { messages: { content: unknown }[] }): string {
  return result.messages.map((m) => (m.content as { text?: string }).text ?? '').join('');
}

describe('bridge: resources and prompts', () => {
  it('relays resources and prompts of /mcp/<server> unchanged', async () => {
    const client = await setup.connect('/mcp/everything');
    const { resources } = await client.listResources();
    const doc = resources.find((r) => r.uri.startsWith('demo://resource/static/document/'));
    if (!doc) throw new Error(`no static document in ${JSON.stringify(resources.map((r) => r.uri))}`);
    const read = await client.readResource({ uri: doc.uri });
    expect(read.contents[0]?.uri).toBe(doc.uri);
    expect(textOfContents(read).length).toBeGreaterThan(0);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate)).toContain(
      'demo://resource/dynamic/text/{resourceId}',
    );

    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(['simple-prompt', 'args-prompt']));
    expect(textOfMessages(await client.getPrompt({ name: 'simple-prompt' }))).toBe(
      'This is a simple prompt without arguments.',
    );
    expect(
      textOfMessages(await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Lyon' } })),
    ).toContain('Lyon');
  });

  it('serves every server’s prompts on /mcp as <server>__<prompt>', async () => {
    const client = await setup.connect('/mcp');
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true },
    });
    const names = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'everything__simple-prompt',
        'everything__args-prompt',
        'alpha__greet',
        'beta__greet',
      ]),
    );
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(textOfMessages(await client.getPrompt({ name: 'beta__greet', arguments: { name: 'Ada' } }))).toBe(
      'hello Ada from beta',
    );
    expect(
      textOfMessages(
        await client.getPrompt({ name: 'everything__args-prompt', arguments: { city: 'Lyon' } }),
      ),
    ).toContain('Lyon');
    await expect(client.getPrompt({ name: 'nobody__greet' })).rejects.toThrow(
      /Unknown prompt "nobody__greet"/,
    );
  });

  it('serves the union of resources and templates on /mcp, each read routed to its server', async () => {
    const client = await setup.connect('/mcp');
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(['probe://alpha/own', 'probe://beta/own', 'probe://shared']));
    expect(uris.some((u) => u.startsWith('demo://resource/static/document/'))).toBe(true);
    // a URI two servers list is listed once, and read from the first server by name
    expect(uris.filter((u) => u === 'probe://shared')).toHaveLength(1);
    expect(textOfContents(await client.readResource({ uri: 'probe://shared' }))).toBe('shared from alpha');
    expect(textOfContents(await client.readResource({ uri: 'probe://beta/own' }))).toBe('own of beta');
    expect(textOfContents(await client.readResource({ uri: 'probe://alpha/own' }))).toBe('own of alpha');

    const templates = (await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate);
    expect(templates).toEqual(
      expect.arrayContaining([
        'probe://alpha/item/{id}',
        'probe://beta/item/{id}',
        'demo://resource/dynamic/text/{resourceId}',
      ]),
    );
    // an unlisted URI goes to the server whose template matches
    expect(textOfContents(await client.readResource({ uri: 'probe://beta/item/7' }))).toBe('item 7 of beta');
    expect(textOfContents(await client.readResource({ uri: 'demo://resource/dynamic/text/3' }))).toMatch(/3/);
    await expect(client.readResource({ uri: 'probe://gamma/own' })).rejects.toThrow(/Resource not found/);
  });

  it('fans out prompts and resources list_changed to /mcp, and lists the new ones', async () => {
    const client = await setup.connect('/mcp');
    let prompts = 0;
    let resources = 0;
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void prompts++);
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void resources++);
    // cached before the change, so a stale cache would show
    expect((await client.listPrompts()).prompts.map((p) => p.name)).not.toContain('alpha__fresh');
    expect((await client.listResources()).resources.map((r) => r.uri)).not.toContain('probe://alpha/fresh');
    await new Promise((r) => setTimeout(r, 300)); // let the GET stream open

    await client.callTool({ name: 'alpha__add-prompt', arguments: { name: 'fresh' } });
    await waitFor(() => prompts > 0, 10_000, 'prompts/list_changed');
    // A prompt new since the server's prompts were pinned waits for the person (tool-pins.test.ts)...
    expect((await client.listPrompts()).prompts.map((p) => p.name)).not.toContain('alpha__fresh');
    await expect(client.getPrompt({ name: 'alpha__fresh' })).rejects.toThrow(/is new since it was approved/);
    // ...and once accepted, editors are told to list again, and get it.
    prompts = 0;
    headless.core.tools.acceptTools(
      'alpha',
      defined(headless.core.tools.toolReview('alpha').change, 'the change').change,
    );
    await waitFor(() => prompts > 0, 10_000, 'prompts/list_changed after the acceptance');
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('alpha__fresh');
    expect(textOfMessages(await client.getPrompt({ name: 'alpha__fresh' }))).toBe('fresh from alpha');

    await client.callTool({ name: 'alpha__add-resource', arguments: { name: 'fresh' } });
    await waitFor(() => resources > 0, 10_000, 'resources/list_changed');
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain('probe://alpha/fresh');

    // a server leaving changes both lists too
    [prompts, resources] = [0, 0];
    await headless.core.lifecycle.stopServer('beta');
    await waitFor(() => prompts > 0 && resources > 0, 10_000, 'list_changed after beta stopped');
    expect((await client.listPrompts()).prompts.map((p) => p.name)).not.toContain('beta__greet');
    expect((await client.listResources()).resources.map((r) => r.uri)).not.toContain('probe://beta/own');
    await headless.core.lifecycle.startServer('beta');
    await running('beta');
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('beta__greet');
  });
});
