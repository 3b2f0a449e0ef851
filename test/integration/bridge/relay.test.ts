import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Headless } from '../../../electron/headless/serve.ts';
import { textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { everythingServer, NODE, waitFor } from '../../helpers/servers.ts';
import { nodeForOtherUser, OTHER_UID } from '../../helpers/other-user.ts';

// The stdio relay spawned exactly as Claude Desktop spawns it: `<node> <abs>/electron/relay/main.mjs
// --server NAME --editor claude-desktop`, with SWITCHBOARD_HOME in its env and nothing secret anywhere
// on its command line. A real MCP SDK stdio client drives it. It reaches the bridge over the owner-only
// socket in the home's run/ folder, never over the TCP port.

const RELAY = fileURLToPath(new URL('../../../electron/relay/main.mjs', import.meta.url));
const OLD_RELAY = fileURLToPath(new URL('../../../electron/relay/main.ts', import.meta.url));

const setup = useHeadless({ perTest: true });
const stubs: Server[] = [];

afterEach(async () => {
  for (const stub of stubs.splice(0)) await new Promise((resolve) => stub.close(resolve));
});

async function serveEverything(port = 0): Promise<Headless> {
  setup.t.writeServers({ mcpServers: { everything: everythingServer() } });
  const h = await setup.start({ port });
  h.core.approvals.approve('everything', h.core.approvals.review('everything').fingerprint);
  // Running, or idle with its tools known (a restarted Switchboard starts it at the first request).
  await waitFor(
    () =>
      h.core.status
        .report()
        .servers.find(
          (s) => s.name === 'everything' && (s.state === 'running' || s.state === 'idle') && s.toolCount,
        ),
    45_000,
    'everything running or idle',
  );
  return h;
}

/** What Claude Desktop's config entry amounts to: command, args, env. */
function relayParams(server: string, script = RELAY) {
  return {
    command: NODE,
    args: [script, '--server', server, '--editor', 'claude-desktop'],
    env: { SWITCHBOARD_HOME: setup.t.home.root },
  };
}

async function relayClient(
  server: string,
  script = RELAY,
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ ...relayParams(server, script), stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'claude-desktop-stand-in', version: '1.0.0' });
  setup.clients.push(client);
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** Runs the relay with the given stdin lines; resolves with its stdout lines and stderr once it exits. */
function runRelay(
  server: string,
  lines: unknown[],
): Promise<{ out: Record<string, unknown>[]; err: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const { command, args, env } = relayParams(server);
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        out: out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>),
        err,
        code,
      }),
    );
    child.stdin.end(lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l)) + '\n').join(''));
  });
}

/** A relay the test talks to line by line. */
function interactiveRelay(server: string) {
  const { command, args, env } = relayParams(server);
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (let end = out.indexOf('\n'); end >= 0; end = out.indexOf('\n')) {
      lines.push(JSON.parse(out.slice(0, end)) as Record<string, unknown>);
      out = out.slice(end + 1);
    }
  });
  return {
    lines,
    send: (message: unknown) => child.stdin.write(JSON.stringify(message) + '\n'),
    answer: (id: number) => waitFor(() => lines.find((l) => l.id === id), 10_000, `answer ${id}`),
    close: async () => {
      child.stdin.end();
      await new Promise((resolve) => child.on('close', resolve));
    },
  };
}

const initialize = (id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'relay-test', version: '1' },
  },
});

