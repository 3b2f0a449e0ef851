import { describe, expect, it } from 'vitest';
import { continueDev } from '../../../electron/core/editors/continue.ts';
import { adapterCases } from './adapter-cases.ts';
import { syncText } from './helpers.ts';

const BEFORE = `name: Local Assistant
version: 1.0.0
schema: v1
models:
  - name: Llama 3.1 8B
    provider: ollama
    model: llama3.1:8b
    roles: [chat, edit]
# MCP servers of mine
mcpServers:
  - name: SQLite
    command: npx
    args:
      - -y
      - mcp-sqlite
      - /home/ann/data.db
context:
  - provider: code
`;

describe('Continue', () => {
  adapterCases('continue', {
    paths: {
      linux: '/home/ann/.continue/config.yaml',
      darwin: '/Users/ann/.continue/config.yaml',
      win32: 'C:\\Users\\ann\\.continue\\config.yaml',
    },
    entry: {
      name: 'alpha',
      type: 'streamable-http',
      url: 'http://127.0.0.1:43117/mcp/alpha',
      requestOptions: { headers: { Authorization: 'Bearer tok-continue' } },
    },
    before: BEFORE,
  });

  it("imports Continue's entries (headers under requestOptions)", () => {
    expect(
      continueDev.foreignServer({
        name: 'docs',
        type: 'streamable-http',
        url: 'https://x.example/mcp',
        requestOptions: { headers: { 'X-A': 'b' } },
      }),
    ).toEqual({ kind: 'remote', url: 'https://x.example/mcp', headers: { 'X-A': 'b' } });
  });

  it('never edits a list entry written on the line after its "-", and says so', () => {
    const text =
      'mcpServers:\n  -\n    name: alpha\n    type: streamable-http\n    url: http://127.0.0.1:43117/mcp/alpha\n';
    expect(() => syncText('continue', text, [])).toThrow(/does not start on the line of its "-"/);
  });
});
