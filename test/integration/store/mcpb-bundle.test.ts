import { packExtension } from '@anthropic-ai/mcpb';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { zipSync } from 'fflate';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { editorToken, httpClient, textOf } from '../../helpers/bridge.ts';
import { runCli } from '../../helpers/cli.ts';
import { defined, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// An MCP bundle made by @anthropic-ai/mcpb's own packer from a small node server: `switchboard
// install` (a real CLI process) unpacks it into the store and asks for its user_config (the secret
// to the real keychain), the approval shows the bundle, and once approved it answers through
// /mcp/<name> of a real bridge.

const KEY = 'bundle-test-api-key-1234567890';
let t: TempHome;
let headless: Headless | undefined;
const keychain = new OsKeychain();

beforeEach(() => {
  t = tempHome();
});
afterEach(async () => {
  await headless?.stop();
  headless = undefined;
  await keychain.delete('echo-api_key').catch(() => undefined);
  t.cleanup();
});

describe('MCP bundles (.mcpb)', { timeout: 120_000 }, () => {
  it('installs a packed bundle, asks for its settings, shows it for approval, and runs it', async () => {
    const source = join(t.dir, 'bundle');
    cpSync(join(import.meta.dirname, '../../fixtures/store/mcpb-echo'), source, { recursive: true });
    const file = join(t.dir, 'echo.mcpb');
    expect(await packExtension({ extensionPath: source, outputPath: file, silent: true })).toBe(true);

    // Missing settings are named, and nothing is added.
    const refused = await runCli(['install', file, '--name', 'echo'], t.env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the bundle needs: greeting, api_key');

    const installed = await runCli(
      ['install', file, '--name', 'echo', '--set', 'greeting=hi there', '--set', `api_key=${KEY}`],
      t.env,
    );
    expect(installed.stderr).toBe('');
    expect(installed.stdout).toContain('Switchboard bundle echo 1.0.0 by Switchboard tests (unsigned)');
    expect(installed.stdout).toContain('${secret:echo-api_key}');
    const written = readFileSync(t.home.serversFile, 'utf8');
    expect(written).not.toContain(KEY);
    const entry = JSON.parse(written).mcpServers.echo;
    expect(entry.env).toEqual({ ECHO_API_KEY: '${secret:echo-api_key}' });
    expect(entry.args[0]).toMatch(
      new RegExp(`^${t.home.store}/mcpb/sb-bundle-echo@1\\.0\\.0-[0-9a-f]{12}/server/index\\.mjs$`),
    );

    const h = await startHeadless({ home: t.home, keychain, env: t.env, port: 0, editorSync: false });
    headless = h;
    const shown = await h.core.approvals.preview('echo');
    // Said as "from the switchboard command line", not as a hand edit of servers.json.
    expect(shown.source).toBe('cli');
    const pkg = defined(shown.package, 'package review');
    expect(pkg).toMatchObject({ kind: 'mcpb', name: 'sb-bundle-echo', version: '1.0.0' });
    const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
    expect(pkg.lines).toContain(`pinned: ${sha}`);
    expect(pkg.notes).toEqual([
      "bundle: Switchboard bundle echo by Switchboard tests: A tiny MCP server packed as an MCP bundle for Switchboard's tests",
      'entry point: server/index.mjs (node server)',
      'signature: unsigned: nobody vouches for who made it',
    ]);
    h.core.approvals.approve('echo', shown.fingerprint);
    await waitFor(
      () => h.core.status.report().servers.find((s) => s.name === 'echo' && s.state === 'running'),
      60_000,
      'running',
    );
    const client = await httpClient(`http://127.0.0.1:${h.port}/mcp/echo`, editorToken(h.tokens));
    const digest = createHash('sha256').update(KEY).digest('hex').slice(0, 16);
    expect(textOf(await client.callTool({ name: 'whoami', arguments: {} }))).toBe(
      `hi there; key sha256=${digest}`,
    );
    await client.close();
  });

  it('takes a bundle dropped in the UI: upload, its settings, added pending approval', async () => {
    const source = join(t.dir, 'bundle');
    cpSync(join(import.meta.dirname, '../../fixtures/store/mcpb-echo'), source, { recursive: true });
    const file = join(t.dir, 'echo.mcpb');
    expect(await packExtension({ extensionPath: source, outputPath: file, silent: true })).toBe(true);
    t.writeServers({ mcpServers: {} });
    const h = await startHeadless({ home: t.home, keychain, env: t.env, port: 0, editorSync: false });
    headless = h;
    const control = readFileSync(join(t.home.tokens, 'control'), 'utf8').trim();
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`http://127.0.0.1:${h.port}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${control}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const uploaded = await post('/api/bundles', {
      fileName: 'echo.mcpb',
      data: readFileSync(file).toString('base64'),
    });
    expect(uploaded.status).toBe(200);
    expect(uploaded.body).toMatchObject({
      suggestedName: 'sb-bundle-echo',
      displayName: 'Switchboard bundle echo',
      signature: 'unsigned',
      entryPoint: 'server/index.mjs',
      fields: [
        expect.objectContaining({ key: 'greeting', required: true, sensitive: false }),
        expect.objectContaining({ key: 'api_key', required: true, sensitive: true }),
      ],
    });
    const id = String(uploaded.body.id);
    const missing = await post(`/api/bundles/${id}/add`, { name: 'echo', values: { greeting: 'hi' } });
    expect(missing.status).toBe(400);
    expect(String(missing.body.error)).toContain('needs a value for: API key (api_key)');
    const added = await post(`/api/bundles/${id}/add`, {
      name: 'echo',
      values: { greeting: 'hi', api_key: KEY },
    });
    expect(added.body).toEqual({ name: 'echo', secrets: ['echo-api_key'] });
    expect(readFileSync(t.home.serversFile, 'utf8')).not.toContain(KEY);
    await waitFor(
      () => h.core.status.report().servers.find((s) => s.name === 'echo' && s.state === 'pending-approval'),
      10_000,
      'pending',
    );
    expect((await h.core.approvals.preview('echo')).source).toBe('ui');
  });

  it('shows a dropped bundle’s approval at once in the UI: no registry to wait for, Approve enabled', async () => {
    // Issue 36 item 4: the card said "Resolving its package at its registry…" for over a minute.
    const source = join(t.dir, 'bundle');
    cpSync(join(import.meta.dirname, '../../fixtures/store/mcpb-echo'), source, { recursive: true });
    const file = join(t.dir, 'echo.mcpb');
    expect(await packExtension({ extensionPath: source, outputPath: file, silent: true })).toBe(true);
    t.writeServers({ mcpServers: {} });
    const h = await startHeadless({ home: t.home, keychain, env: t.env, port: 0, editorSync: false });
    headless = h;
    const control = readFileSync(join(t.home.tokens, 'control'), 'utf8').trim();
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`http://127.0.0.1:${h.port}${path}`, {
        method,
        headers: { authorization: `Bearer ${control}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return (await res.json()) as Record<string, unknown>;
    };
    const uploaded = await call('POST', '/api/bundles', {
      fileName: 'echo.mcpb',
      data: readFileSync(file).toString('base64'),
    });
    await call('POST', `/api/bundles/${String(uploaded.id)}/add`, {
      name: 'echo',
      values: { greeting: 'hi', api_key: KEY },
    });
    const started = Date.now();
    const cards = (await call('GET', '/api/approvals')).approvals as {
      name: string;
      resolving: boolean;
      package: { kind: string } | null;
      packageError: string | null;
    }[];
    const card = defined(
      cards.find((c) => c.name === 'echo'),
      'the bundle’s card',
    );
    expect(card).toMatchObject({ resolving: false, packageError: null, package: { kind: 'mcpb' } });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("installs a bundle zipped by `zip -r` (directory entries), keeping its files' modes", async () => {
    // Issue 36 item 6: what `zip -r` makes has an entry per folder ("server/"), which the mcpb
    // package's unpacker tried to write as a file.
    const source = join(t.dir, 'bundle');
    cpSync(join(import.meta.dirname, '../../fixtures/store/mcpb-echo'), source, { recursive: true });
    writeFileSync(join(source, 'server', 'run.sh'), '#!/bin/sh\n');
    chmodSync(join(source, 'server', 'run.sh'), 0o755);
    const file = join(t.dir, 'echo.mcpb');
    execFileSync('zip', ['-qr', file, '.'], { cwd: source });
    expect(execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).split('\n')).toContain('server/');

    const installed = await runCli(
      ['install', file, '--name', 'echo', '--set', 'greeting=hi', '--set', 'api_key=x'],
      { ...t.env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${t.dir}/no-bus` },
    );
    // (No keychain here: the secret is what fails, after the bundle was unpacked and checked.)
    expect(installed.stdout).toContain('Switchboard bundle echo 1.0.0 by Switchboard tests (unsigned)');
    expect(installed.stderr).not.toContain('not an MCP bundle');
    const unpacked = join(t.home.store, 'mcpb');
    const [folder] = execFileSync(
      'find',
      [unpacked, '-maxdepth', '1', '-type', 'd', '-name', 'sb-bundle-echo@*'],
      {
        encoding: 'utf8',
      },
    )
      .trim()
      .split('\n');
    expect(readFileSync(join(String(folder), 'server', 'index.mjs'), 'utf8')).toBe(
      readFileSync(join(source, 'server', 'index.mjs'), 'utf8'),
    );
    expect(statSync(join(String(folder), 'server', 'run.sh')).mode & 0o777).toBe(0o755);
  });

  it('the approval of a bundle says what runs from the store and counts the packages it ships', async () => {
    // Issue 36 item 6: it said "runs from the store:" with nothing after it, and "dependencies: 0".
    const source = join(t.dir, 'bundle');
    cpSync(join(import.meta.dirname, '../../fixtures/store/mcpb-echo'), source, { recursive: true });
    const shipped = (dir: string, name: string, version: string) => {
      mkdirSync(join(source, dir), { recursive: true });
      writeFileSync(join(source, dir, 'package.json'), JSON.stringify({ name, version }));
    };
    shipped('node_modules/zod', 'zod', '3.25.0');
    shipped('node_modules/@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk', '1.17.0');
    shipped('node_modules/@modelcontextprotocol/sdk/node_modules/zod', 'zod', '4.0.0');
    mkdirSync(join(source, 'node_modules', '.bin'));
    const file = join(t.dir, 'echo.mcpb');
    expect(await packExtension({ extensionPath: source, outputPath: file, silent: true })).toBe(true);
    const installed = await runCli(
      ['install', file, '--name', 'echo', '--set', 'greeting=hi there', '--set', `api_key=${KEY}`],
      t.env,
    );
    expect(installed.stderr).toBe('');

    const h = await startHeadless({ home: t.home, keychain, env: t.env, port: 0, editorSync: false });
    headless = h;
    const pkg = defined((await h.core.approvals.preview('echo')).package, 'package review');
    const entry = JSON.parse(readFileSync(t.home.serversFile, 'utf8')).mcpServers.echo;
    expect(pkg.dependencies).toBe(3);
    expect(pkg.lines).toContain('dependencies: 3');
    expect(pkg.lines).toContain(`runs from the store: node ${entry.args[0]} --greeting 'hi there'`);
  });

  it('refuses a bundle whose entries would land outside its folder', async () => {
    const manifest = readFileSync(join(import.meta.dirname, '../../fixtures/store/mcpb-echo/manifest.json'));
    const file = join(t.dir, 'evil.mcpb');
    writeFileSync(
      file,
      zipSync({ 'manifest.json': manifest, 'server/': new Uint8Array(), '../escaped': new Uint8Array([1]) }),
    );
    const run = await runCli(['install', file, '--name', 'evil'], t.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('../escaped');
    expect(existsSync(join(t.home.store, 'staging', 'escaped'))).toBe(false);
    expect(existsSync(join(t.home.store, 'escaped'))).toBe(false);
  });
});
