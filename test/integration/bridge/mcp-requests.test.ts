import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Headless } from '../../../electron/headless/serve.ts';
import { editorToken, textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';

// One headless Switchboard with a short per-request timeout, shared by every test here: the probe
// fixture (progress, cancellation) and env-echo (its `sleep` ignores cancellation, so it outlives the
// timeout).

const TIMEOUT_MS = 2_000;
const setup = useHeadless();
let headless: Headless;
let base: string;

beforeAll(async () => {
  setup.t.writeServers({
    mcpServers: { probe: fixtureServer('probe-server.mjs'), slow: fixtureServer('env-echo-server.mjs') },
  });
  headless = await setup.start({ editorSync: false, requestTimeoutMs: TIMEOUT_MS });
  base = setup.base;
  await setup.approveRunning(['probe', 'slow'], 45_000);
});

/** A plain JSON-RPC POST without a session, as older clients send. */
async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${editorToken(headless.tokens)}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(body),
  });
}

const waitCall = (id: number, ms: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'wait', arguments: { ms } },
});

async function cancellations(client: Client): Promise<{ ms: number; reason: string }[]> {
  const result = await client.callTool({ name: 'cancellations', arguments: {} });
  return JSON.parse(textOf(result)) as { ms: number; reason: string }[];
}

describe('bridge: progress, cancellation and timeouts', () => {
  it('forwards progress to the editor that asked, with its own token, on /mcp/<server> and /mcp', async () => {
    for (const [path, tool] of [
      ['/mcp/probe', 'progress'],
      ['/mcp', 'probe__progress'],
    ] as const) {
      const client = await setup.connect(path);
      const seen: Progress[] = [];
      const result = await client.callTool({ name: tool, arguments: { steps: 3, delayMs: 50 } }, undefined, {
        onprogress: (progress) => seen.push(progress),
      });
      expect(textOf(result), path).toBe('done 3');
      expect(seen, path).toEqual([
        { progress: 1, total: 3, message: 'step 1 of 3' },
        { progress: 2, total: 3, message: 'step 2 of 3' },
        { progress: 3, total: 3, message: 'step 3 of 3' },
      ]);
    }
  });

  it("sends the editor's own progressToken back, to that client only", async () => {
    // Another sessionless client of the same token, listening on the shared GET stream.
    const listening = new AbortController();
    const stream = await fetch(`${base}/mcp/probe`, {
      headers: { authorization: `Bearer ${editorToken(headless.tokens)}`, accept: 'text/event-stream' },
      signal: listening.signal,
    });
    expect(stream.status).toBe(200);
    let overheard = '';
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of stream.body ?? []) overheard += decoder.decode(chunk, { stream: true });
    })().catch(() => undefined);
    const res = await post('/mcp/probe', {
      jsonrpc: '2.0',
      id: 'p1',
      method: 'tools/call',
      params: { name: 'progress', arguments: { steps: 2, delayMs: 50 }, _meta: { progressToken: 'mine-42' } },
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await res.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
    expect(events).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progress: 1, total: 2, message: 'step 1 of 2', progressToken: 'mine-42' },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progress: 2, total: 2, message: 'step 2 of 2', progressToken: 'mine-42' },
      },
      { jsonrpc: '2.0', id: 'p1', result: { content: [{ type: 'text', text: 'done 2' }] } },
    ]);
    listening.abort();
    await reading;
    expect(overheard).not.toContain('progress');
  });

  it('lets progress keep a request alive past the per-request timeout', async () => {
    const client = await setup.connect('/mcp/probe');
    let count = 0;
    // 5 × 600 ms = 3 s in all, longer than the 2 s timeout, but never 2 s without progress
    const result = await client.callTool(
      { name: 'progress', arguments: { steps: 5, delayMs: 600 } },
      undefined,
      {
        onprogress: () => void count++,
        timeout: 60_000,
      },
    );
    expect(textOf(result)).toBe('done 5');
    expect(count).toBe(5);
  });

  it('answers a request its server does not answer in time with a timeout error, and the next call works', async () => {
    const client = await setup.connect('/mcp/slow');
    const started = Date.now();
    const call = client.callTool({ name: 'sleep', arguments: { ms: 8_000 } }, undefined, { timeout: 60_000 });
    await expect(call).rejects.toThrow(/did not answer tools\/call within 2 s/);
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(textOf(await client.callTool({ name: 'sleep', arguments: { ms: 1 } }))).toBe('slept 1');

    const res = await post('/mcp/slow', {
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'sleep', arguments: { ms: 8_000 } },
    });
    const body = (await res.json()) as {
      id: number;
      error: { code: number; message: string; data: unknown };
    };
    expect(body.id).toBe(9);
    expect(body.error.code).toBe(-32001);
    expect(body.error.message).toMatch(/^Request timed out: MCP server "slow"/);
    expect(body.error.message).toContain('switchboard logs slow');
    expect(body.error.data).toEqual({ timeoutMs: TIMEOUT_MS });
  });

  it('forwards a session client’s cancellation to the server', async () => {
    const client = await setup.connect('/mcp/probe');
    const before = (await cancellations(client)).length;
    const controller = new AbortController();
    const call = client.callTool({ name: 'wait', arguments: { ms: 30_000 } }, undefined, {
      signal: controller.signal,
      timeout: 60_000,
    });
    await new Promise((r) => setTimeout(r, 300));
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    const seen = await waitFor(
      async () => {
        const list = await cancellations(client);
        return list.length > before ? list : undefined;
      },
      5_000,
      'the server to see the cancellation',
    );
    // the editor's cancel, not the per-request timeout, stopped it
    expect(seen.at(-1)).toEqual({ ms: 30_000, reason: 'cancelled by the client' });
  });

  it("never lets one sessionless client's cancel stop another's request with the same id", async () => {
    const a = post('/mcp/probe', waitCall(1, 1_200));
    const b = post('/mcp/probe', waitCall(1, 1_200));
    await new Promise((r) => setTimeout(r, 400)); // both in flight
    const cancel = await post('/mcp/probe', {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, reason: 'a gives up' },
    });
    expect(cancel.status).toBe(202);
    for (const res of await Promise.all([a, b])) {
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: { content: [{ type: 'text', text: 'waited 1200' }] },
      });
    }

    // A sessionless client alone with its id can still cancel.
    const observer = await setup.connect('/mcp/probe');
    const before = (await cancellations(observer)).length;
    const alone = post('/mcp/probe', waitCall(2, 30_000));
    await new Promise((r) => setTimeout(r, 400));
    await post('/mcp/probe', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    const answer = (await (await alone).json()) as { error?: { message: string } };
    expect(answer.error?.message).toBe('cancelled by the client');
    const seen = await waitFor(
      async () => {
        const list = await cancellations(observer);
        return list.length > before ? list : undefined;
      },
      5_000,
      'the cancellation',
    );
    expect(seen.at(-1)).toEqual({ ms: 30_000, reason: 'cancelled by the client' });
  });
});
