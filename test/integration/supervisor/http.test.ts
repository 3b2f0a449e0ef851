import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
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

function remote(url: string, fingerprint = 'fp-remote'): DesiredServer {
  return {
    name: 'remote',
    fingerprint,
    transport: 'http',
    prepare: async () => ({
      transport: 'http',
      url,
      headers: { Authorization: `Bearer ${SECRET}` },
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
});
