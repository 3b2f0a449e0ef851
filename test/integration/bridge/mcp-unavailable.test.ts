import { describe, expect, it } from 'vitest';
import type { SupervisorTimings } from '../../../electron/core/supervisor/types.ts';
import type { Headless } from '../../../electron/headless/serve.ts';
import type { ServerState } from '../../../shared/status.ts';
import { editorToken, httpClient } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';

// What an editor hears from a server that cannot answer: a JSON-RPC error that names the state and
// says what to do, on /mcp/<server>, for a stopped server and for crashing ones.

const setup = useHeadless({ perTest: true });

async function serve(
  servers: Record<string, unknown>,
  timings: Partial<SupervisorTimings> = {},
): Promise<Headless> {
  setup.t.writeServers({ mcpServers: servers });
  const h = await setup.start({ editorSync: false, timings });
  for (const name of Object.keys(servers))
    h.core.approvals.approve(name, h.core.approvals.review(name).fingerprint);
  return h;
}

function reached(h: Headless, name: string, state: ServerState): Promise<unknown> {
  return waitFor(
    () => h.core.status.report().servers.find((s) => s.name === name && s.state === state),
    30_000,
    `${name} ${state}`,
  );
}

async function toolsList(
  h: Headless,
  server: string,
): Promise<{ error: { code: number; message: string; data: { state: string } } }> {
  const res = await fetch(`http://127.0.0.1:${h.port}/mcp/${server}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${editorToken(h.tokens)}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  return (await res.json()) as { error: { code: number; message: string; data: { state: string } } };
}

describe('bridge: servers that cannot answer', () => {
  it('says a stopped server is stopped and how to start it, and serves it again once started', async () => {
    const h = await serve({ idle: fixtureServer('env-echo-server.mjs') });
    await reached(h, 'idle', 'running');
    const client = await httpClient(`http://127.0.0.1:${h.port}/mcp/idle`, editorToken(h.tokens));
    await h.core.lifecycle.stopServer('idle');
    await reached(h, 'idle', 'stopped');

    const body = await toolsList(h, 'idle');
    expect(body.error.code).toBe(-32003);
    expect(body.error.message).toBe(
      'MCP server "idle" is stopped; start it in Switchboard or run: switchboard start idle',
    );
    expect(body.error.data.state).toBe('stopped');
    await expect(client.listTools()).rejects.toThrow(/is stopped; .*switchboard start idle/);

    await h.core.lifecycle.startServer('idle');
    await reached(h, 'idle', 'running');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('sleep');
    await client.close();
  });

  it('says a crashed server is backing off, why it crashed, and where to look', async () => {
    // a long backoff, so that the server stays in backoff while the test asks
    const h = await serve(
      { crashy: fixtureServer('crash-on-start.mjs') },
      { backoffInitialMs: 60_000, backoffMaxMs: 60_000, backoffJitter: 0 },
    );
    await reached(h, 'crashy', 'backoff');
    const body = await toolsList(h, 'crashy');
    expect(body.error.data.state).toBe('backoff');
    expect(body.error.message).toMatch(
      /^MCP server "crashy" crashed \(.*refuses to start\) and Switchboard restarts it at /,
    );
    expect(body.error.message).toContain('see why: switchboard logs crashy');
  });

  it('says a server in a crash loop keeps crashing, and how to restart it once fixed', async () => {
    const h = await serve(
      { crashy: fixtureServer('crash-on-start.mjs') },
      { backoffInitialMs: 20, backoffMaxMs: 40, crashLoopFailures: 2 },
    );
    await reached(h, 'crashy', 'crash-loop');
    const body = await toolsList(h, 'crashy');
    expect(body.error.data.state).toBe('crash-loop');
    expect(body.error.message).toMatch(/^MCP server "crashy" keeps crashing \(.*refuses to start\)/);
    expect(body.error.message).toContain('switchboard logs crashy');
    expect(body.error.message).toContain('then run: switchboard restart crashy');
  });
});
