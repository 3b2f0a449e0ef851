import { describe, expect, it } from 'vitest';
import { goose } from '../../../electron/core/editors/goose.ts';
import { adapterCases } from './adapter-cases.ts';
import { syncText } from './helpers.ts';

// Goose's config.yaml as `goose configure` leaves it, with comments of the user's.
const BEFORE = `# goose settings
GOOSE_PROVIDER: openai   # the provider
GOOSE_MODEL: gpt-4o
extensions:
  developer:
    bundled: true
    enabled: true
    name: developer
    timeout: 300
    type: builtin
  # my fetch server
  fetch:
    enabled: false
    type: stdio
    name: fetch
    cmd: uvx
    args: [mcp-server-fetch]
    envs: {}
GOOSE_MODE: smart_approve
`;

describe('Goose', () => {
  adapterCases('goose', {
    paths: {
      linux: '/home/ann/.config/goose/config.yaml',
      darwin: '/Users/ann/.config/goose/config.yaml',
      win32: 'C:\\Users\\ann\\AppData\\Roaming\\Block\\goose\\config\\config.yaml',
    },
    entry: {
      name: 'alpha',
      enabled: true,
      type: 'streamable_http',
      uri: 'http://127.0.0.1:43117/mcp/alpha',
      headers: { Authorization: 'Bearer tok-goose' },
      timeout: 300,
    },
    before: BEFORE,
  });

  it("imports Goose's stdio extensions, and says why a built-in one is not a server", () => {
    expect(goose.foreignServer({ type: 'stdio', cmd: 'uvx', args: ['mcp-server-fetch'], envs: {} })).toEqual({
      kind: 'stdio',
      command: 'uvx',
      args: ['mcp-server-fetch'],
      env: {},
      cwd: undefined,
    });
    expect(goose.foreignServer({ type: 'builtin', name: 'developer' })).toEqual({
      problem: 'a Goose builtin extension, not an MCP server',
    });
  });

  it('adds under an empty "extensions:" and gives it back as it was', () => {
    const text = 'GOOSE_MODEL: x\nextensions:\n# nothing yet\nGOOSE_MODE: auto';
    const synced = syncText('goose', text, ['alpha']);
    expect(synced.text).toMatch(/^GOOSE_MODEL: x\nextensions:\n {2}alpha:\n {4}name: alpha\n/);
    expect(syncText('goose', synced.text, [], synced.layout).text).toBe(text);
  });

  it('refuses a flow-style collection and a file that is not YAML, saying where', () => {
    expect(() => syncText('goose', 'extensions: {}\n', ['alpha'])).toThrow(/flow style/);
    expect(() => syncText('goose', 'a: [\n', ['alpha'])).toThrow(/not valid YAML at line/);
  });
});
