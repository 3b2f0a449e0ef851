import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import type { ServerStatus } from '../../../shared/status.ts';
import { editorToken, httpClient, textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { defined, everythingServer, fixtureServer, waitFor } from '../../helpers/servers.ts';

const setup = useHeadless({ perTest: true });

async function serve(servers: Record<string, unknown>, approve: string[]): Promise<string> {
  setup.t.writeServers({ mcpServers: servers });
  await setup.start({ keychain: new OsKeychain() });
  await setup.approveRunning(approve, 45_000);
  return setup.base;
}

function statusOf(name: string): ServerStatus | undefined {
  return setup.headless.core.status.report().servers.find((s) => s.name === name);
}

async function connect(url: string): Promise<Client> {
  const client = await httpClient(url, editorToken(setup.headless.tokens));
  setup.clients.push(client);
  return client;
}

describe('bridge: MCP over Streamable HTTP with real servers', () => {
  it('relays echo and get-sum of server-everything through /mcp/everything and /mcp', async () => {
    const base = await serve({ everything: everythingServer() }, ['everything']);

    const direct = await connect(`${base}/mcp/everything`);
    expect(direct.getServerVersion()?.name).toMatch(/everything/i);
    expect(textOf(await direct.callTool({ name: 'echo', arguments: { message: 'hello' } }))).toBe(
      'Echo: hello',
    );
    expect(textOf(await direct.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }))).toContain('5');
    const tools = await direct.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('echo');

    const aggregate = await connect(`${base}/mcp`);
    const names = (await aggregate.listTools()).tools.map((t) => t.name);
    expect(names).toContain('everything__echo');
    expect(names).toContain('everything__get-sum');
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(
      textOf(await aggregate.callTool({ name: 'everything__echo', arguments: { message: 'via aggregate' } })),
    ).toBe('Echo: via aggregate');
  });

  it('serves two clients at once without crossing their answers (200 concurrent calls)', async () => {
    const base = await serve({ everything: everythingServer() }, ['everything']);
    const [a, b] = await Promise.all([connect(`${base}/mcp/everything`), connect(`${base}/mcp/everything`)]);
    const calls = Array.from({ length: 200 }, (_, i) => {
      const client = i % 2 === 0 ? a : b;
      const message = `${i % 2 === 0 ? 'A' : 'B'}-${i}`;
      return client
        .callTool({ name: 'echo', arguments: { message } })
        .then((r) => [message, textOf(r)] as const);
    });
    for (const [message, answer] of await Promise.all(calls)) expect(answer).toBe(`Echo: ${message}`);
  });

  it('works for clients without sessions (plain JSON-RPC POSTs, no Mcp-Session-Id)', async () => {
    const base = await serve({ everything: everythingServer() }, ['everything']);
    const post = (body: unknown) =>
      fetch(`${base}/mcp/everything`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${editorToken(setup.headless.tokens)}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(body),
      });
    const res = await post({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'stateless' } },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { content: [{ type: 'text', text: 'Echo: stateless' }] },
    });
  });

  it('answers for a server that is not running with an error naming its state and the fix', async () => {
    const base = await serve(
      {
        everything: everythingServer(),
        waiting: fixtureServer('env-echo-server.mjs'),
        refused: fixtureServer('env-echo-server.mjs'),
      },
      ['everything'],
    );
    setup.headless.core.approvals.deny('refused');
    const toolsList = async (name: string) => {
      const res = await fetch(`${base}/mcp/${name}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${editorToken(setup.headless.tokens)}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      return ((await res.json()) as { error: { message: string; data: { state: string } } }).error;
    };
    const waiting = await toolsList('waiting');
    expect(waiting.message).toBe(
      'MCP server "waiting" is waiting for your approval: approve it in Switchboard',
    );
    expect(waiting.data.state).toBe('pending-approval');
    const refused = await toolsList('refused');
    expect(refused.message).toBe(
      'MCP server "refused" was denied in Switchboard; to use it, approve it in Switchboard',
    );
    expect(refused.data.state).toBe('denied');
    // An AI agent reads these: it is never handed a command that approves on the person's behalf.
    for (const message of [waiting.message, refused.message])
      expect(message).not.toMatch(/switchboard approve/i);
    await expect(connect(`${base}/mcp/waiting`)).rejects.toThrow(/waiting for your approval/);
  });

  it('fails a call within a second when its server is killed mid-call, and the next call after the restart works', async () => {
    const base = await serve({ slow: fixtureServer('env-echo-server.mjs') }, ['slow']);
    const client = await connect(`${base}/mcp/slow`);
    const pid = defined(statusOf('slow')?.pid, 'pid of slow');
    const call = client.callTool({ name: 'sleep', arguments: { ms: 20_000 } });
    await new Promise((r) => setTimeout(r, 300));
    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    await expect(call).rejects.toThrow(/went away/);
    expect(Date.now() - killedAt).toBeLessThan(1_000);
    await waitFor(
      () => statusOf('slow')?.state === 'running' && statusOf('slow')?.pid !== pid,
      15_000,
      'restart',
    );
    expect(textOf(await client.callTool({ name: 'sleep', arguments: { ms: 1 } }))).toBe('slept 1');
  });

  it('forwards tools/list_changed to editor sessions of that server and of /mcp', async () => {
    const base = await serve({ dyn: fixtureServer('env-echo-server.mjs') }, ['dyn']);
    const direct = await connect(`${base}/mcp/dyn`);
    const aggregate = await connect(`${base}/mcp`);
    let directChanged = 0;
    let aggregateChanged = 0;
    const { ToolListChangedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    direct.setNotificationHandler(ToolListChangedNotificationSchema, () => void directChanged++);
    aggregate.setNotificationHandler(ToolListChangedNotificationSchema, () => void aggregateChanged++);
    await new Promise((r) => setTimeout(r, 300)); // let both GET streams open
    await direct.callTool({ name: 'add-tool', arguments: { name: 'fresh' } });
    await waitFor(() => directChanged > 0 && aggregateChanged > 0, 10_000, 'list_changed on both');
    // A tool new since the list was pinned waits for the person (tool pinning, tool-pins.test.ts)...
    expect((await aggregate.listTools()).tools.map((t) => t.name)).not.toContain('dyn__fresh');
    const change = defined(setup.headless.core.tools.toolReview('dyn').change, 'the change to accept');
    [directChanged, aggregateChanged] = [0, 0];
    setup.headless.core.tools.acceptTools('dyn', change.change);
    // ...and once accepted, both kinds of session are told to list again, and get it.
    await waitFor(() => directChanged > 0 && aggregateChanged > 0, 10_000, 'list_changed on both');
    const names = (await aggregate.listTools()).tools.map((t) => t.name);
    expect(names).toContain('dyn__fresh');
    expect((await direct.listTools()).tools.map((t) => t.name)).toContain('fresh');
  });
});
