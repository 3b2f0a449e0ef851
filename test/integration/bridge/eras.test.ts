import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { MODERN, modernMeta, postModern, type ModernRequest } from '../../helpers/modern-era.ts';
import { defined, everythingServer, fixtureServer, waitFor } from '../../helpers/servers.ts';

/**
 * Both MCP eras from one bridge (issue 34): a client of 2026-07-28 (the SDK v2 client, a raw probe
 * as Claude Code sends it) is answered in that era, per request and without a session; a 2025-11-25
 * client (the SDK v1 client) keeps its sessions. Behind both: server-everything over stdio, which
 * speaks 2025 only.
 */

const setup = useHeadless();
const META = modernMeta('probe-client');

let token: string;

beforeAll(async () => {
  setup.t.writeServers({
    mcpServers: {
      everything: { ...everythingServer(), tools: { exclude: ['get-env'] } },
      dyn: fixtureServer('env-echo-server.mjs'),
      // offered to Cursor only: the test's token may not reach it, in either era
      limited: { ...fixtureServer('mini-server.mjs'), editors: ['cursor'] },
    },
  });
  await setup.start({ editorSync: false });
  await setup.approveRunning(['everything', 'dyn'], 45_000);
  token = setup.headless.tokens.ensure('test-editor');
}, 60_000);

