import { describe, expect, it } from 'vitest';
import { opencode } from '../../../electron/core/editors/opencode.ts';
import { adapterCases } from './adapter-cases.ts';

describe('opencode', () => {
  adapterCases('opencode', {
    paths: {
      linux: '/home/ann/.config/opencode/opencode.json',
      darwin: '/Users/ann/.config/opencode/opencode.json',
      win32: 'C:\\Users\\ann\\.config\\opencode\\opencode.json',
    },
    entry: {
      type: 'remote',
      url: 'http://127.0.0.1:43117/mcp/alpha',
      headers: { Authorization: 'Bearer {file:/home/me/.switchboard-test/tokens/editors/opencode}' },
    },
    before: `{
  "$schema": "https://opencode.ai/config.json",
  "theme": "opencode",
  "model": "anthropic/claude-sonnet-4-5",
  "mcp": {
    "everything": {
      "type": "local",
      "command": ["npx", "-y", "@modelcontextprotocol/server-everything"],
      "environment": { "LOG": "1" },
      "enabled": true
    }
  }
}
`,
  });

  it("imports opencode's local servers (a command list, environment) and remote ones", () => {
    expect(
      opencode.foreignServer({
        type: 'local',
        command: ['npx', '-y', '@modelcontextprotocol/server-everything'],
        environment: { LOG: '1' },
      }),
    ).toEqual({
      kind: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-everything'],
      env: { LOG: '1' },
      cwd: undefined,
    });
    expect(
      opencode.foreignServer({ type: 'remote', url: 'https://x.example/mcp', headers: { 'X-A': 'b' } }),
    ).toEqual({ kind: 'remote', url: 'https://x.example/mcp', headers: { 'X-A': 'b' } });
  });
});
