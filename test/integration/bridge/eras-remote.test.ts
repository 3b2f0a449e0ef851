import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  type CreateMessageRequest,
  type ElicitRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { defined } from '../../helpers/servers.ts';
import { startModernRemote } from '../../helpers/modern-era.ts';

/**
 * The servers' side of both MCP eras (issue 34): a remote server that speaks only 2026-07-28 (the SDK
 * v2 server, stateless, refusing initialize) is a url entry like any other. A 2025 editor (SDK v1
 * client) and a 2026 one (SDK v2 client) reach it through /mcp/<server> and /mcp, and its
 * input_required reaches a 2025 editor as that editor's elicitation, named, and goes back as the retry.
 */

const setup = useHeadless();
let port = 0;
let token: string;

/** What the server was asked, by method (the fixture counts every POST). */
async function counts(): Promise<Record<string, number>> {
  return (await (await fetch(`http://127.0.0.1:${port}/counts`)).json()) as Record<string, number>;
}

beforeAll(async () => {
  ({ port, token } = await startModernRemote(setup));
}, 60_000);

async function legacyClient(path: string, elicitations?: ElicitRequest['params'][]): Promise<Client> {
  const client = new Client(
    { name: 'legacy-editor', version: '1.0.0' },
    { capabilities: elicitations ? { elicitation: { form: {} } } : {} },
  );
  if (elicitations)
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitations.push(request.params);
      return { action: 'accept', content: { ok: true } };
    });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${setup.base}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  setup.clients.push(client);
  return client;
}