async function modernClient(path: string): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'sdk-v2', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    new ModernTransport(new URL(`${setup.base}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** One raw POST as a 2026 client sends it, with the test editor's token (see postModern). */
const post = (path: string, body: ModernRequest, headers?: Record<string, string>) =>
  postModern(`${setup.base}${path}`, token, body, headers);

const resultOf = (json: Record<string, unknown>) => json.result as Record<string, unknown>;

describe('MCP 2026-07-28 and 2025-11-25 from the same bridge', () => {
  it.each([
    ['/mcp/everything', 'echo', 'get-env'],
    ['/mcp', 'everything__echo', 'everything__get-env'],
  ])(
    'on %s the SDK v2 client gets 2026-07-28 and the same tools and answers as the v1 client at 2025-11-25',
    async (path, echo, filtered) => {
      const modern = await modernClient(path);
      const legacy: Client = await setup.connect(path);
      try {
        expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN);
        expect(modern.getServerVersion()?.name).toBe(legacy.getServerVersion()?.name);
        const modernTools = (await modern.listTools()).tools.map((t) => t.name).sort();
        const legacyTools = (await legacy.listTools()).tools.map((t) => t.name).sort();
        expect(modernTools).toEqual(legacyTools);
        expect(modernTools).toContain(echo);
        // The server's tools filter (servers.json) holds in both eras.
        expect(modernTools).not.toContain(filtered);
        const modernEcho = await modern.callTool({ name: echo, arguments: { message: 'from 2026' } });
        const legacyEcho = await legacy.callTool({ name: echo, arguments: { message: 'from 2026' } });
        expect(textOf(modernEcho)).toBe('Echo: from 2026');
        expect(textOf(modernEcho)).toBe(textOf(legacyEcho));
        await expect(
          modern.callTool({ name: filtered, arguments: {} }).then((r) => (r.isError ? 'refused' : 'ran')),
        ).rejects.toThrow(/get-env/);
      } finally {
        await modern.close();
      }
    },
    60_000,
  );

  it('answers Claude Code\u2019s server/discover probe, and a fallback to 2025-11-25 still gets a session', async () => {
    const probe = await post('/mcp/everything', { method: 'server/discover', params: { _meta: META } });
    expect(probe.status).toBe(200);
    const found = resultOf(probe.json);
    expect(found.supportedVersions).toEqual(expect.arrayContaining([MODERN, '2025-11-25']));
    expect(found.capabilities).toHaveProperty('tools');
    expect(found.resultType).toBe('complete');
    expect(found.cacheScope).toBe('private');
    expect(found.ttlMs).toBeGreaterThan(0); // answered from Switchboard's list cache
    expect(
      (found._meta as Record<string, { name: string }>)['io.modelcontextprotocol/serverInfo']?.name,
    ).toMatch(/everything/i);

    // The aggregate says who it is, too.
    const aggregate = resultOf(
      (await post('/mcp', { method: 'server/discover', params: { _meta: META } })).json,
    );
    expect(
      (aggregate._meta as Record<string, { name: string }>)['io.modelcontextprotocol/serverInfo']?.name,
    ).toBe('switchboard');

    // A client that then falls back (or never probed) initializes at 2025-11-25 as before.
    const init = await fetch(`${setup.base}/mcp/everything`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cc', version: '1' } },
      }),
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeTruthy();
    const hello = (await init.json()) as { result: { protocolVersion: string } };
    expect(hello.result.protocolVersion).toBe('2025-11-25');

    // 2025 answers stay as they were: no 2026 fields.
    const legacy = await setup.connect('/mcp/everything');
    const listed = (await legacy.listTools()) as Record<string, unknown>;
    expect(listed).not.toHaveProperty('resultType');
    expect(listed).not.toHaveProperty('ttlMs');
  });

  it('lists carry resultType and cache hints; a tool call carries resultType only', async () => {
    const list = await post('/mcp/everything', { method: 'tools/list', params: { _meta: META } });
    expect(list.status).toBe(200);
    expect(resultOf(list.json)).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
    expect(resultOf(list.json).ttlMs).toBeGreaterThan(0);
    const call = await post('/mcp/everything', {
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'raw' }, _meta: META },
    });
    expect(resultOf(call.json)).toMatchObject({ resultType: 'complete' });
    expect(resultOf(call.json)).not.toHaveProperty('ttlMs');
    expect(textOf(resultOf(call.json))).toBe('Echo: raw');
  });

  it('refuses a request whose Mcp-Method or Mcp-Name header disagrees with its body (400, -32020)', async () => {
    // Mcp-Name says echo, the body calls the filtered get-env: nothing may act on either.
    const named = await post(
      '/mcp/everything',
      { method: 'tools/call', params: { name: 'get-env', arguments: {}, _meta: META } },
      { 'mcp-name': 'echo' },
    );
    expect(named.status).toBe(400);
    expect(named.json.error).toMatchObject({ code: -32020 });
    const method = await post(
      '/mcp/everything',
      { method: 'tools/call', params: { name: 'echo', arguments: { message: 'x' }, _meta: META } },
      { 'mcp-method': 'tools/list' },
    );
    expect(method.status).toBe(400);
    expect(method.json.error).toMatchObject({ code: -32020 });
    const missing = await post(
      '/mcp',
      { method: 'tools/list', params: { _meta: META } },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    expect(missing.status).toBe(400);
    expect(missing.json.error).toMatchObject({ code: -32020 });
  });

  it('names the versions it speaks to a 2026-style request at a revision it does not know (400, -32022)', async () => {
    const later = '2027-01-01';
    const res = await post(
      '/mcp/everything',
      {
        method: 'server/discover',
        params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': later } },
      },
      { 'mcp-protocol-version': later },
    );
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({
      code: -32022,
      data: { requested: later, supported: expect.arrayContaining([MODERN, '2025-11-25']) },
    });
  });

  it('keeps a server its token may not reach from a 2026 request, as from a 2025 one', async () => {
    for (const method of ['server/discover', 'tools/list']) {
      const res = await post('/mcp/limited', { method, params: { _meta: META } });
      expect(res.json.error).toMatchObject({
        code: -32003,
        message: expect.stringContaining('limited to cursor'),
      });
      expect(res.json).not.toHaveProperty('result');
    }
  });

  it('tells 2026 listeners (subscriptions/listen) of list changes on /mcp/<server> and /mcp', async () => {
    const direct = await modernClient('/mcp/dyn');
    const aggregate = await modernClient('/mcp');
    try {
      let [directChanged, aggregateChanged] = [0, 0];
      direct.setNotificationHandler('notifications/tools/list_changed', () => void directChanged++);
      aggregate.setNotificationHandler('notifications/tools/list_changed', () => void aggregateChanged++);
      const [a, b] = await Promise.all([
        direct.listen({ toolsListChanged: true }),
        aggregate.listen({ toolsListChanged: true }),
      ]);
      await direct.callTool({ name: 'add-tool', arguments: { name: 'fresh' } });
      await waitFor(() => directChanged > 0 && aggregateChanged > 0, 10_000, 'list_changed on both');
      // The new tool waits for the person (pinning), in this era too; accepted, both are told again.
      expect((await aggregate.listTools()).tools.map((t) => t.name)).not.toContain('dyn__fresh');
      const change = defined(setup.headless.core.tools.toolReview('dyn').change, 'the change to accept');
      [directChanged, aggregateChanged] = [0, 0];
      setup.headless.core.tools.acceptTools('dyn', change.change);
      await waitFor(() => directChanged > 0 && aggregateChanged > 0, 10_000, 'list_changed after accepting');
      expect((await direct.listTools()).tools.map((t) => t.name)).toContain('fresh');
      await Promise.all([a.close(), b.close()]);
    } finally {
      await Promise.all([direct.close(), aggregate.close()]);
    }
  });

  it('acknowledges a listen with what it will carry, subscribing the resources it names (on /mcp: of the server that has each)', async () => {
    const legacy = await setup.connect('/mcp/everything');
    const uri = defined((await legacy.listResources()).resources[0]?.uri, 'a resource of server-everything');
    const res = await fetch(`${setup.base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'listen-1',
        method: 'subscriptions/listen',
        params: {
          _meta: META,
          notifications: { promptsListChanged: true, resourceSubscriptions: [uri, 'nowhere://nothing'] },
        },
      }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = defined(res.body, 'the stream').getReader();
    const { value } = await reader.read();
    const first = new TextDecoder().decode(value);
    const ack = JSON.parse(defined(/data: (.*)/.exec(first)?.[1], 'the first event')) as {
      method: string;
      params: { notifications: Record<string, unknown>; _meta: Record<string, unknown> };
    };
    expect(ack.method).toBe('notifications/subscriptions/acknowledged');
    expect(ack.params._meta['io.modelcontextprotocol/subscriptionId']).toBe('listen-1');
    expect(ack.params.notifications.promptsListChanged).toBe(true);
    expect(ack.params.notifications).not.toHaveProperty('toolsListChanged');
    expect(ack.params.notifications.resourceSubscriptions).toEqual([uri]);
    await reader.cancel();
  });

  it('asks a 2026 request for its token like any other', async () => {
    const res = await fetch(`${setup.base}/mcp/everything`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META } }),
    });
    expect(res.status).toBe(401);
  });
});
