import { describe } from 'vitest';
import { adapterCases } from './adapter-cases.ts';

describe('Windsurf', () => {
  adapterCases('windsurf', {
    paths: {
      linux: '/home/ann/.codeium/windsurf/mcp_config.json',
      darwin: '/Users/ann/.codeium/windsurf/mcp_config.json',
      win32: 'C:\\Users\\ann\\.codeium\\windsurf\\mcp_config.json',
    },
    entry: {
      serverUrl: 'http://127.0.0.1:43117/mcp/alpha',
      headers: { Authorization: 'Bearer tok-windsurf' },
    },
    before: `{\r\n    "mcpServers": {\r\n        "sentry": {\r\n            "serverUrl": "https://mcp.sentry.dev/mcp"\r\n        }\r\n    }\r\n}\r\n`,
  });
});
