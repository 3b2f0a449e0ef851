import { describe } from 'vitest';
import { adapterCases } from './adapter-cases.ts';

describe('VS Code', () => {
  adapterCases('vscode', {
    paths: {
      linux: '/home/ann/.config/Code/User/mcp.json',
      darwin: '/Users/ann/Library/Application Support/Code/User/mcp.json',
      win32: 'C:\\Users\\ann\\AppData\\Roaming\\Code\\User\\mcp.json',
    },
    entry: {
      type: 'http',
      url: 'http://127.0.0.1:43117/mcp/alpha',
      headers: { Authorization: 'Bearer tok-vscode' },
    },
    before: `{
\t// My MCP servers
\t"servers": {
\t\t"memory": {
\t\t\t"type": "stdio",
\t\t\t"command": "npx",
\t\t\t"args": ["-y", "@modelcontextprotocol/server-memory"]
\t\t}
\t},
\t"inputs": [
\t\t{ "type": "promptString", "id": "api-key", "description": "API key", "password": true }
\t]
}
`,
  });
});
