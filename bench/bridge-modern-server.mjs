// The bridge bench's remote server of the 2026-07-28 era: the SDK v2 server, modern only (initialize
// refused), stateless Streamable HTTP on 127.0.0.1:<argv[2]> (0 = any free port, printed as
// "listening <port>"), one `echo` tool. The path to it is what the bench measures: as a url entry
// behind Switchboard, which probes it with server/discover and relays every call with the envelope.
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

function factory() {
  const server = new McpServer({ name: 'bench-modern-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes back the input', inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }),
  );
  return server;
}

const handler = toNodeHandler(createMcpHandler(factory, { legacy: 'reject', responseMode: 'json' }));
const http = createServer((req, res) => void handler(req, res));
http.keepAliveTimeout = 60_000;
http.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${http.address().port}\n`);
});
