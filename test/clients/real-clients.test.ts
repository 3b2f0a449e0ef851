import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EditorId } from '../../shared/editors.ts';
import { EDITORS } from '../../electron/core/editors/registry.ts';
import { userDirs } from '../../electron/core/user-dirs.mjs';
import type { Headless } from '../../electron/headless/serve.ts';
import { textOf } from '../helpers/bridge.ts';
import { startFakeModel, writeFakeModelProvider, type FakeModel } from '../helpers/fake-model.ts';
import { startSyncedEverything } from '../helpers/synced-serve.ts';
import { tempHome, type TempHome } from '../helpers/temp-home.ts';
import { install } from '../integration/editors/helpers.ts';
import { clientBin, clientEnv, clientsInstalled, CodexAppServer, run, type RunResult } from './clients.ts';

// The real clients, pinned in test/clients/package.json, against what `sync` writes: `switchboard
// serve` with server-everything approved, in a throwaway HOME where each client has a settings file
// of the user's (with the switches that keep it offline). Each client's own health check must show
// the server connected, and a tool is called: Codex through its app-server, every other client through
// one offline prompt to a fake model on 127.0.0.1 (test/fixtures/fake-model.mjs: OpenAI, Anthropic and
// Gemini APIs) that asks for the server's echo tool and repeats what it answered. Then
// tokens are rotated: the clients that take theirs from a header helper or a file reference keep
// working with no rewrite of their files.

const PROBE = 'switchboard-probe';
const CLIENT_EDITORS = [
  'claude-code',
  'gemini-cli',
  'codex',
  'copilot-cli',
  'opencode',
  'qwen-code',
] as const;

const USER_FILES: Record<(typeof CLIENT_EDITORS)[number], string> = {
  'claude-code': '{\n  "hasCompletedOnboarding": true,\n  "autoUpdates": false\n}\n',
  'gemini-cli': `{
  // mine
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "telemetry": { "enabled": false },
  "privacy": { "usageStatisticsEnabled": false },
  "general": { "disableAutoUpdate": true, "disableUpdateNag": true }
}
`,
  codex: `# my Codex settings
check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false
`,
  'copilot-cli': '{\n  "mcpServers": {}\n}\n',
  opencode: '{\n  "autoupdate": false,\n  "share": "disabled"\n}\n',
  'qwen-code': `{
  "privacy": { "usageStatisticsEnabled": false },
  "telemetry": { "enabled": false },
  "general": { "disableAutoUpdate": true }
}
`,
};

const installed = clientsInstalled();
const required = process.env.SWITCHBOARD_REQUIRE_CLIENTS === '1';

describe.runIf(!installed && required)('real MCP clients', () => {
  it('are installed', () => {
    throw new Error('the real clients are not installed: run  npm ci --prefix test/clients');
  });
});

