// The bridge bench's minimal stdio MCP server: one `echo` tool answered as fast as Node can, so the
// figures show the cost of the path to it (client, transport, proxy) rather than the server's own work.
// Hand-written JSON-RPC over newline-delimited stdio, no SDK, no validation: a bench fixture only.
import process from 'node:process';

const ECHO = {
  name: 'echo',
  description: 'Echoes back the input',
  inputSchema: {
    type: 'object',
    properties: { message: { type: 'string', description: 'Message to echo' } },
    required: ['message'],
  },
};

function reply(id, result) {
  process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(result)}}\n`);
}

function fail(id, code, message) {
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }) + '\n');
}

function handle(message) {
  if (message.id === undefined || message.id === null) return; // notifications
  switch (message.method) {
    case 'initialize':
      return reply(message.id, {
        protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'bench-echo', version: '1.0.0' },
      });
    case 'ping':
      return reply(message.id, {});
    case 'tools/list':
      return reply(message.id, { tools: [ECHO] });
    case 'tools/call':
      if (message.params?.name !== 'echo')
        return fail(message.id, -32602, `unknown tool ${message.params?.name}`);
      return reply(message.id, {
        content: [{ type: 'text', text: `Echo: ${message.params?.arguments?.message ?? ''}` }],
      });
    default:
      return fail(message.id, -32601, `Method not found: ${message.method}`);
  }
}

process.stdout.on('error', () => {});
let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf('\n')) !== -1) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    if (!line.trim()) continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    handle(message);
  }
});
process.stdin.on('end', () => process.exit(0));
