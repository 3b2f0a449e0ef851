import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EDITOR_IDS, type EditorId } from '../../../shared/editors.ts';
import { EDITORS } from '../../../electron/core/editors/registry.ts';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { closeAll, textOf } from '../../helpers/bridge.ts';
import { approveRunning } from '../../helpers/headless.ts';
import { everythingServer, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { editorFile, install } from './helpers.ts';

// With real parts: `switchboard serve`'s composition root with server-everything approved in a temp
// HOME where every editor is installed (most with settings of their own). Editor sync writes
// their files; then for EVERY editor a real MCP SDK client is built from nothing but what that
// editor's file now says, the way the editor itself would, and calls `echo`.

const USER_FILES: Partial<Record<EditorId, string>> = {
  zed: '// Zed settings\n{\n  "theme": "One Dark", // mine\n  "vim_mode": true,\n}\n',
  'claude-desktop': '{\n  "globalShortcut": "Alt+Space"\n}\n',
  vscode: '{\n\t// servers of mine\n\t"servers": {},\n\t"inputs": []\n}\n',
  windsurf:
    '{\r\n  "mcpServers": {\r\n    "sentry": { "serverUrl": "https://mcp.sentry.dev/mcp" }\r\n  }\r\n}\r\n',
  'claude-code': '{\n  "numStartups": 3,\n  "projects": {}\n}',
  'gemini-cli': '{ "theme": "GitHub" }',
  codex: '# mine\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "npx" # kept\n',
  opencode: '{\n  "$schema": "https://opencode.ai/config.json",\n  "theme": "opencode"\n}\n',
  'qwen-code': '{\n  "model": { "name": "qwen3-coder-plus" }\n}\n',
  // copilot-cli: installed, no mcp-config.json yet
  goose: '# goose\nGOOSE_PROVIDER: openai\nextensions:\n  developer:\n    enabled: true\n    type: builtin\n',
  continue: 'name: Local Assistant\nversion: 1.0.0\nschema: v1\n',
  // cursor: installed, but no mcp.json yet
};

let t: TempHome;
let headless: Headless | undefined;
const clients: Client[] = [];
const logs: string[] = [];

beforeEach(() => {
  t = tempHome();
});

afterEach(async () => {
  await closeAll(clients);
  await headless?.stop();
  headless = undefined;
  t.cleanup();
});

function entryIn(editor: EditorId, server: string): Record<string, unknown> | undefined {
  const file = editorFile(t, editor);
  if (!existsSync(file)) return undefined;
  const adapter = EDITORS[editor];
  const listed = adapter.format.entries(readFileSync(file, 'utf8'), adapter.serversKey);
  if (!listed.ok) throw new Error(`${file}: ${listed.problem}`);
  return listed.entries.find(([name]) => name === server)?.[1] as Record<string, unknown> | undefined;
}

/**
 * The headers the editor sends, found as the editor finds them: literal, from its header helper
 * command (Claude Code's headersHelper, Codex's http_headers_helper), with `{file:PATH}` read in
 * (opencode, Kilo Code), or with `$(…)` run by a shell (Crush's own POSIX-style shell; /bin/sh here).
 */
function headersOf(entry: Record<string, unknown>): Record<string, string> {
  const helper = entry.headersHelper ?? entry.http_headers_helper;
  if (typeof helper === 'string')
    return JSON.parse(execSync(helper, { env: { PATH: t.env.PATH ?? '' }, encoding: 'utf8' })) as Record<
      string,
      string
    >;
  const options = entry.requestOptions as { headers?: Record<string, string> } | undefined;
  const headers = (entry.headers ?? options?.headers ?? {}) as Record<string, string>;
  return Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [
      k,
      v.includes('$(')
        ? execSync(`printf '%s' "${v}"`, { env: { PATH: t.env.PATH ?? '' }, encoding: 'utf8' })
        : v.replace(/\{file:([^}]+)\}/g, (_m, path: string) => readFileSync(path, 'utf8').trim()),
    ]),
  );
}

