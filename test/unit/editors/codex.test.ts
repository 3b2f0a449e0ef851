import { describe, expect, it } from 'vitest';
import { userDirs } from '../../../electron/core/user-dirs.mjs';
import { codex } from '../../../electron/core/editors/codex.ts';
import { adapterCases } from './adapter-cases.ts';
import { syncText } from './helpers.ts';

// A config.toml as people keep it: comments everywhere, a profile, a stdio server of their own with a
// sub-table, literal and multi-line strings, an array of tables, and no blank line at the end.
const BEFORE = `# Codex settings — mine
model = "gpt-5-codex"   # the default model
approval_policy = 'on-request'
notify = ["notify-send", "Codex"]

[profiles.fast]
model = "o4-mini"
model_reasoning_effort = "low"

# Docs for the assistant
[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]
startup_timeout_sec = 20

[mcp_servers.context7.env]
CONTEXT7_LOG = "warn"

[[skills]]
path = '''C:\\tools\\skills'''
description = """
two lines
"""
[tui]
theme = "dark"`;

describe('Codex CLI', () => {
  adapterCases('codex', {
    paths: {
      linux: '/home/ann/.codex/config.toml',
      darwin: '/Users/ann/.codex/config.toml',
      win32: 'C:\\Users\\ann\\.codex\\config.toml',
    },
    entry: {
      url: 'http://127.0.0.1:43117/mcp/alpha',
      http_headers_helper: '/home/me/.switchboard-test/bin/editor-headers codex',
    },
    before: BEFORE,
  });

  it('follows CODEX_HOME', () => {
    expect(codex.file(userDirs({ HOME: '/home/ann', CODEX_HOME: '/data/codex' }, 'linux'))).toBe(
      '/data/codex/config.toml',
    );
  });

  it("imports Codex's own header keys as references, never as values", () => {
    expect(
      codex.foreignServer({
        url: 'https://mcp.figma.com/mcp',
        bearer_token_env_var: 'FIGMA_TOKEN',
        http_headers: { 'X-Team': 'design' },
        env_http_headers: { 'X-Key': 'FIGMA_KEY' },
      }),
    ).toEqual({
      kind: 'remote',
      url: 'https://mcp.figma.com/mcp',
      headers: {
        'X-Team': 'design',
        'X-Key': '${env:FIGMA_KEY}',
        Authorization: 'Bearer ${env:FIGMA_TOKEN}',
      },
    });
    expect(codex.foreignServer({ url: 'https://x.example/mcp', http_headers_helper: 'get-token' })).toEqual({
      problem: expect.stringMatching(/http_headers_helper/) as string,
    });
  });

  it('refuses to touch servers written as an inline table, with what to do', () => {
    const text = 'model = "o3"\nmcp_servers = { docs = { command = "npx" } }\n';
    expect(() => syncText('codex', text, ['alpha'])).toThrow(/inline table.*\[mcp_servers\.NAME\] tables/);
  });

  it('reports a file that is not TOML with its line and column, and leaves it alone', () => {
    expect(() => syncText('codex', 'model = "o3"\nnot toml\n', ['alpha'])).toThrow(/TOML at line 2, column/);
  });

  it('replaces an entry of its own that someone rewrote with dotted keys in place, as one key line, and keeps the rest', () => {
    const text =
      '[mcp_servers]\nalpha.url = "http://127.0.0.1:43117/mcp/alpha"\n# kept\nmine.command = "x"\n';
    const synced = syncText('codex', text, ['alpha']);
    expect(synced.result.updated).toEqual(['alpha']);
    expect(synced.text).toBe(
      '[mcp_servers]\nalpha = { url = "http://127.0.0.1:43117/mcp/alpha", ' +
        'http_headers_helper = "/home/me/.switchboard-test/bin/editor-headers codex" }\n# kept\nmine.command = "x"\n',
    );
  });

  it('does not import an entry written in two places of the file (unsync could not give it back as it was)', () => {
    const text =
      '[mcp_servers.mine]\ncommand = "npx"\n\n[tui]\ntheme = "dark"\n\n[mcp_servers.mine.env]\nK = "v"\n';
    const listed = codex.format.entries(text, 'mcp_servers');
    expect(listed.ok && listed.fixed?.get('mine')).toMatch(
      /more than one place of the file; put its \[mcp_servers\.mine\] tables \(or keys\) one after the other/,
    );
    // Asked to anyway, the plan leaves the user's entry as it is: the server's name is then a clash.
    const planned = syncText('codex', text, ['mine'], undefined, { adopt: new Map([['mine', 'mine']]) });
    expect(planned.result.adopted).toEqual([]);
    expect(planned.result.clashes).toEqual(['mine']);
    expect(planned.text).toBe(text);
  });

  it('keeps CRLF line endings and a byte order mark', () => {
    const text = '\ufeffmodel = "o3"\r\n';
    const synced = syncText('codex', text, ['alpha']);
    expect(synced.text).toMatch(/^\ufeffmodel = "o3"\r\n\r\n\[mcp_servers\.alpha\]\r\nurl = /);
    expect(synced.text).not.toMatch(/[^\r]\n/);
    expect(syncText('codex', synced.text, [], synced.layout).text).toBe(text);
  });
});
