// The bridge bench's floor: the least a Streamable HTTP MCP endpoint in Node can do. It answers
// `echo` itself (no upstream, no sessions, no checks) with plain JSON, so a client's time against it is
// the cost of the HTTP transport alone: the SDK client, fetch, loopback TCP and node:http.
//
//   node bench/bridge-http-floor.mjs PORT      (serves http://127.0.0.1:PORT/mcp)
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import process from 'node:process';

const port = Number(process.argv[2] ?? 0);

function answer(message) {
  switch (message.method) {
    case 'initialize':
      return {
        protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'bench-http-floor', version: '1.0.0' },
      };
    case 'tools/list':
      return {
        tools: [
          { name: 'echo', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } },
        ],
      };
    case 'tools/call':
      return { content: [{ type: 'text', text: `Echo: ${message.params?.arguments?.message ?? ''}` }] };
    default:
      return {};
  }
}

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const body = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: answer(message) });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`listening on ${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
