import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type ClientCapabilities,
  type LoggingMessageNotification,
  type Root,
} from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Headless } from '../../../electron/headless/serve.ts';
import { textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer, isAlive, startListening, waitFor } from '../../helpers/servers.ts';

// What a server asks its client, and what it tells one client only, through the bridge: two editor
// sessions on one shared server at once, each answering its own elicitation and sampling, getting its
// own logs and resource updates, with its own log level and its own roots in the union the server
// sees. The probe fixture runs twice: as a stdio entry (`probe`) and, over Streamable HTTP, as a
// `url` entry (`web`), where the server sends what belongs to a call on that call's own stream.

const require = createRequire(import.meta.url);
const setup = useHeadless();
let headless: Headless;
let base: string;

beforeAll(async () => {
  const started = await startListening('probe-server.mjs', 'web', '--http', '0');
  setup.defer(() => started.child.kill());
  const port = started.port;
  setup.t.writeServers({
    mcpServers: {
      probe: fixtureServer('probe-server.mjs'),
      web: { url: `http://127.0.0.1:${port}/mcp` },
      zedonly: { ...fixtureServer('probe-server.mjs', 'zedonly'), editors: ['zed'] },
      // Its processes are told apart by their pids on this machine, which a sandbox's own pid
      // namespace hides; test/integration/sandbox runs an isolated server sandboxed.
      solo: { ...fixtureServer('probe-server.mjs', 'solo'), isolated: true, sandbox: false },
    },
  });
  headless = await setup.start({ editorSync: false });
  base = setup.base;
  await setup.approveRunning(['probe', 'web', 'zedonly', 'solo'], 45_000);
});

interface Editor {
  client: Client;
  name: string;
  elicitations: string[];
  samplings: string[];
  logs: LoggingMessageNotification['params'][];
  updates: string[];
  setRoots(roots: Root[]): Promise<void>;
}

/** A real SDK client as an editor: it answers elicitation and sampling with its own name, slowly. */
async function editor(
  path: string,
  name: string,
  options: { token?: string; roots?: Root[]; capabilities?: ClientCapabilities; answerMs?: number } = {},
): Promise<Editor> {
  const capabilities = options.capabilities ?? {
    elicitation: {},
    sampling: {},
    roots: { listChanged: true },
  };
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  const token = headless.tokens.ensure(options.token ?? name);
  let roots = options.roots ?? [];
  const e: Editor = {
    client,
    name,
    elicitations: [],
    samplings: [],
    logs: [],
    updates: [],
    setRoots: async (next) => {
      roots = next;
      await client.sendRootsListChanged();
    },
  };
  const answerMs = options.answerMs ?? 300;
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      e.elicitations.push(request.params.message);
      await new Promise((r) => setTimeout(r, answerMs));
      return { action: 'accept', content: { answer: `${name} says yes` } };
    });
  }
  if (capabilities.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      const first = request.params.messages[0]?.content;
      e.samplings.push(first && 'text' in first ? String(first.text) : '');
      await new Promise((r) => setTimeout(r, answerMs));
      return {
        role: 'assistant',
        model: `${name}-model`,
        content: { type: 'text', text: `${name}'s model` },
      };
    });
  }
  if (capabilities.roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void e.logs.push(n.params));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void e.updates.push(n.params.uri));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  setup.clients.push(client);
  return e;
}

/** Ends the session the way a well-behaved client does (DELETE), then closes. */
async function leave(e: Editor): Promise<void> {
  const transport = e.client.transport as StreamableHTTPClientTransport;
  await transport.terminateSession();
  await e.client.close();
}

const call = async (e: Editor, tool: string, args: Record<string, unknown> = {}) =>
  textOf(await e.client.callTool({ name: tool, arguments: args }));
const later = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Resolves once `count()` is 1: what the server sent for the first editor's call has reached it. */
const arrived = (count: () => number) => waitFor(() => count() === 1, 10_000, 'the first editor to be asked');

