import { describe } from 'vitest';
import { adapterCases } from './adapter-cases.ts';

describe('Gemini CLI', () => {
  adapterCases('gemini-cli', {
    paths: {
      linux: '/home/ann/.gemini/settings.json',
      darwin: '/Users/ann/.gemini/settings.json',
      win32: 'C:\\Users\\ann\\.gemini\\settings.json',
    },
    entry: {
      httpUrl: 'http://127.0.0.1:43117/mcp/alpha',
      headers: { Authorization: 'Bearer tok-gemini-cli' },
    },
    before: `{
  "theme": "GitHub",
  "selectedAuthType": "oauth-personal",
  "mcpServers": {}
}
`,
  });
});
