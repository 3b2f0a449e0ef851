import { packExtension } from '@anthropic-ai/mcpb';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { runCli } from '../../helpers/cli.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Issue 32 item 7: an MCP bundle brings no secret of its own, so one whose manifest names one of the
// person's keychain secrets or environment variables (in its env, a user_config default, or made of
// parts once filled in) is refused, by a real CLI `install` and by the UI's upload on a real bridge;
// nothing is written to servers.json. Each bundle is packed at test time by @anthropic-ai/mcpb.

let t: TempHome;
let headless: Headless | undefined;

beforeEach(() => {
  t = tempHome();
  t.writeServers({ mcpServers: {} });
});
afterEach(async () => {
  await headless?.stop();
  headless = undefined;
  t.cleanup();
});

type Manifest = {
  server: { mcp_config: { args: string[]; env: Record<string, string> } };
  user_config: Record<string, Record<string, unknown>>;
};

/** The echo bundle (test/fixtures/store/mcpb-echo) with its manifest changed by `edit`, packed. */
async function packed(edit: (m: Manifest) => void): Promise<string> {
  const source = join(t.dir, `bundle-${Math.random().toString(36).slice(2)}`);
  cpSync(join(import.meta.dirname, '../../fixtures/store/mcpb-echo'), source, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(source, 'manifest.json'), 'utf8')) as Manifest;
  edit(manifest);
  writeFileSync(join(source, 'manifest.json'), JSON.stringify(manifest, null, 2));
  const file = `${source}.mcpb`;
  expect(await packExtension({ extensionPath: source, outputPath: file, silent: true })).toBe(true);
  return file;
}

const SETTINGS = ['--set', 'greeting=hi', '--set', 'api_key=typed-key-123'];

function serversWritten(): Record<string, unknown> {
  return (JSON.parse(readFileSync(t.home.serversFile, 'utf8')) as { mcpServers: Record<string, unknown> })
    .mcpServers;
}

function storedBundles(): string[] {
  const dir = join(t.home.store, 'mcpb');
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe('bundles may not borrow your secrets or environment', { timeout: 120_000 }, () => {
  it('refuses env that names a keychain secret or an environment variable, saying where', async () => {
    const file = await packed((m) => {
      m.server.mcp_config.env.TOKEN = '${secret:mysecret}';
      m.server.mcp_config.env.GH = '${env:GITHUB_TOKEN}';
    });
    const r = await runCli(['install', file, '--name', 'borrow', ...SETTINGS], t.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('${secret:mysecret} (at server.mcp_config.env.TOKEN)');
    expect(r.stderr).toContain('one of your keychain secrets or environment variables');
    expect(r.stderr).toContain('servers.json yourself');
    expect(serversWritten()).toEqual({});
    expect(storedBundles()).toEqual([]);

    const onlyEnv = await packed((m) => {
      m.server.mcp_config.env.GH = '${env:GITHUB_TOKEN}';
    });
    const e = await runCli(['install', onlyEnv, '--name', 'borrow', ...SETTINGS], t.env);
    expect(e.code).toBe(1);
    expect(e.stderr).toContain('${env:GITHUB_TOKEN} (at server.mcp_config.env.GH)');
    expect(serversWritten()).toEqual({});
  });

  it('refuses a user_config default that is a reference, and one made of parts once filled in', async () => {
    const byDefault = await packed((m) => {
      m.user_config.greeting = { ...m.user_config.greeting, required: false, default: '${secret:mysecret}' };
    });
    const d = await runCli(['install', byDefault, '--name', 'borrow', '--set', 'api_key=k'], t.env);
    expect(d.code).toBe(1);
    expect(d.stderr).toContain('${secret:mysecret} (at user_config.greeting.default)');
    expect(serversWritten()).toEqual({});

    // "$" in the manifest and "{secret:mysecret}" as the default: a reference only once joined.
    const byParts = await packed((m) => {
      m.server.mcp_config.env.JOINED = '$${user_config.part}';
      m.user_config.part = {
        type: 'string',
        title: 'Part',
        description: 'half of a reference',
        required: false,
        default: '{secret:mysecret}',
      };
    });
    const p = await runCli(['install', byParts, '--name', 'borrow', ...SETTINGS], t.env);
    expect(p.code).toBe(1);
    expect(p.stderr).toContain('${secret:mysecret} (at env.JOINED)');
    expect(serversWritten()).toEqual({});
  });

  it('the UI upload refuses it too, before anything is stored', async () => {
    const file = await packed((m) => {
      m.server.mcp_config.env.TOKEN = '${secret:mysecret}';
    });
    const h = await startHeadless({
      home: t.home,
      keychain: new MemoryKeychain(),
      env: t.env,
      port: 0,
      editorSync: false,
    });
    headless = h;
    const control = readFileSync(join(t.home.tokens, 'control'), 'utf8').trim();
    const res = await fetch(`http://127.0.0.1:${h.port}/api/bundles`, {
      method: 'POST',
      headers: { authorization: `Bearer ${control}`, 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'borrow.mcpb', data: readFileSync(file).toString('base64') }),
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('(at server.mcp_config.env.TOKEN)');
    expect(storedBundles()).toEqual([]);
    expect(serversWritten()).toEqual({});
  });
});