describe.skipIf(!installed)('real MCP clients read what sync writes', () => {
  let t: TempHome;
  let h: Headless;
  let model: FakeModel | undefined;
  let env: NodeJS.ProcessEnv;
  const file = (editor: EditorId) => EDITORS[editor].file(userDirs(t.env));

  beforeAll(async () => {
    t = tempHome();
    for (const editor of CLIENT_EDITORS) install(t, editor, USER_FILES[editor]);
    h = await startSyncedEverything(t, CLIENT_EDITORS);
    model = await startFakeModel(PROBE);
    const modelOrigin = model.origin;
    const modelUrl = model.url;
    // opencode's model: the fake one, as a provider in a config file of its own (merged with the
    // user's, which holds Switchboard's entry).
    const opencodeModel = join(t.dir, 'opencode-model.json');
    writeFakeModelProvider(opencodeModel, modelUrl);
    env = clientEnv(t.env, {
      COPILOT_PROVIDER_BASE_URL: modelUrl,
      COPILOT_MODEL: 'fake-model',
      OPENAI_BASE_URL: modelUrl,
      OPENAI_API_KEY: 'fake',
      OPENAI_MODEL: 'fake-model',
      ANTHROPIC_BASE_URL: modelOrigin,
      ANTHROPIC_API_KEY: 'fake',
      // Claude Code otherwise defers MCP tools behind a search tool the fake model does not use.
      ENABLE_TOOL_SEARCH: 'false',
      GOOGLE_GEMINI_BASE_URL: modelOrigin,
      GEMINI_API_KEY: 'fake',
      OPENCODE_CONFIG: opencodeModel,
    });
  }, 120_000);

  afterAll(async () => {
    model?.stop();
    await h?.stop();
    t?.cleanup();
  });

  const cwd = () => t.dir;
  const expectOk = (r: RunResult, pattern: RegExp) => expect(r.output, r.output).toMatch(pattern);

  it('keeps the token out of the files of clients that can get it another way', () => {
    for (const editor of CLIENT_EDITORS) {
      const token = h.tokens.ensure(editor);
      expect(readFileSync(file(editor), 'utf8').includes(token), editor).toBe(EDITORS[editor].tokenInFile);
    }
    expect(
      EDITORS['claude-code'].tokenInFile || EDITORS.codex.tokenInFile || EDITORS.opencode.tokenInFile,
    ).toBe(false);
  });

  const toolSaid = new RegExp(`TOOL SAID:[\\s\\S]*Echo: ${PROBE}`);

  it('Claude Code: `claude mcp list` connects, and a prompt calls echo (token from the header helper)', async () => {
    expectOk(await run(clientBin('claude'), ['mcp', 'list'], { env, cwd: cwd() }), /everything: .*Connected/);
    const prompt = await run(
      clientBin('claude'),
      ['-p', 'call the echo tool', '--allowedTools', 'mcp__everything__echo', '--model', 'claude-opus-4-5'],
      { env, cwd: cwd() },
    );
    expectOk(prompt, toolSaid);
  });

  it('Gemini CLI: `gemini mcp list` connects, and a prompt calls echo', async () => {
    expectOk(await run(clientBin('gemini'), ['mcp', 'list'], { env, cwd: cwd() }), /everything: .*Connected/);
    const prompt = await run(
      clientBin('gemini'),
      ['-p', 'call the echo tool', '--yolo', '-m', 'gemini-2.5-flash'],
      {
        env,
        cwd: cwd(),
      },
    );
    expectOk(prompt, toolSaid);
  });

  it('Qwen Code: `qwen mcp list` connects, and a prompt calls echo through the bridge', async () => {
    expectOk(await run(clientBin('qwen'), ['mcp', 'list'], { env, cwd: cwd() }), /everything: .*Connected/);
    const prompt = await run(
      clientBin('qwen'),
      ['-p', 'call the echo tool', '--yolo', '--auth-type', 'openai'],
      { env, cwd: cwd() },
    );
    expectOk(prompt, toolSaid);
  });

  it('opencode: `opencode mcp list` connects, and a prompt calls echo (token from a {file:} reference)', async () => {
    expectOk(
      await run(clientBin('opencode'), ['mcp', 'list'], { env, cwd: cwd() }),
      /everything\s+connected/i,
    );
    expectOk(await run(clientBin('opencode'), ['run', 'call the echo tool'], { env, cwd: cwd() }), toolSaid);
  });

  it('Copilot CLI: an offline session calls echo through the bridge', async () => {
    const r = await run(
      clientBin('copilot'),
      [
        '-p',
        'call the echo tool',
        '--allow-all-tools',
        '--disable-client-telemetry',
        '--no-auto-update',
        '-s',
      ],
      {
        env,
        cwd: cwd(),
      },
    );
    expectOk(r, toolSaid);
  });

  async function codexSeesEcho(): Promise<void> {
    const codex = new CodexAppServer(env, cwd());
    try {
      await codex.request('initialize', { clientInfo: { name: 'switchboard-test', version: '1.0.0' } });
      codex.notify('initialized');
      const list = (await codex.request('mcpServerStatus/list', {})) as {
        data: { name: string; tools: Record<string, unknown> }[];
      };
      const everything = list.data.find((s) => s.name === 'everything');
      expect(Object.keys(everything?.tools ?? {}), codex.stderr).toContain('echo');
      const started = (await codex.request('thread/start', { cwd: cwd() })) as { thread: { id: string } };
      const result = await codex.request('mcpServer/tool/call', {
        threadId: started.thread.id,
        server: 'everything',
        tool: 'echo',
        arguments: { message: PROBE },
      });
      expect(textOf(result)).toBe(`Echo: ${PROBE}`);
    } finally {
      codex.close();
    }
  }

  it('Codex CLI: the app-server lists the server with its tools and calls echo (token from the header helper)', async () => {
    await codexSeesEcho();
  });

  it('a rotated token needs no rewrite of the files that hold none, and those clients keep working', async () => {
    const before = new Map(CLIENT_EDITORS.map((e) => [e, readFileSync(file(e), 'utf8')]));
    for (const editor of ['claude-code', 'codex', 'opencode'] as const) h.tokens.create(editor);
    for (const editor of ['claude-code', 'codex', 'opencode'] as const) {
      const [report] = await (h.editors?.syncNow(editor) ?? Promise.resolve([]));
      expect(report?.status, editor).toBe('unchanged');
      expect(readFileSync(file(editor), 'utf8'), editor).toBe(before.get(editor));
    }
    expectOk(await run(clientBin('claude'), ['mcp', 'list'], { env, cwd: cwd() }), /everything: .*Connected/);
    expectOk(
      await run(clientBin('opencode'), ['mcp', 'list'], { env, cwd: cwd() }),
      /everything\s+connected/i,
    );
    await codexSeesEcho();
  });

  it('unsync leaves every client file without Switchboard entries, the user settings still there', async () => {
    await h.editors?.engine.unsync([...CLIENT_EDITORS]);
    for (const editor of CLIENT_EDITORS) {
      const path = file(editor);
      if (!existsSync(path)) continue;
      const text = readFileSync(path, 'utf8');
      expect(text, editor).not.toMatch(/\/mcp\/everything/);
    }
    // Codex never rewrites its config.toml: the user's bytes, exactly.
    expect(readFileSync(file('codex'), 'utf8')).toBe(USER_FILES.codex);
    expect(join(t.home.root, 'bin')).toBeTruthy();
  });
});
