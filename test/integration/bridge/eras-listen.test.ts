import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { useHeadless } from '../../helpers/headless.ts';
import { defined, waitFor } from '../../helpers/servers.ts';
import { startModernRemote } from '../../helpers/modern-era.ts';

/**
 * A remote server that speaks only 2026-07-28 tells its clients of changes only on a
 * `subscriptions/listen` stream (issue 34, residual 1 of the servers' side): Switchboard keeps one open
 * to it, reopens it when it drops, and turns what comes on it into the same list refresh and
 * notifications a 2025 server's own notifications cause, for editors of both eras.
 */

const setup = useHeadless();
/** The bound on each wait for what a step caused (this file's own, shorter than waitFor's default). */
const WAIT_MS = 10_000;
let port = 0;
let token: string;

/** Asks the fixture to do something (change-tools, update-note, drop-listens); the open listen streams. */
async function fixture(what: string): Promise<number> {
  return Number(await (await fetch(`http://127.0.0.1:${port}/${what}`)).text());
}

async function listensAsked(): Promise<number> {
  const counts = (await (await fetch(`http://127.0.0.1:${port}/counts`)).json()) as Record<string, number>;
  return counts['subscriptions/listen'] ?? 0;
}

beforeAll(async () => {
  ({ port, token } = await startModernRemote(setup));
}, 60_000);

async function legacyClient(path: string): Promise<{ client: Client; seen: string[] }> {
  const seen: string[] = [];
  const client = new Client({ name: 'legacy-editor', version: '1.0.0' }, { capabilities: {} });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    seen.push('tools/list_changed');
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    seen.push(`updated ${n.params.uri}`);
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${setup.base}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  setup.clients.push(client);
  return { client, seen };
}

/** A 2026 editor's own listen stream on the bridge: the messages it carries, as they come. */
async function modernListen(
  path: string,
): Promise<{ messages: Record<string, unknown>[]; stop: () => void }> {
  const controller = new AbortController();
  const res = await fetch(`${setup.base}${path}`, {
    method: 'POST',
    signal: controller.signal,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'editor-listen',
      method: 'subscriptions/listen',
      params: {
        notifications: { toolsListChanged: true },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  const messages: Record<string, unknown>[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of defined(res.body, 'listen body')) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n')) !== -1) {
          const line = buffer.slice(0, end).trim();
          buffer = buffer.slice(end + 1);
          if (line.startsWith('data:')) messages.push(JSON.parse(line.slice(5)) as Record<string, unknown>);
        }
      }
    } catch {
      // aborted by stop()
    }
  })();
  return { messages, stop: () => controller.abort() };
}

describe('a 2026-only remote server’s changes reach editors through the listen stream Switchboard opens to it', () => {
  it('a tool list change reaches a 2025 editor (list_changed, and the new tool listed) and a 2026 editor’s listen stream', async () => {
    const { client, seen } = await legacyClient('/mcp/modern');
    const modern = await modernListen('/mcp/modern');
    try {
      await waitFor(
        async () => (await listensOpen()) >= 1,
        WAIT_MS,
        'Switchboard’s listen stream to the server',
      );
      await fixture('change-tools');
      await waitFor(() => seen.includes('tools/list_changed'), WAIT_MS, 'the 2025 editor to be told');
      await expectListedOnceAccepted(client, 'later');
      await waitFor(
        () => modern.messages.some((m) => m.method === 'notifications/tools/list_changed'),
        WAIT_MS,
        'the 2026 editor’s listen stream to be told',
      );
    } finally {
      modern.stop();
    }
  }, 60_000);

  it('a 2025 editor that subscribes to a resource of the server is told when it changes', async () => {
    const { client, seen } = await legacyClient('/mcp/modern');
    await client.subscribeResource({ uri: 'note://one' });
    // The subscription reaches the server as a listen stream that names the resource.
    await waitFor(
      async () => {
        await fixture('update-note');
        return seen.includes('updated note://one');
      },
      WAIT_MS,
      'a listen stream naming the resource',
    );
    await client.unsubscribeResource({ uri: 'note://one' });
  }, 60_000);

  it('when the listen stream drops, Switchboard opens it again: a change made meanwhile is found, and later changes arrive', async () => {
    const { client, seen } = await legacyClient('/mcp/modern');
    await waitFor(async () => (await listensOpen()) >= 1, WAIT_MS, 'the server to have a listener');
    const before = await listensAsked();
    expect(await fixture('drop-listens')).toBeGreaterThanOrEqual(1);
    // Changed while nobody listens: the server tells no one (the reopen waits out a backoff of ~1 s).
    expect(await fixture('change-tools')).toBe(0);
    await waitFor(
      async () => (await listensAsked()) > before && (await listensOpen()) >= 1,
      WAIT_MS,
      'the listen stream reopened',
    );
    await expectListedOnceAccepted(client, 'later2');
    seen.length = 0;
    expect(await fixture('change-tools')).toBeGreaterThanOrEqual(1);
    await waitFor(
      () => seen.includes('tools/list_changed'),
      WAIT_MS,
      'the 2025 editor to be told after the reopen',
    );
    await expectListedOnceAccepted(client, 'later3');
  }, 60_000);
});

/**
 * Switchboard listed the server anew: the new tool waits for the person (tool pinning), and once
 * accepted the editor lists it.
 */
async function expectListedOnceAccepted(client: Client, tool: string): Promise<void> {
  const change = await waitFor(
    () => setup.headless.core.tools.toolReview('modern').change,
    WAIT_MS,
    `the new tool ${tool} to wait for the person`,
  );
  setup.headless.core.tools.acceptTools('modern', change.change);
  await waitFor(
    async () => (await client.listTools()).tools.some((t) => t.name === tool),
    WAIT_MS,
    `${tool} listed`,
  );
}

/** How many listen streams are open at the server now. */
async function listensOpen(): Promise<number> {
  return Number(await (await fetch(`http://127.0.0.1:${port}/listens`)).text());
}
