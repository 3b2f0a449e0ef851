// The bridge bench's remote server of the 2025-11-25 era: the SDK v1 server over Streamable HTTP on
// 127.0.0.1:<argv[2]> (0 = any free port, printed as "listening <port>"), a session per client (as
// most remote servers keep), JSON answers, one `echo` tool: beside bridge-modern-server.mjs, the
// servers' side of both eras measured alike.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const sessions = new Map();

async function session() {
  const server = new McpServer({ name: 'bench-remote-2025-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes back the input', inputSchema: { message: z.string() } },
    async ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }),
  );
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    enableJsonResponse: true,
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  transport.onclose = () => sessions.delete(transport.sessionId);
  await server.connect(transport);
  return transport;
}

const http = createServer(async (req, res) => {
  const id = req.headers['mcp-session-id'];
  const transport = typeof id === 'string' ? sessions.get(id) : await session();
  if (!transport) {
    res.writeHead(404).end();
    return;
  }
  await transport.handleRequest(req, res);
});
http.keepAliveTimeout = 60_000;
http.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${http.address().port}\n`);
});