describe.each([
  ['a stdio entry', 'probe'],
  ['a url entry (Streamable HTTP)', 'web'],
])('two editors on one shared server, %s', (_kind, server) => {
  it("each answers its own elicitation and sampling, and the server gets each one's answer", async () => {
    const a = await editor(`/mcp/${server}`, `a-${server}`);
    const b = await editor(`/mcp/${server}`, `b-${server}`);
    // b's call starts while a's is waiting for a's answer: both are in flight at once. It starts once
    // a's question reached a: over stdio nothing says whose a server's request is, and Switchboard
    // takes the call that reached the server last (docs/decisions/shared-servers.md), so the order is
    // the test's.
    const asks = [
      call(a, 'ask', { message: 'question for a' }),
      arrived(() => a.elicitations.length).then(() => call(b, 'ask', { message: 'question for b' })),
    ];
    const [fromA, fromB] = await Promise.all(asks);
    expect(JSON.parse(fromA ?? '')).toEqual({
      action: 'accept',
      content: { answer: `a-${server} says yes` },
    });
    expect(JSON.parse(fromB ?? '')).toEqual({
      action: 'accept',
      content: { answer: `b-${server} says yes` },
    });
    expect(a.elicitations).toEqual(['question for a']);
    expect(b.elicitations).toEqual(['question for b']);

    const samples = [
      call(a, 'sample', { prompt: 'poem for a' }),
      arrived(() => a.samplings.length).then(() => call(b, 'sample', { prompt: 'poem for b' })),
    ];
    expect(await Promise.all(samples)).toEqual([`a-${server}'s model`, `b-${server}'s model`]);
    expect(a.samplings).toEqual(['poem for a']);
    expect(b.samplings).toEqual(['poem for b']);
  });

  it("each gets the logs of its own calls and never the other's", async () => {
    const a = await editor(`/mcp/${server}`, `la-${server}`);
    const b = await editor(`/mcp/${server}`, `lb-${server}`);
    await Promise.all([
      call(a, 'log', { message: 'for a', delayMs: 300 }),
      arrived(() => a.logs.length).then(() => call(b, 'log', { message: 'for b', delayMs: 50 })),
    ]);
    expect(a.logs.map((l) => l.data)).toEqual(['for a']);
    expect(b.logs.map((l) => l.data)).toEqual(['for b']);
  });

  it('keeps each editor to the log level it set, and tells the server the most verbose one', async () => {
    const quiet = await editor(`/mcp/${server}`, `quiet-${server}`);
    const chatty = await editor(`/mcp/${server}`, `chatty-${server}`);
    await quiet.client.setLoggingLevel('error');
    await chatty.client.setLoggingLevel('debug');
    expect(await call(quiet, 'level')).toBe('debug');
    // Server-wide logs, sent when no call is in flight: every session gets those at its own level.
    await call(quiet, 'broadcast', { level: 'info', message: 'an info line', delayMs: 100 });
    await call(quiet, 'broadcast', { level: 'error', message: 'an error line', delayMs: 200 });
    await waitFor(() => quiet.logs.length > 0 && chatty.logs.length > 1, 5_000, 'the logs');
    await later(200);
    expect(quiet.logs.map((l) => l.data)).toEqual(['an error line']);
    expect(chatty.logs.map((l) => l.data)).toEqual(['an info line', 'an error line']);
    // When the chatty editor leaves, the server is told the level the remaining one wants.
    await leave(chatty);
    await waitFor(async () => (await call(quiet, 'level')) === 'error', 5_000, 'the level to follow');
  });

  it('subscribes a URI once for every editor that wants it, and tells only those of its updates', async () => {
    const uri = `probe://${server}/own`;
    const a = await editor(`/mcp/${server}`, `sa-${server}`);
    const b = await editor(`/mcp/${server}`, `sb-${server}`);
    const bystander = await editor(`/mcp/${server}`, `sc-${server}`);
    await a.client.subscribeResource({ uri });
    await b.client.subscribeResource({ uri });
    expect(JSON.parse(await call(a, 'subscriptions'))).toEqual([uri]);
    await call(a, 'touch', { uri });
    await waitFor(() => a.updates.length === 1 && b.updates.length === 1, 5_000, 'both updates');
    await b.client.unsubscribeResource({ uri });
    expect(JSON.parse(await call(a, 'subscriptions'))).toEqual([uri]); // a still wants it
    await call(a, 'touch', { uri });
    await waitFor(() => a.updates.length === 2, 5_000, "a's second update");
    await a.client.unsubscribeResource({ uri });
    expect(JSON.parse(await call(a, 'subscriptions'))).toEqual([]);
    expect(b.updates).toEqual([uri]);
    expect(bystander.updates).toEqual([]);
  });

  it('shows the server the union of the editors’ roots, and follows a change', async () => {
    const a = await editor(`/mcp/${server}`, `ra-${server}`, {
      roots: [{ uri: 'file:///work/a', name: 'a' }],
    });
    const b = await editor(`/mcp/${server}`, `rb-${server}`, {
      roots: [{ uri: 'file:///work/b', name: 'b' }],
    });
    const uris = async () => (JSON.parse(await call(a, 'roots')) as Root[]).map((r) => r.uri).sort();
    expect(await uris()).toEqual(expect.arrayContaining(['file:///work/a', 'file:///work/b']));
    await b.setRoots([{ uri: 'file:///work/b2', name: 'b2' }]);
    await waitFor(async () => (await uris()).includes('file:///work/b2'), 5_000, "b's new root");
    expect(await uris()).not.toContain('file:///work/b');
    await leave(a);
    await leave(b);
  });

  it('answers for an editor that cannot do what the server asks, and never asks another editor', async () => {
    const plain = await editor(`/mcp/${server}`, `plain-${server}`, { capabilities: {} });
    const able = await editor(`/mcp/${server}`, `able-${server}`);
    const result = await plain.client.callTool({ name: 'ask', arguments: { message: 'are you there' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/does not support elicitation/);
    expect(able.elicitations).toEqual([]);
  });
});

describe('a server marked "isolated"', () => {
  it('runs one process per editor session, told that editor’s own capabilities and roots', async () => {
    const a = await editor('/mcp/solo', 'iso-a', { roots: [{ uri: 'file:///work/iso-a', name: 'a' }] });
    const b = await editor('/mcp/solo', 'iso-b', {
      capabilities: { sampling: {} },
      roots: [{ uri: 'file:///work/iso-b', name: 'b' }],
    });
    const shared = headless.core.status.report().servers.find((s) => s.name === 'solo')?.pid;
    const whoA = JSON.parse(await call(a, 'whoami')) as { pid: number; client: string; capabilities: object };
    const whoB = JSON.parse(await call(b, 'whoami')) as { pid: number; client: string; capabilities: object };
    expect(new Set([whoA.pid, whoB.pid, shared]).size).toBe(3);
    expect(whoA).toMatchObject({
      client: 'iso-a',
      capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: true } },
    });
    expect(whoB).toMatchObject({ client: 'iso-b', capabilities: { sampling: {} } });
    expect(whoB.capabilities).not.toHaveProperty('elicitation');
    expect(JSON.parse(await call(a, 'roots'))).toEqual([{ uri: 'file:///work/iso-a', name: 'a' }]);
    // Its state is its own: a subscription of one session is not the other's.
    await a.client.subscribeResource({ uri: 'probe://solo/own' });
    expect(JSON.parse(await call(a, 'subscriptions'))).toEqual(['probe://solo/own']);
    expect(JSON.parse(await call(b, 'subscriptions'))).toEqual([]);
    // The session ends: so does its process.
    await leave(a);
    await waitFor(() => !isAlive(whoA.pid), 10_000, "a's own process to stop");
    expect(isAlive(whoB.pid)).toBe(true);
  });

  it('gives an aggregate session its own process too', async () => {
    const e = await editor('/mcp', 'iso-aggregate');
    const shared = headless.core.status.report().servers.find((s) => s.name === 'solo')?.pid;
    const who = JSON.parse(await call(e, 'solo__whoami')) as { pid: number; client: string };
    expect(who.client).toBe('iso-aggregate');
    expect(who.pid).not.toBe(shared);
  });
});

