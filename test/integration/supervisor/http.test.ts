import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Supervisor } from '../../../electron/core/supervisor/supervisor.ts';
import type { DesiredServer } from '../../../electron/core/supervisor/types.ts';
import { waitForState } from './helpers.ts';

const SECRET = 'remote-bearer-s3cr3t-value';

/** A real MCP Streamable HTTP server (stateless, SDK) that records the headers it was sent. */
async function remoteServer(): Promise<{ url: string; headers: IncomingHttpHeaders[]; server: Server }> {
  const headers: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    headers.push(req.headers);
    const mcp = new McpServer({ name: 'remote', version: '1.0.0' });
    for (const name of ['alpha', 'beta']) {
      mcp.registerTool(name, { description: `tool ${name}` }, async () => ({
        content: [{ type: 'text', text: name }],
      }));
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, headers, server };
}

/**
 * A real server of the older HTTP+SSE transport (protocol 2024-11-05, the SDK's SSEServerTransport):
 * GET opens the event stream, messages are POSTed to the endpoint it names; a POST to the stream's
 * own address gets 405, as such servers answer Streamable HTTP's first request.
 */
async function oldSseServer(): Promise<{ url: string; server: Server }> {
  const transports = new Map<string, SSEServerTransport>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      transports.set(transport.sessionId, transport);
      const mcp = new McpServer({ name: 'old-sse', version: '1.0.0' });
      mcp.registerTool('legacy', { description: 'from an HTTP+SSE server' }, async () => ({
        content: [{ type: 'text', text: 'legacy answer' }],
      }));
      void mcp.connect(transport);
      return;
    }
    const transport = transports.get(url.searchParams.get('sessionId') ?? '');
    if (req.method === 'POST' && url.pathname === '/messages' && transport) {
      void transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(405, { 'content-type': 'text/plain' }).end('Method Not Allowed');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/sse`, server };
}

/** A web server that is not MCP: every request gets `status` and a page of HTML. */
async function webPage(status: number): Promise<{ url: string; server: Server }> {
  const page = `<!DOCTYPE html>\n<html>\n<head><title>${status}</title></head>\n<body>\n<h1>Error ${status}</h1>\n</body>\n</html>\n`;
  const server = createServer((_req, res) =>
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(page),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, server };
}

function remote(url: string, fingerprint = 'fp-remote'): DesiredServer {
  return {
    name: 'remote',
    fingerprint,
    transport: 'http',
    prepare: async () => ({
      transport: 'http',
      url,
      headers: { Authorization: `Bearer ${SECRET}` },
      protocol: 'auto',
      redact: [SECRET],
    }),
  };
}

describe('remote (http) servers', () => {
  let supervisor: Supervisor;
  let server: Server | undefined;

  afterEach(async () => {
    await supervisor?.shutdown();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  it('connects with the plan headers, reaches running with its tools, and has no pid', async () => {
    const remoteInfo = await remoteServer();
    server = remoteInfo.server;
    supervisor = new Supervisor();
    await supervisor.reconcile([remote(remoteInfo.url)]);
    await waitForState(supervisor, 'remote', 'running');
    await expect.poll(() => supervisor.statusOf('remote')?.toolCount).toBe(2);
    const status = supervisor.statusOf('remote');
    expect(status).toMatchObject({ transport: 'http', pid: null });
    expect(supervisor.runner('remote')?.tools.map((t) => t.name)).toEqual(['alpha', 'beta']);
    expect(remoteInfo.headers.length).toBeGreaterThan(0);
    for (const h of remoteInfo.headers) expect(h.authorization).toBe(`Bearer ${SECRET}`);
    const result = await supervisor.runner('remote')?.client?.callTool({ name: 'beta', arguments: {} });
    expect(JSON.stringify(result?.content)).toContain('beta');
  });

  it('a failed connect goes through backoff, and the credential never reaches the log', async () => {
    // A port nobody listens on: bind, note it, close.
    const probe = await remoteServer();
    const url = probe.url;
    await new Promise((resolve) => probe.server.close(resolve));
    supervisor = new Supervisor();
    const lines: string[] = [];
    supervisor.on('log', (l) => lines.push(l.text));
    await supervisor.reconcile([remote(url)]);
    await waitForState(supervisor, 'remote', 'backoff');
    const status = supervisor.statusOf('remote');
    expect(status?.nextRetryAt).toBeGreaterThan(Date.now());
    expect(status?.lastError).toMatch(/^initialize failed: .*ECONNREFUSED/);
    expect(lines).toContainEqual(expect.stringMatching(/^backoff: next start at .* \(attempt 1\)$/));
    expect(lines.join('\n')).not.toContain(SECRET);
  });

  it('falls back to the older HTTP+SSE transport when the server does not take Streamable HTTP', async () => {
    const old = await oldSseServer();
    server = old.server;
    supervisor = new Supervisor();
    const lines: string[] = [];
    supervisor.on('log', (l) => lines.push(l.text));
    await supervisor.reconcile([remote(old.url)]);
    await waitForState(supervisor, 'remote', 'running');
    await expect.poll(() => supervisor.statusOf('remote')?.toolCount).toBe(1);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^no Streamable HTTP at .* \(it answered 405 to POST\); trying the older HTTP\+SSE transport$/,
      ),
    );
    const result = await supervisor.runner('remote')?.client?.callTool({ name: 'legacy', arguments: {} });
    expect(JSON.stringify(result?.content)).toContain('legacy answer');
  });

  it('says in one line what a server that is not MCP answered, never its page', async () => {
    const page = await webPage(404);
    server = page.server;
    supervisor = new Supervisor();
    const lines: string[] = [];
    supervisor.on('log', (l) => lines.push(l.text));
    await supervisor.reconcile([remote(page.url)]);
    await waitForState(supervisor, 'remote', 'backoff');
    expect(supervisor.statusOf('remote')?.lastError).toBe(
      `cannot connect to ${page.url}: the server answered 404 Not Found (text/html) to GET: nothing answers MCP at this address; check the server's url (often it ends in /mcp or /sse)`,
    );
    expect(lines.join('\n')).not.toMatch(/DOCTYPE|<html>/);
  });

  it('stops retrying a server that wants credentials, and says so', async () => {
    const page = await webPage(401);
    server = page.server;
    supervisor = new Supervisor();
    await supervisor.reconcile([remote(page.url)]);
    await waitForState(supervisor, 'remote', 'error');
    expect(supervisor.statusOf('remote')?.lastError).toMatch(
      /^cannot connect to .*: the server answered 401 Unauthorized \(text\/html\) to POST: it needs credentials or a sign-in; give the server the header it expects in servers.json/,
    );
  });
});