describe('stdio relay (Claude Desktop)', () => {
  it('calls echo and get-sum on server-everything through the bridge, as Claude Desktop would spawn it', async () => {
    const h = await serveEverything();
    h.tokens.create('claude-desktop');
    // It goes through run/bridge.sock: a socket only this user can open, in a folder only this user can
    // write (so nobody else can put one there while Switchboard is not running).
    const socket = statSync(join(setup.t.home.run, 'bridge.sock'));
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    expect(statSync(setup.t.home.run).mode & 0o777).toBe(0o700);
    expect(h.relaySocket).toEqual({ path: join(setup.t.home.run, 'bridge.sock') });
    const { client } = await relayClient('everything');
    expect(client.getServerVersion()?.name).toMatch(/everything/i);
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'via relay' } }))).toBe(
      'Echo: via relay',
    );
    expect(textOf(await client.callTool({ name: 'get-sum', arguments: { a: 20, b: 22 } }))).toContain('42');
    // Concurrent calls through one relay keep their own ids.
    const many = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.callTool({ name: 'echo', arguments: { message: `m${i}` } }),
      ),
    );
    expect(many.map(textOf)).toEqual(Array.from({ length: 20 }, (_, i) => `Echo: m${i}`));
  });

  it('with --all reaches /mcp: Claude Desktop in discovery mode finds and calls tools of every server', async () => {
    const h = await serveEverything();
    h.tokens.create('claude-desktop');
    h.core.state.updateEditorSettings('claude-desktop', (s) => void (s.discovery = true));
    h.core.events.emit('editorTools', 'claude-desktop');
    const transport = new StdioClientTransport({
      command: NODE,
      args: [RELAY, '--all', '--editor', 'claude-desktop'],
      env: { SWITCHBOARD_HOME: setup.t.home.root },
    });
    const client = new Client({ name: 'claude-desktop-stand-in', version: '1.0.0' });
    setup.clients.push(client);
    await client.connect(transport);
    expect(client.getServerVersion()?.name).toBe('switchboard');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['find_tools', 'call_tool']);
    const found = await client.callTool({ name: 'find_tools', arguments: { query: 'echo a message' } });
    const [first] = (found.structuredContent as { tools: { name: string }[] }).tools;
    expect(first?.name).toBe('everything__echo');
    const answer = await client.callTool({
      name: 'call_tool',
      arguments: { name: first?.name, arguments: { message: 'found' } },
    });
    expect(textOf(answer)).toBe('Echo: found');
  });

  it('an entry written before the relay became main.mjs (it names main.ts) still works', async () => {
    const h = await serveEverything();
    h.tokens.create('claude-desktop');
    const { client } = await relayClient('everything', OLD_RELAY);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'old entry' } }))).toBe(
      'Echo: old entry',
    );
  });

  it('keeps working when Switchboard restarts (same port): it opens a new session by itself', async () => {
    const first = await serveEverything();
    first.tokens.create('claude-desktop');
    const port = first.port;
    const { client } = await relayClient('everything');
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'before' } }))).toBe(
      'Echo: before',
    );
    await setup.stop();
    await serveEverything(port);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'after' } }))).toBe(
      'Echo: after',
    );
  });

  it('tells the person what to do when Switchboard is not running', async () => {
    mkdirSync(join(setup.t.home.tokens, 'editors'), { recursive: true });
    writeFileSync(join(setup.t.home.tokens, 'editors', 'claude-desktop'), 'x'.repeat(43));
    const { out, err, code } = await runRelay('everything', [initialize(7)]);
    expect(code).toBe(0);
    expect(out).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32000, message: expect.stringContaining('Switchboard is not running') },
      },
    ]);
    expect(JSON.stringify(out)).toContain('restart Claude Desktop');
    expect(err).toContain('Switchboard is not running');
  });

  it('never sends its token over TCP: a listener on the bridge port gets nothing while Switchboard is not running', async () => {
    // Another local user squatting the port while Switchboard is stopped, with the files that name the
    // port still there (serve.json of an instance that crashed, state.json).
    const seen: IncomingMessage['headers'][] = [];
    const squatter = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    stubs.push(squatter);
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const address = squatter.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    mkdirSync(setup.t.home.run, { recursive: true });
    writeFileSync(
      join(setup.t.home.run, 'serve.json'),
      JSON.stringify({ pid: process.pid, port, startedAt: 1 }),
    );
    writeFileSync(setup.t.home.stateFile, JSON.stringify({ bridge: { port } }));
    mkdirSync(join(setup.t.home.tokens, 'editors'), { recursive: true });
    writeFileSync(join(setup.t.home.tokens, 'editors', 'claude-desktop'), 'x'.repeat(43));

    const { out } = await runRelay('everything', [initialize(7)]);
    expect(out).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32000, message: expect.stringContaining('Switchboard is not running') as string },
      },
    ]);
    expect(seen).toEqual([]);
  });

  it('will not send its token to a socket in run/ that another user put there', async (context) => {
    // Root can be another user: uid 65534 (nobody) binds run/bridge.sock in a run/ folder left
    // writable to everyone (Switchboard makes it 0700; this is the case the relay must not trust).
    mkdirSync(setup.t.home.run, { recursive: true });
    for (const dir of [setup.t.dir, setup.t.home.root]) chmodSync(dir, 0o755);
    chmodSync(setup.t.home.run, 0o777);
    const other = nodeForOtherUser([setup.t.home.run]);
    if (typeof other === 'string') {
      console.log(`skipped: ${other}`);
      context.skip(other);
      return;
    }
    mkdirSync(join(setup.t.home.tokens, 'editors'), { recursive: true });
    writeFileSync(join(setup.t.home.tokens, 'editors', 'claude-desktop'), 'x'.repeat(43));
    const impostor = spawn(
      other.node,
      [
        '-e',
        `require('node:http').createServer((req, res) => { console.log('REQUEST', req.headers.authorization); res.end('{}'); })` +
          `.listen(process.argv[1], () => console.log('LISTENING'))`,
        join(setup.t.home.run, 'bridge.sock'),
      ],
      { uid: OTHER_UID, gid: OTHER_UID, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let log = '';
    impostor.stdout.on('data', (d: Buffer) => (log += d.toString()));
    try {
      await waitFor(() => log.includes('LISTENING'), 10_000, 'the impostor listening');
      expect(statSync(join(setup.t.home.run, 'bridge.sock')).uid).toBe(65534);
      const { out } = await runRelay('everything', [initialize(7)]);
      expect(out[0]).toMatchObject({
        id: 7,
        error: { message: expect.stringContaining('belongs to another user (uid 65534)') as string },
      });
      expect(log).not.toContain('REQUEST');
    } finally {
      impostor.kill('SIGKILL');
      other.cleanup();
    }
  });

  it('tells the person what to do when its token is missing or revoked, and when the server is unknown', async () => {
    const h = await serveEverything();
    const missing = await runRelay('everything', [initialize()]);
    expect(missing.out[0]).toMatchObject({
      id: 1,
      error: { message: expect.stringContaining('switchboard token create claude-desktop') },
    });
    expect(missing.err).toContain('no Switchboard token');

    h.tokens.create('claude-desktop');
    const unknown = await runRelay('nope', [initialize()]);
    expect(unknown.out[0]).toMatchObject({ id: 1, error: { message: expect.stringMatching(/nope/) } });

    // Revoked while the relay runs: the next request says so.
    const relay = interactiveRelay('everything');
    relay.send(initialize());
    expect(await relay.answer(1)).toMatchObject({ result: expect.anything() });
    relay.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    h.tokens.revoke('claude-desktop');
    relay.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(await relay.answer(2)).toMatchObject({
      error: { message: expect.stringContaining('refused the token') },
    });
    await relay.close();
  });

  it('answers a line that is not JSON with a parse error and goes on', async () => {
    const h = await serveEverything();
    h.tokens.create('claude-desktop');
    const { out } = await runRelay('everything', [
      '{oops',
      initialize(2),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
    expect(out[0]).toMatchObject({ id: null, error: { code: -32700 } });
    expect(out[1]).toMatchObject({ id: 2, result: { serverInfo: expect.anything() } });
    expect(out).toHaveLength(2); // the notification got 202 and produced nothing
  });

  it('speaks SSE too: streamed POST answers, and server notifications on the GET stream', async () => {
    // A stand-in for a Streamable HTTP endpoint that answers with text/event-stream and offers GET.
    const seen: { method: string; headers: IncomingMessage['headers']; body: string }[] = [];
    let stream: ServerResponse | undefined;
    const stub = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', headers: req.headers, body });
        if (req.method === 'GET') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(': hello\n\n');
          stream = res;
          return;
        }
        if (req.method === 'DELETE') return void res.writeHead(200).end();
        const message = JSON.parse(body) as { id?: number; method: string };
        if (message.id === undefined) return void res.writeHead(202).end();
        if (message.method === 'tools/call') {
          // The connection breaks mid-answer.
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(`data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":0}}\n\n`);
          setTimeout(() => req.socket.destroy(), 20);
          return;
        }
        const result =
          message.method === 'initialize'
            ? { protocolVersion: '2025-03-26', capabilities: {}, serverInfo: { name: 'stub', version: '1' } }
            : { ok: message.method };
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          ...(message.method === 'initialize' ? { 'mcp-session-id': 'S1' } : {}),
        });
        res.write(
          `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\n\n`,
        );
        setTimeout(
          () => res.end(`id: 9\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n\n`),
          20,
        );
      });
    });
    stubs.push(stub);
    // where the bridge listens for the relay: run/bridge.sock in an owner-only folder
    mkdirSync(setup.t.home.run, { recursive: true, mode: 0o700 });
    await new Promise<void>((resolve) => stub.listen(join(setup.t.home.run, 'bridge.sock'), resolve));
    mkdirSync(join(setup.t.home.tokens, 'editors'), { recursive: true });
    writeFileSync(join(setup.t.home.tokens, 'editors', 'claude-desktop'), 'stub-token\n');

    const relay = interactiveRelay('stub');
    const { lines } = relay;
    relay.send(initialize());
    await relay.answer(1);
    relay.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await waitFor(() => stream, 5_000, 'GET stream opened');
    stream?.write(
      `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`,
    );
    relay.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await relay.answer(2);
    await waitFor(
      () => lines.some((l) => l.method === 'notifications/tools/list_changed'),
      5_000,
      'notification',
    );
    relay.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'x' } });
    expect(await relay.answer(3)).toMatchObject({ error: { message: expect.stringContaining('broke') } });
    await relay.close();

    expect(lines.filter((l) => l.method === 'notifications/progress')).toHaveLength(3);
    expect(lines.find((l) => l.id === 2)).toEqual({ jsonrpc: '2.0', id: 2, result: { ok: 'tools/list' } });
    const posts = seen.filter((s) => s.method === 'POST');
    expect(posts[0]?.headers['mcp-session-id']).toBeUndefined();
    expect(posts[0]?.headers.authorization).toBe('Bearer stub-token');
    expect(posts[0]?.headers.accept).toBe('application/json, text/event-stream');
    for (const later of posts.slice(1)) {
      expect(later.headers['mcp-session-id']).toBe('S1');
      expect(later.headers['mcp-protocol-version']).toBe('2025-03-26');
    }
    const get = seen.find((s) => s.method === 'GET');
    expect(get?.headers.accept).toBe('text/event-stream');
    expect(get?.headers['mcp-session-id']).toBe('S1');
    // On exit it ends its session.
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', headers: { 'mcp-session-id': 'S1' } });
  });
});
