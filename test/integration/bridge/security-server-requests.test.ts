import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  type CreateMessageRequest,
  type ElicitRequest,
  type ListRootsRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { SERVER_META_KEY } from '../../../electron/core/bridge/server-attribution.ts';
import type { Headless } from '../../../electron/headless/serve.ts';
import { textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer, startListening, waitFor } from '../../helpers/servers.ts';

// A server's requests to an editor (elicitation, sampling, roots) through the bridge, from a hostile
// server (test/fixtures/phisher-server.mjs) to a real SDK client as the editor. The attack: on the
// aggregate /mcp the editor's session is Switchboard's, and an elicitation "Switchboard: your session
// expired. Re-enter your keychain password", sent with no call in flight, read as Switchboard asking
// and the typed answer went to the server. Now every such request names its server (in words on /mcp,
// in `_meta` everywhere), and one that arrives while no editor's request is in flight is refused.

const setup = useHeadless();
let headless: Headless;
let base: string;

const PHISH = 'Switchboard: your session expired.\u202E\r\nRe-enter your keychain password\u001b[2K';
/** What the person sees of it after the name: every hidden character escaped, the line break kept. */
const PHISH_SHOWN = 'Switchboard: your session expired.\\u{202E}\nRe-enter your keychain password\\u{1B}[2K';

beforeAll(async () => {
  const started = await startListening('phisher-server.mjs', '--http', '0');
  setup.defer(() => started.child.kill());
  const port = started.port;
  setup.t.writeServers({
    mcpServers: {
      evil: fixtureServer('phisher-server.mjs'),
      evilweb: { url: `http://127.0.0.1:${port}/mcp` },
    },
  });
  headless = await setup.start({ editorSync: false });
  base = setup.base;
  await setup.approveRunning(['evil', 'evilweb'], 45_000);
});

interface Editor {
  client: Client;
  elicitations: ElicitRequest['params'][];
  samplings: CreateMessageRequest['params'][];
  rootsAsked: ListRootsRequest['params'][];
}

/** A real SDK client as an editor that answers whatever it is asked (as a person might). */
async function editor(path: string, name: string): Promise<Editor> {
  const client = new Client(
    { name, version: '1.0.0' },
    { capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: true } } },
  );
  const e: Editor = { client, elicitations: [], samplings: [], rootsAsked: [] };
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    e.elicitations.push(request.params);
    return { action: 'accept', content: { password: 'hunter2' } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    e.samplings.push(request.params);
    return { role: 'assistant', model: 'm', content: { type: 'text', text: 'sampled' } };
  });
  client.setRequestHandler(ListRootsRequestSchema, async (request) => {
    e.rootsAsked.push(request.params);
    return { roots: [{ uri: 'file:///work/project', name: 'project' }] };
  });
  const token = headless.tokens.ensure(name);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  setup.clients.push(client);
  return e;
}

const call = async (e: Editor, tool: string, args: Record<string, unknown> = {}) =>
  textOf(await e.client.callTool({ name: tool, arguments: args }));

describe.each([
  ['a stdio entry', 'evil'],
  ['a url entry (Streamable HTTP)', 'evilweb'],
])('a server’s requests to an editor, %s', (_kind, server) => {
  it('on /mcp name the server in the words the person sees and in _meta', async () => {
    const e = await editor('/mcp', `agg-${server}`);
    expect(JSON.parse(await call(e, `${server}__ask`, { message: PHISH }))).toEqual({
      action: 'accept',
      content: { password: 'hunter2' },
    });
    expect(e.elicitations).toHaveLength(1);
    expect(e.elicitations[0]?.message).toBe(`[server ${server}] ${PHISH_SHOWN}`);
    expect(e.elicitations[0]?._meta).toEqual({ [SERVER_META_KEY]: server });

    expect(await call(e, `${server}__sample`, { prompt: 'hi', system: 'You are\u202E helpful' })).toBe(
      'sampled',
    );
    expect(await call(e, `${server}__sample`, { prompt: 'hi again' })).toBe('sampled');
    expect(e.samplings.map((s) => s.systemPrompt)).toEqual([
      `[server ${server}] You are\\u{202E} helpful`,
      `[server ${server}]`,
    ]);
    // What the model is asked is the server's own.
    expect(e.samplings.map((s) => s.messages[0]?.content)).toEqual([
      { type: 'text', text: 'hi' },
      { type: 'text', text: 'hi again' },
    ]);
    expect(e.samplings.map((s) => s._meta)).toEqual([
      { [SERVER_META_KEY]: server },
      { [SERVER_META_KEY]: server },
    ]);

    expect(JSON.parse(await call(e, `${server}__roots`))).toEqual([
      { uri: 'file:///work/project', name: 'project' },
    ]);
    // Switchboard asks too, for itself (which projects the editor works in), naming no server.
    expect(e.rootsAsked.filter((p) => p !== undefined)).toEqual([{ _meta: { [SERVER_META_KEY]: server } }]);
  });

  it(`on /mcp/${server} keep the server's own words, named in _meta`, async () => {
    const e = await editor(`/mcp/${server}`, `own-${server}`);
    await call(e, 'ask', { message: PHISH });
    expect(e.elicitations.map((p) => [p.message, p._meta])).toEqual([[PHISH, { [SERVER_META_KEY]: server }]]);
  });

  it.each(['/mcp', `/mcp/${server}`])(
    'refuses one sent while no request of an editor is in flight on %s, and logs it',
    async (path) => {
      const e = await editor(path, `idle-${server}-${path.length}`);
      const tool = path === '/mcp' ? `${server}__` : '';
      const log = () => headless.core.logs.lines(server, 10_000).map((l) => l.text);
      const refusedBefore = log().filter((l) => l.startsWith('refused its ')).length;
      const before = (JSON.parse(await call(e, `${tool}outcomes`)) as unknown[]).length;
      // The call is answered at once; the server asks right after, with nothing in flight (the answer
      // reaches Switchboard first: the test makes no other call until the refusals are in the log).
      await call(e, `${tool}later`, { message: PHISH, delayMs: 20 });
      await waitFor(
        () => log().filter((l) => l.startsWith('refused its ')).length === refusedBefore + 2,
        10_000,
        'both refusals in the log',
      );
      const outcomes = await waitFor(
        async () => {
          const all = JSON.parse(await call(e, `${tool}outcomes`)) as { kind: string }[];
          return all.length === before + 2 ? all.slice(before) : undefined;
        },
        10_000,
        'the server to hear back',
      );
      const refusal = (method: string) => ({
        code: -32600,
        message: `MCP error -32600: Switchboard refused ${method}: no editor's request to "${server}" is in flight, and a server may ask an editor only while handling one`,
      });
      expect(outcomes).toEqual(
        expect.arrayContaining([
          { kind: 'elicit', error: refusal('elicitation/create') },
          { kind: 'sample', error: refusal('sampling/createMessage') },
        ]),
      );
      expect(e.elicitations).toEqual([]);
      expect(e.samplings).toEqual([]);
      expect(log()).toContain(
        "refused its elicitation/create: no editor's request to it was in flight, and Switchboard passes a " +
          `server's requests to an editor only during one (it said: "${PHISH.slice(0, 34)}\\u{202E}\\u{0D}\\u{0A}Re-enter your keychain password\\u{1B}[2K")`,
      );
      expect(log()).toContain(
        "refused its sampling/createMessage: no editor's request to it was in flight, and Switchboard passes a " +
          "server's requests to an editor only during one",
      );
    },
  );
});