async function modernClient(path: string, elicitations?: unknown[]): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'sdk-v2', version: '1.0.0' },
    {
      versionNegotiation: { mode: 'auto' },
      capabilities: elicitations ? { elicitation: { form: {} } } : {},
    },
  );
  if (elicitations)
    client.setRequestHandler('elicitation/create', async (request) => {
      elicitations.push(request.params);
      return { action: 'accept', content: { ok: true } };
    });
  await client.connect(
    new ModernTransport(new URL(`${setup.base}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe('a remote server that speaks only MCP 2026-07-28, as a url entry', () => {
  it.each([
    ['/mcp/modern', ''],
    ['/mcp', 'modern__'],
  ])(
    'on %s a 2025 editor (SDK v1) gets its tools, calls, resources and prompts; the server is never initialized or pinged',
    async (path, prefix) => {
      const legacy = await legacyClient(path);
      const tools = (await legacy.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining([`${prefix}echo`, `${prefix}confirm`]));
      expect(textOf(await legacy.callTool({ name: `${prefix}echo`, arguments: { message: 'hi' } }))).toBe(
        'modern: hi',
      );
      const read = await legacy.readResource({ uri: 'note://one' });
      expect((read.contents[0] as { text: string }).text).toBe('a modern note');
      const prompt = await legacy.getPrompt({ name: `${prefix}greet`, arguments: { who: 'Ada' } });
      expect((prompt.messages[0]?.content as { text: string }).text).toBe('Hello Ada, from 2026');
      const asked = await counts();
      expect(asked['server/discover']).toBeGreaterThanOrEqual(1);
      // Neither the handshake nor a health ping: the server speaks neither, and a stateless one
      // must not be kept busy (docs/decisions/server-lifecycle.md, health pings).
      expect(asked.initialize).toBeUndefined();
      expect(asked.ping).toBeUndefined();
    },
    60_000,
  );

  it.each([
    ['/mcp/modern', ''],
    ['/mcp', 'modern__'],
  ])(
    'on %s a 2026 editor (SDK v2) gets 2026-07-28 and the same tools and answers',
    async (path, prefix) => {
      const modern = await modernClient(path);
      try {
        expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
        const tools = (await modern.listTools()).tools.map((t) => t.name);
        expect(tools).toEqual(expect.arrayContaining([`${prefix}echo`, `${prefix}confirm`]));
        expect(
          textOf(await modern.callTool({ name: `${prefix}echo`, arguments: { message: 'both eras' } })),
        ).toBe('modern: both eras');
      } finally {
        await modern.close();
      }
    },
    60_000,
  );

  it.each([
    ['/mcp/modern', ''],
    ['/mcp', 'modern__'],
  ])(
    'on %s the server\u2019s input_required reaches a 2025 editor as its elicitation, naming the server, and the answer goes back with the server\u2019s state intact',
    async (path, prefix) => {
      const elicitations: ElicitRequest['params'][] = [];
      const legacy = await legacyClient(path, elicitations);
      const answer = await legacy.callTool({ name: `${prefix}confirm`, arguments: { action: 'deploy' } });
      expect(textOf(answer)).toBe('done: deploy (state intact)');
      expect(elicitations).toHaveLength(1);
      const asked = defined(elicitations[0], 'the elicitation');
      expect((asked._meta as Record<string, unknown>)['io.switchboard/server']).toBe('modern');
      // On /mcp the person reads which server asks in the words too.
      expect(asked.message).toBe(prefix ? '[server modern] Really deploy?' : 'Really deploy?');
    },
    60_000,
  );

  it('on /mcp the server\u2019s sampling request (input_required) reaches a 2025 editor as its sampling/createMessage, naming the server', async () => {
    const prompts: CreateMessageRequest['params'][] = [];
    const client = new Client(
      { name: 'sampling-editor', version: '1.0.0' },
      { capabilities: { sampling: {} } },
    );
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      prompts.push(request.params);
      return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'short' } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${setup.base}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    setup.clients.push(client);
    const answer = await client.callTool({ name: 'modern__summarize', arguments: { text: 'a long text' } });
    expect(textOf(answer)).toBe('summary: short');
    expect(prompts).toHaveLength(1);
    const asked = defined(prompts[0], 'the sampling request');
    expect(asked.systemPrompt).toBe('[server modern]');
    expect((asked._meta as Record<string, unknown>)['io.switchboard/server']).toBe('modern');
  }, 60_000);

  it('a roots/list in the server’s input_required is answered with the editors’ roots, and later calls never wait for roots', async () => {
    const withRoots = async (uri: string): Promise<Client> => {
      const client = new Client({ name: 'roots-editor', version: '1.0.0' }, { capabilities: { roots: {} } });
      client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri }] }));
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${setup.base}/mcp/modern`), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      setup.clients.push(client);
      return client;
    };
    const first = await withRoots('file:///work/project-a');
    expect(textOf(await first.callTool({ name: 'where', arguments: {} }))).toBe(
      'roots: file:///work/project-a',
    );
    // Another editor's roots arrive: a 2025 server that asks for roots would be asked again before
    // calls go on; a 2026 server cannot ask outside a call, so nothing waits for it to.
    const second = await withRoots('file:///work/project-b');
    const started = performance.now();
    expect(textOf(await second.callTool({ name: 'echo', arguments: { message: 'now' } }))).toBe(
      'modern: now',
    );
    expect(performance.now() - started).toBeLessThan(1_000);
  }, 60_000);

  it('each request tells the server its own editor\u2019s capabilities: one without elicitation is refused by the server, not asked', async () => {
    const legacy = await legacyClient('/mcp/modern');
    // The SDK v2 server refuses to ask for what the request's client capabilities do not declare
    // (-32021); with Switchboard's own capabilities in the envelope it would have asked.
    await expect(legacy.callTool({ name: 'confirm', arguments: { action: 'deploy' } })).rejects.toThrow(
      /-32021.*elicitation/,
    );
  }, 60_000);

  it('a 2026 editor gets the input_required itself (on /mcp/<server> and /mcp); its retry reaches the server with the server\u2019s own state, and a forged state is refused', async () => {
    const elicitations: unknown[] = [];
    const modern = await modernClient('/mcp/modern', elicitations);
    try {
      const answer = await modern.callTool({ name: 'confirm', arguments: { action: 'ship' } });
      expect(textOf(answer)).toBe('done: ship (state intact)');
      expect(elicitations).toHaveLength(1);
    } finally {
      await modern.close();
    }
    const aggregate = await modernClient('/mcp', elicitations);
    try {
      const answer = await aggregate.callTool({ name: 'modern__confirm', arguments: { action: 'ship' } });
      expect(textOf(answer)).toBe('done: ship (state intact)');
      expect(elicitations).toHaveLength(2);
      // A server that keeps no state: the retry still comes back to it, and it gets no state.
      const picked = await aggregate.callTool({ name: 'modern__pick', arguments: {} });
      expect(textOf(picked)).toBe('picked: true (state none)');
      expect(elicitations).toHaveLength(3);
    } finally {
      await aggregate.close();
    }
    // A state the server never handed out through Switchboard never reaches it: neither the server's
    // raw state (Switchboard's MRTR refuses it as not its own) nor one made to look sealed.
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    };
    const retry = async (requestState: string) => {
      const res = await fetch(`${setup.base}/mcp/modern`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'confirm',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: {
            name: 'confirm',
            arguments: { action: 'ship' },
            inputResponses: { ok: { action: 'accept', content: { ok: true } } },
            requestState,
            _meta: meta,
          },
        }),
      });
      return ((await res.json()) as { error?: { message: string } }).error?.message;
    };
    const before = (await counts())['tools/call'] ?? 0;
    expect(await retry('opaque:state/42=')).toMatch(/Invalid requestState/);
    const forged = `sb-up1.${Buffer.alloc(32).toString('base64url')}.s${Buffer.from('opaque:state/42=').toString('base64url')}`;
    expect(await retry(forged)).toMatch(/requestState was not handed out by MCP server "modern"/);
    expect((await counts())['tools/call'] ?? 0).toBe(before);
  }, 60_000);
});
