import { describe, expect, it } from 'vitest';
import { userDirs } from '../../../electron/core/user-dirs.mjs';
import { copilotCli } from '../../../electron/core/editors/copilot-cli.ts';
import { adapterCases } from './adapter-cases.ts';

describe('Copilot CLI', () => {
  adapterCases('copilot-cli', {
    paths: {
      linux: '/home/ann/.copilot/mcp-config.json',
      darwin: '/Users/ann/.copilot/mcp-config.json',
      win32: 'C:\\Users\\ann\\.copilot\\mcp-config.json',
    },
    entry: {
      type: 'http',
      url: 'http://127.0.0.1:43117/mcp/alpha',
      headers: { Authorization: 'Bearer tok-copilot-cli' },
      tools: ['*'],
    },
    before: `{
  "mcpServers": {
    "playwright": {
      "type": "local",
      "command": "npx",
      "args": ["@playwright/mcp@latest"],
      "env": {},
      "tools": ["*"]
    }
  }
}
`,
  });

  it('follows COPILOT_HOME', () => {
    expect(copilotCli.file(userDirs({ HOME: '/home/ann', COPILOT_HOME: '/data/copilot' }, 'linux'))).toBe(
      '/data/copilot/mcp-config.json',
    );
  });
});