describe('the aggregate /mcp', () => {
  it('forwards completions, log levels, subscriptions and elicitation to the right server', async () => {
    const e = await editor('/mcp', 'aggregate');
    const prompt = await e.client.complete({
      ref: { type: 'ref/prompt', name: 'probe__greet' },
      argument: { name: 'name', value: 'al' },
    });
    expect(prompt.completion.values).toEqual(['alice', 'albert']);
    const resource = await e.client.complete({
      ref: { type: 'ref/resource', uri: 'probe://web/item/{id}' },
      argument: { name: 'id', value: '12' },
    });
    expect(resource.completion.values).toEqual(['12', '123']);

    await e.client.setLoggingLevel('notice');
    await e.client.subscribeResource({ uri: 'probe://probe/own' });
    expect(JSON.parse(await call(e, 'probe__subscriptions'))).toContain('probe://probe/own');
    await call(e, 'probe__touch', { uri: 'probe://probe/own' });
    await waitFor(() => e.updates.includes('probe://probe/own'), 5_000, 'the update on /mcp');

    const answer = await call(e, 'web__ask', { message: 'via the aggregate' });
    expect(JSON.parse(answer)).toEqual({ action: 'accept', content: { answer: 'aggregate says yes' } });
    // On /mcp the person reads which server asks (docs/decisions/shared-servers.md, "A server's
    // request names it").
    expect(e.elicitations).toEqual(['[server web] via the aggregate']);
  });
});

