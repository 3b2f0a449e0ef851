import { describe } from 'vitest';
import { adapterCases } from './adapter-cases.ts';

describe('Cursor', () => {
  adapterCases('cursor', {
    paths: {
      linux: '/home/ann/.cursor/mcp.json',
      darwin: '/Users/ann/.cursor/mcp.json',
      win32: 'C:\\Users\\ann\\.cursor\\mcp.json',
    },
    entry: { url: 'http://127.0.0.1:43117/mcp/alpha', headers: { Authorization: 'Bearer tok-cursor' } },
    before: `{
  "mcpServers": {
    "linear": { "url": "https://mcp.linear.app/sse" }
  }
}
`,
  });
});