/** An MCP client made only from the editor's entry: URL + headers, or the command to spawn. */
async function clientFromEntry(editor: EditorId, entry: Record<string, unknown>): Promise<Client> {
  const client = new Client({ name: `${editor}-as-configured`, version: '1.0.0' });
  clients.push(client);
  if (typeof entry.command === 'string') {
    await client.connect(
      new StdioClientTransport({
        command: entry.command,
        args: entry.args as string[],
        // Claude Desktop's environment: the user's HOME and PATH, plus the entry's env.
        env: {
          HOME: t.env.HOME ?? '',
          PATH: t.env.PATH ?? '',
          ...(entry.env as Record<string, string> | undefined),
        },
        stderr: 'pipe',
      }),
    );
    return client;
  }
  const url = [entry.url, entry.serverUrl, entry.httpUrl, entry.uri].find(
    (u) => typeof u === 'string',
  ) as string;
  const headers = headersOf(entry);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

describe('editor sync end to end (serve + server-everything + every editor)', () => {
  it('every editor reaches echo through exactly what Switchboard wrote into its file; drift is put back; disabling gives back every file', async () => {
    for (const editor of EDITOR_IDS) install(t, editor, USER_FILES[editor]);
    if (USER_FILES['claude-code']) writeFileSync(editorFile(t, 'claude-code'), USER_FILES['claude-code']);
    t.writeServers({ mcpServers: { everything: everythingServer() } });
    headless = await startHeadless({
      home: t.home,
      keychain: new OsKeychain(),
      env: t.env,
      port: 0,
      editorSync: { log: (line) => logs.push(line) },
    });
    const h = headless;
    await h.editors?.ready;
    // Nothing approved yet: nothing written.
    for (const editor of EDITOR_IDS) expect(entryIn(editor, 'everything')).toBeUndefined();

    await approveRunning(h.core, ['everything'], 45_000);
    await waitFor(
      () => EDITOR_IDS.every((e) => entryIn(e, 'everything')),
      10_000,
      'every editor file written',
    );

    for (const editor of EDITOR_IDS) {
      const entry = entryIn(editor, 'everything') ?? {};
      const text = readFileSync(editorFile(t, editor), 'utf8');
      const token = h.tokens.ensure(editor);
      if (editor === 'claude-desktop') {
        expect(text).not.toMatch(/Bearer|Authorization|http:/);
      } else {
        expect(headersOf(entry)).toEqual({ Authorization: `Bearer ${token}` });
      }
      // Where the editor can read its token some other way, its file holds none.
      expect(text.includes(token), editor).toBe(EDITORS[editor].tokenInFile);
      const client = await clientFromEntry(editor, entry);
      const result = await client.callTool({ name: 'echo', arguments: { message: `hello from ${editor}` } });
      expect(textOf(result), editor).toBe(`Echo: hello from ${editor}`);
    }
    expect(logs.join('\n')).toMatch(/Claude Desktop reads its settings only when it starts/);

    // Drift: someone edits Switchboard's Zed entry (and a setting of their own); the entry is put back.
    const zedFile = editorFile(t, 'zed');
    const synced = readFileSync(zedFile, 'utf8');
    writeFileSync(
      zedFile,
      synced.replace('"vim_mode": true', '"vim_mode": false').replace(/\/mcp\/everything/, '/mcp/elsewhere'),
    );
    await waitFor(() => readFileSync(zedFile, 'utf8').includes('/mcp/everything'), 10_000, 'drift put back');
    expect(readFileSync(zedFile, 'utf8')).toBe(synced.replace('"vim_mode": true', '"vim_mode": false'));
    expect(logs.join('\n')).toMatch(/Zed: everything changed outside Switchboard/);
    writeFileSync(zedFile, readFileSync(zedFile, 'utf8').replace('"vim_mode": false', '"vim_mode": true'));

    // The same in Codex's TOML and Goose's YAML: their entries are put back, the user's lines untouched.
    for (const editor of ['codex', 'goose'] as const) {
      const file = editorFile(t, editor);
      const before = readFileSync(file, 'utf8');
      writeFileSync(file, before.replace('/mcp/everything', '/mcp/elsewhere'));
      await waitFor(() => readFileSync(file, 'utf8') === before, 10_000, `${editor} drift put back`);
    }

    // The server is disabled in servers.json: every editor file gets back exactly the user's bytes.
    t.writeServers({ mcpServers: { everything: { ...everythingServer(), enabled: false } } });
    await waitFor(() => EDITOR_IDS.every((e) => !entryIn(e, 'everything')), 10_000, 'entries removed');
    for (const editor of EDITOR_IDS) {
      const file = editorFile(t, editor);
      const original = USER_FILES[editor];
      if (original === undefined)
        expect(existsSync(file), `${editor}: the file Switchboard created is gone`).toBe(false);
      else expect(readFileSync(file, 'utf8'), editor).toBe(original);
    }
  });
});