describe('each editor gets only the servers selected for it (servers.json "editors")', () => {
  it('serves a server limited to Zed to Zed only, on /mcp/<server> and /mcp', async () => {
    const zed = await editor('/mcp', 'zed');
    const cursor = await editor('/mcp', 'cursor');
    const names = async (e: Editor) => (await e.client.listTools()).tools.map((tool) => tool.name);
    expect(await names(zed)).toContain('zedonly__ask');
    expect(await names(cursor)).not.toContain('zedonly__ask');
    expect(await names(cursor)).toContain('probe__ask');
    const refused = await cursor.client
      .callTool({ name: 'zedonly__level', arguments: {} })
      .catch((err: Error) => err);
    expect(String(refused)).toMatch(/Unknown tool/);

    await editor('/mcp/zedonly', 'zed-direct', { token: 'zed' });
    for (const token of ['cursor', 'my-script']) {
      await expect(editor('/mcp/zedonly', `${token}-direct`, { token })).rejects.toThrow(
        /"zedonly" is (not offered to cursor: its "editors" in Switchboard's servers.json are zed|limited to zed)/,
      );
    }
  });

  it("keeps a server an editor's settings exclude from that editor (sync --editor E --exclude NAME)", async () => {
    const vscode = await editor('/mcp', 'vscode');
    const names = async () => (await vscode.client.listTools()).tools.map((tool) => tool.name);
    expect(await names()).toContain('probe__ask');
    headless.core.state.updateEditorSettings('vscode', (s) => void s.exclude.push('probe'));
    await waitFor(async () => !(await names()).includes('probe__ask'), 5_000, 'probe to leave vscode');
    expect(await names()).toContain('web__ask');
    await expect(editor('/mcp/probe', 'vscode-direct', { token: 'vscode' })).rejects.toThrow(
      /"probe" is excluded from vscode in Switchboard's editor settings/,
    );
    headless.core.state.updateEditorSettings('vscode', (s) => void (s.exclude = []));
    await waitFor(async () => (await names()).includes('probe__ask'), 5_000, 'probe to come back');
  });
});

describe('a JSON-RPC batch', () => {
  it('of more than 100 messages is refused with a JSON-RPC error, and the bridge goes on', async () => {
    const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
    const send = (count: number) =>
      fetch(`${base}/mcp/probe`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${headless.tokens.ensure('batcher')}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(Array.from({ length: count }, (_, i) => ping(i))),
      });
    const big = await send(5_000);
    expect(big.status).toBe(400);
    expect(((await big.json()) as { error: { message: string } }).error.message).toMatch(
      /at most 100 messages/,
    );
    const small = await send(100);
    expect(small.status).toBe(200);
    expect(((await small.json()) as unknown[]).length).toBe(100);
  });
});

describe('@modelcontextprotocol/server-filesystem behind the bridge', () => {
  it('works in the folders the editor gives as roots, not the ones it was started with', async () => {
    const started = join(setup.t.dir, 'started-with');
    mkdirSync(started, { recursive: true });
    mkdirSync(join(setup.t.dir, 'workspace'), { recursive: true });
    const workspace = realpathSync(join(setup.t.dir, 'workspace'));
    const servers = JSON.parse(readFileSync(setup.t.home.serversFile, 'utf8')) as {
      mcpServers: Record<string, unknown>;
    };
    servers.mcpServers.fs = {
      command: process.execPath,
      args: [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), started],
      // A root an editor gives reaches only what the sandbox allows: the workspace is declared.
      sandbox: { write: [workspace] },
    };
    writeFileSync(setup.t.home.serversFile, JSON.stringify(servers));
    const core = headless.core;
    await waitFor(() => core.status.report().servers.find((s) => s.name === 'fs'), 10_000, 'fs configured');
    core.approvals.approve('fs', core.approvals.review('fs').fingerprint);
    await waitFor(
      () => core.status.report().servers.find((s) => s.name === 'fs' && s.state === 'running' && s.toolCount),
      30_000,
      'fs running',
    );
    const e = await editor('/mcp/fs', 'fs-editor', {
      roots: [{ uri: pathToFileURL(workspace).href, name: 'workspace' }],
    });
    await waitFor(
      async () => (await call(e, 'list_allowed_directories')).includes(workspace),
      10_000,
      'the workspace root to be allowed',
    );
    expect(await call(e, 'list_allowed_directories')).not.toContain(started);
  });
});
