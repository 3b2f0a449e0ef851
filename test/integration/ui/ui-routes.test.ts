import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HIDDEN_SECRET, UiRoutes } from '../../../shared/ui-api.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { withoutSecrets } from '../../../electron/core/secrets/diff-secrets.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

/**
 * The control API routes the UI uses (electron/core/bridge/ui-routes.ts) and the browser sign-in
 * (ui-auth.ts), over real HTTP against an in-process `serve` with an in-memory keychain.
 */

let t: TempHome;
let h: Headless;
let keychain: MemoryKeychain;
let base: string;
let control: string;

beforeEach(async () => {
  t = tempHome();
  keychain = new MemoryKeychain();
  h = await startHeadless({ home: t.home, keychain, env: t.env, port: 0, editorSync: false });
  base = `http://127.0.0.1:${h.port}`;
  control = h.tokens.controlToken();
});

afterEach(async () => {
  await h.stop();
  t.cleanup();
});

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${control}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as Record<string, unknown> };
}

/** Trades a sign-in link's code as the sign-in page does; the answer (status and JSON). */
async function exchange(link: string, headers: Record<string, string> = {}) {
  const code = new URL(link).searchParams.get('code');
  const res = await fetch(`${base}${UiRoutes.session}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ code }),
  });
  return { res, body: (await res.json()) as { session?: string; expiresAt?: number; error?: string } };
}

describe('browser sign-in', () => {
  it('the link opens the UI page and spends nothing; the page trades the code once for a session secret', async () => {
    const link = h.bridge.sessions.issueLoginLink();
    expect(link.url).toMatch(new RegExp(`^${base}/login\\?code=[A-Za-z0-9_-]{32}$`));
    // What a link preview or a prefetch would do: the code still works afterwards.
    const page = await fetch(link.url);
    // the UI's own page (or, in a checkout without a build, the page saying how to build it)
    expect(page.status).toBe((await fetch(`${base}/`)).status);
    expect(page.headers.get('set-cookie')).toBeNull();
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');

    const { res, body } = await exchange(link.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(body.session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.expiresAt).toBeGreaterThan(Date.now() + 29 * 24 * 3_600_000);
    const session = { authorization: `Bearer ${body.session}` };

    // The secret authenticates reads and writes, in the Authorization header only.
    expect((await fetch(`${base}/api/status`, { headers: session })).status).toBe(200);
    const put = await fetch(`${base}${UiRoutes.settings}`, {
      method: 'PUT',
      headers: { ...session, 'content-type': 'application/json' },
      body: '{"port": 4000}',
    });
    expect(put.status).toBe(200);
    // Not as a cookie, nor with a foreign Origin.
    const asCookie = await fetch(`${base}/api/status`, {
      headers: { cookie: `switchboard_session_${h.port}=${body.session}` },
    });
    expect(asCookie.status).toBe(401);
    const foreign = await fetch(`${base}/api/status`, {
      headers: { ...session, origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
    // A browser session cannot mint sign-in links for other browsers; the control token can.
    const mint = await fetch(`${base}${UiRoutes.loginLink}`, { method: 'POST', headers: session });
    expect(mint.status).toBe(403);
    expect((await api('POST', UiRoutes.loginLink)).status).toBe(200);

    // Single use: the same code again signs nobody in.
    const again = await exchange(link.url);
    expect(again.res.status).toBe(403);
    expect(again.body.error).toMatch(/already used or has expired.*switchboard ui/);
    expect(again.body.session).toBeUndefined();
  });

  it('refuses wrong codes, forged secrets, and a code sent in any other form than JSON', async () => {
    expect((await exchange(`${base}/login?code=not-a-code`)).res.status).toBe(403);
    const forged = await fetch(`${base}/api/status`, {
      headers: { authorization: 'Bearer forged-forged-forged-forged' },
    });
    expect(forged.status).toBe(401);
    // A form or text/plain body is what another page could send without a preflight: refused, code kept.
    const link = h.bridge.sessions.issueLoginLink();
    const code = new URL(link.url).searchParams.get('code') ?? '';
    const form = await fetch(`${base}${UiRoutes.session}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ code }),
    });
    expect(form.status).toBe(415);
    expect((await exchange(link.url)).res.status).toBe(200);
  });

  it('stays signed in across a restart of serve, until signed out (one browser, or all)', async () => {
    const first = (await exchange(h.bridge.sessions.issueLoginLink().url)).body.session ?? '';
    const second = (await exchange(h.bridge.sessions.issueLoginLink().url)).body.session ?? '';
    // Only digests are on disk, owner-only: the file signs nobody in.
    const file = join(t.home.tokens, 'browser-sessions.json');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(first);
    expect(text).not.toContain(second);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    await h.stop();
    h = await startHeadless({ home: t.home, keychain, env: t.env, port: 0, editorSync: false });
    base = `http://127.0.0.1:${h.port}`;
    const as = (secret: string) => ({ headers: { authorization: `Bearer ${secret}` } });
    expect((await fetch(`${base}/api/status`, as(first))).status).toBe(200);
    const listed = await fetch(`${base}${UiRoutes.sessions}`, as(first));
    expect(await listed.json()).toMatchObject({ count: 2, current: { expiresAt: expect.any(Number) } });

    // Signing one browser out leaves the other; its open event stream ends at once.
    const events = await fetch(`${base}/api/events`, as(first));
    expect(events.status).toBe(200);
    const out = await fetch(`${base}${UiRoutes.session}`, { method: 'DELETE', ...as(first) });
    expect(await out.json()).toEqual({ ok: true, signedOut: true });
    await expect(events.text()).resolves.toBeDefined(); // the stream ended
    expect((await fetch(`${base}/api/status`, as(first))).status).toBe(401);
    expect((await fetch(`${base}/api/status`, as(second))).status).toBe(200);

    // Every browser (`switchboard ui --sign-out` does this with the control token).
    expect(await api('DELETE', UiRoutes.sessions)).toEqual({ status: 200, body: { ok: true, signedOut: 1 } });
    expect((await fetch(`${base}/api/status`, as(second))).status).toBe(401);
  });

  it('keeps one sessions file: a run/ui-sessions.json left by a cookie build is removed at start and signs nobody in', async () => {
    const signedIn = (await exchange(h.bridge.sessions.issueLoginLink().url)).body.session ?? '';
    await h.stop();
    // What a build with cookie sessions wrote (a digest of a session secret and its expiry).
    const stale = join(t.home.run, 'ui-sessions.json');
    const oldSecret = 'a'.repeat(43);
    const digest = createHash('sha256').update(oldSecret).digest('hex');
    writeFileSync(stale, JSON.stringify({ sessions: { [digest]: Date.now() + 60_000 } }));

    h = await startHeadless({ home: t.home, keychain, env: t.env, port: 0, editorSync: false });
    base = `http://127.0.0.1:${h.port}`;
    expect(existsSync(stale)).toBe(false);
    const status = (secret: string) =>
      fetch(`${base}/api/status`, { headers: { authorization: `Bearer ${secret}` } }).then((r) => r.status);
    expect(await status(oldSecret)).toBe(401);
    expect(await status(signedIn)).toBe(200);
    // Signing in writes tokens/browser-sessions.json only.
    await exchange(h.bridge.sessions.issueLoginLink().url);
    expect(existsSync(stale)).toBe(false);
  });

  it('a browser that signs in again with a new link gives up its old secret', async () => {
    const old = (await exchange(h.bridge.sessions.issueLoginLink().url)).body.session ?? '';
    const renewed = await exchange(h.bridge.sessions.issueLoginLink().url, {
      authorization: `Bearer ${old}`,
    });
    expect(renewed.res.status).toBe(200);
    expect((await fetch(`${base}/api/status`, { headers: { authorization: `Bearer ${old}` } })).status).toBe(
      401,
    );
    expect(
      (await fetch(`${base}/api/status`, { headers: { authorization: `Bearer ${renewed.body.session}` } }))
        .status,
    ).toBe(200);
  });
});

describe('the UI routes', () => {
  it('adds, reads, edits (keeping comments), disables and removes a server', async () => {
    const echo = fixtureServer('env-echo-server.mjs');
    const add = await api('POST', UiRoutes.servers, { name: 'echo', config: echo });
    expect(add).toMatchObject({ status: 200, body: { ok: true } });
    expect((await api('POST', UiRoutes.servers, { name: 'echo', config: echo })).status).toBe(400);
    const bad = await api('POST', UiRoutes.servers, { name: 'bad name', config: echo });
    expect(bad.body.issues).toEqual([
      { path: ['name'], message: expect.stringContaining('letters, digits') },
    ]);

    // A hand-written comment survives a UI edit.
    const text = readFileSync(t.home.serversFile, 'utf8').replace('"echo": {', '"echo": {\n      // mine');
    writeFileSync(t.home.serversFile, text);
    const view = await api('GET', UiRoutes.serverConfig('echo'));
    expect(view.body).toMatchObject({
      name: 'echo',
      config: echo,
      literalSecrets: [],
      file: t.home.serversFile,
    });
    const saved = await api('PUT', UiRoutes.serverConfig('echo'), { config: { ...echo, env: { A: '1' } } });
    expect(saved.status).toBe(200);
    const after = readFileSync(t.home.serversFile, 'utf8');
    expect(after).toContain('// mine');
    expect(JSON.parse(after.replace(/\/\/ mine\n/, ''))).toMatchObject({
      mcpServers: { echo: { env: { A: '1' } } },
    });

    const invalid = await api('PUT', UiRoutes.serverConfig('echo'), {
      config: { command: 'npx -y x', args: 'no' },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.issues).toEqual(
      expect.arrayContaining([
        { path: ['command'], message: expect.stringContaining('put arguments in "args"') },
        { path: ['args'], message: expect.stringContaining('must be a list of strings, one per argument') },
      ]),
    );

    expect((await api('POST', UiRoutes.serverEnabled('echo'), { enabled: false })).status).toBe(200);
    expect(h.core.status.report().servers[0]?.state).toBe('disabled');
    expect(readFileSync(t.home.serversFile, 'utf8')).toContain('"enabled": false');
    await api('POST', UiRoutes.serverEnabled('echo'), { enabled: true });
    expect(readFileSync(t.home.serversFile, 'utf8')).not.toContain('"enabled"');

    expect((await api('DELETE', UiRoutes.server('echo'))).status).toBe(200);
    expect(h.core.status.report().servers).toEqual([]);
    expect((await api('GET', UiRoutes.serverConfig('echo'))).status).toBe(404);
  });

  it('never sends a literal secret to the UI, keeps it on save, and moves it into the keychain', async () => {
    const literal = `ghp_${'Zx9Yw8Vu7T'.repeat(4)}`;
    t.writeServers({
      mcpServers: {
        gh: { ...fixtureServer('env-echo-server.mjs'), env: { GITHUB_TOKEN: literal, MODE: 'x' } },
      },
    });
    h.core.lifecycle.reload();
    const view = await api('GET', UiRoutes.serverConfig('gh'));
    expect(JSON.stringify(view.body)).not.toContain(literal);
    expect(view.body.literalSecrets).toEqual([
      { field: 'env', key: 'GITHUB_TOKEN', reason: 'looks like a GitHub token' },
    ]);
    const config = view.body.config as { env: Record<string, string> };
    expect(config.env.GITHUB_TOKEN).toBe(HIDDEN_SECRET);
    // Saving the entry back (another field changed) keeps the file's value, not the placeholder.
    await api('PUT', UiRoutes.serverConfig('gh'), {
      config: { ...config, env: { ...config.env, MODE: 'y' } },
    });
    expect(readFileSync(t.home.serversFile, 'utf8')).toContain(literal);

    const moved = await api('POST', UiRoutes.secretMove, { server: 'gh', key: 'GITHUB_TOKEN' });
    expect(moved.body).toEqual({ ok: true, name: 'gh-github_token' });
    expect(await keychain.get('gh-github_token')).toBe(literal);
    expect(readFileSync(t.home.serversFile, 'utf8')).not.toContain(literal);
    const secrets = await api('GET', UiRoutes.secrets);
    expect(secrets.body).toEqual({
      keychainError: null,
      secrets: [
        {
          name: 'gh-github_token',
          stored: true,
          usedBy: [{ server: 'gh', field: 'env', key: 'GITHUB_TOKEN' }],
        },
      ],
    });
  });

  it('adds a server typed with a literal secret as `add` does: keychain first, a reference in the file', async () => {
    const literal = `ghp_${'Qm4Rt6Yu8I'.repeat(4)}`;
    const key = `sk-live-${'4f8a9c2e7b1d'.repeat(2)}`;
    const echo = fixtureServer('env-echo-server.mjs');
    const add = await api('POST', UiRoutes.servers, {
      name: 'typed',
      config: { ...echo, args: [...echo.args, '--api-key', key], env: { GITHUB_TOKEN: literal, MODE: 'x' } },
    });
    expect(add.status).toBe(200);
    expect(add.body).toEqual({
      ok: true,
      added: [
        {
          name: 'typed',
          secrets: [
            { key: 'GITHUB_TOKEN', name: 'typed-github_token' },
            { key: 'args[2]', name: 'typed-api-key' },
          ],
        },
      ],
    });
    const file = readFileSync(t.home.serversFile, 'utf8');
    expect(file).not.toContain(literal);
    expect(file).not.toContain(key);
    expect(JSON.parse(file)).toMatchObject({
      mcpServers: {
        typed: {
          args: [...echo.args, '--api-key', '${secret:typed-api-key}'],
          env: { GITHUB_TOKEN: '${secret:typed-github_token}', MODE: 'x' },
        },
      },
    });
    expect(await keychain.get('typed-github_token')).toBe(literal);
    expect(await keychain.get('typed-api-key')).toBe(key);
    // It waits for approval like any new server, and nothing refuses it for a literal secret.
    const status = h.core.status.report().servers.find((s) => s.name === 'typed');
    expect(status?.state).toBe('pending-approval');
    expect(status?.lastError ?? null).toBeNull();
  });

  it('adds several pasted servers at once, all or none, with issues at each server', async () => {
    const echo = fixtureServer('env-echo-server.mjs');
    const literal = `ghp_${'Pl0Ok9Ij8U'.repeat(4)}`;
    await api('POST', UiRoutes.servers, { name: 'taken', config: echo });
    const before = readFileSync(t.home.serversFile, 'utf8');

    // One name taken and one entry invalid: nothing is written, nothing stored, every issue said.
    const refused = await api('POST', UiRoutes.servers, {
      servers: [
        { name: 'fresh', config: { ...echo, env: { GITHUB_TOKEN: literal } } },
        { name: 'taken', config: echo },
        { name: 'broken', config: { command: 'node', arg: ['x'] } },
      ],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.issues).toEqual([
      { path: ['taken'], message: expect.stringContaining('a server named "taken" already exists') },
      { path: ['broken', 'arg'], message: 'unknown field "arg" (did you mean "args"?)' },
    ]);
    expect(refused.body.error).toContain('nothing was added');
    expect(readFileSync(t.home.serversFile, 'utf8')).toBe(before);
    expect(await keychain.list()).toEqual([]);
    const twice = await api('POST', UiRoutes.servers, {
      servers: [
        { name: 'dup', config: echo },
        { name: 'dup', config: echo },
      ],
    });
    expect(twice.body.issues).toEqual([{ path: ['dup'], message: expect.stringContaining('given twice') }]);

    const added = await api('POST', UiRoutes.servers, {
      servers: [
        { name: 'fresh', config: { ...echo, env: { GITHUB_TOKEN: literal } } },
        { name: 'docs', config: { url: 'https://example.com/mcp' } },
      ],
    });
    expect(added.body).toEqual({
      ok: true,
      added: [
        { name: 'fresh', secrets: [{ key: 'GITHUB_TOKEN', name: 'fresh-github_token' }] },
        { name: 'docs', secrets: [] },
      ],
    });
    const file = readFileSync(t.home.serversFile, 'utf8');
    expect(file).not.toContain(literal);
    expect(Object.keys((JSON.parse(file) as { mcpServers: object }).mcpServers)).toEqual([
      'taken',
      'fresh',
      'docs',
    ]);
    const states = Object.fromEntries(h.core.status.report().servers.map((s) => [s.name, s.state]));
    expect(states).toMatchObject({ fresh: 'pending-approval', docs: 'pending-approval' });
  });

  it('hides a literal key in args even when a hand-typed number sits before it', async () => {
    const key = `sk-ant-api03-${'Qx7bP2mL9v'.repeat(3)}`;
    t.writeServers({ mcpServers: { brave: { command: 'npx', args: [8080, '--api-key', key] } } });
    h.core.lifecycle.reload();
    const view = await api('GET', UiRoutes.serverConfig('brave'));
    expect(JSON.stringify(view.body)).not.toContain(key);
    expect((view.body.config as { args: unknown[] }).args).toEqual([8080, '--api-key', HIDDEN_SECRET]);
  });

  it('stores a missing secret and restarts the server that needs it; values never come back', async () => {
    t.writeServers({
      mcpServers: { env: { ...fixtureServer('env-echo-server.mjs'), env: { CANARY: '${secret:canary}' } } },
    });
    h.core.lifecycle.reload();
    h.core.approvals.approve('env', h.core.approvals.review('env').fingerprint);
    await waitFor(
      () => h.core.status.report().servers.find((s) => s.name === 'env' && s.state === 'error'),
      15_000,
      'error',
    );
    const listed = await api('GET', UiRoutes.secrets);
    expect(listed.body.secrets).toEqual([
      { name: 'canary', stored: false, usedBy: [{ server: 'env', field: 'env', key: 'CANARY' }] },
    ]);

    const set = await api('PUT', UiRoutes.secret('canary'), { value: 'sekrit-value-123' });
    expect(set.body).toEqual({ ok: true, restarted: ['env'] });
    await waitFor(
      () => h.core.status.report().servers.find((s) => s.name === 'env' && s.state === 'running'),
      30_000,
      'running',
    );
    const again = await api('GET', UiRoutes.secrets);
    expect(JSON.stringify(again.body)).not.toContain('sekrit-value-123');
    expect((await api('DELETE', UiRoutes.secret('canary'))).status).toBe(200);
    expect((await api('DELETE', UiRoutes.secret('canary'))).status).toBe(404);
    expect((await api('PUT', UiRoutes.secret('bad name!'), { value: 'x' })).status).toBe(400);
  });

  it('describes pending approvals with the exact lines and the diff base, and lists tools', async () => {
    const echo = fixtureServer('env-echo-server.mjs');
    t.writeServers({ mcpServers: { echo } });
    h.core.lifecycle.reload();
    const runsIn = `runs in: ${join(t.home.data, 'echo')} (its own folder)`;
    const first = await api('GET', UiRoutes.approvals);
    expect(first.body.approvals).toEqual([
      expect.objectContaining({
        name: 'echo',
        state: 'pending-approval',
        source: 'hand-edit',
        lines: [`command: ${echo.command} ${echo.args.join(' ')}`, runsIn],
        envKeys: [],
        approved: null,
      }),
    ]);
    const [shown] = first.body.approvals as { fingerprint: string }[];
    await api('POST', '/api/servers/echo/approve', { fingerprint: shown?.fingerprint });
    // Running means initialize answered; the tool list follows a moment later.
    await waitFor(
      () => h.core.status.report().servers.find((s) => s.state === 'running' && s.toolCount !== null),
      30_000,
      'running with its tools listed',
    );
    const tools = await api('GET', UiRoutes.serverTools('echo'));
    expect(tools.body.running).toBe(true);
    expect(tools.body.tools).toEqual(
      expect.arrayContaining([
        {
          name: 'sleep',
          description: 'answers after ms milliseconds',
          params: [{ name: 'ms', required: true, type: 'number' }],
          // what its definition costs an editor each turn (JSON bytes / 4)
          tokens: expect.any(Number),
        },
      ]),
    );
    expect(tools.body.filter).toBeNull(); // no "tools" filter: every tool is offered

    await api('PUT', UiRoutes.serverConfig('echo'), { config: { ...echo, env: { DEBUG: '1' } } });
    const changed = await api('GET', UiRoutes.approvals);
    expect(changed.body.approvals).toEqual([
      expect.objectContaining({
        name: 'echo',
        source: 'ui',
        lines: [`command: ${echo.command} ${echo.args.join(' ')}`, runsIn, 'env DEBUG=1'],
        envKeys: ['DEBUG'],
        approved: expect.objectContaining({
          lines: [`command: ${echo.command} ${echo.args.join(' ')}`, runsIn],
        }),
      }),
    ]);
  });

  it('shows where a pending server came from when the core knows it (an install link, an import)', async () => {
    t.writeServers({ mcpServers: { linked: fixtureServer('env-echo-server.mjs') } });
    h.core.lifecycle.reload();
    h.core.servers.noteSource('linked', 'install-link'); // what the desktop shell does for switchboard://install
    const pending = await api('GET', UiRoutes.approvals);
    expect(pending.body.approvals).toEqual([
      expect.objectContaining({ name: 'linked', source: 'install-link' }),
    ]);
  });

  it('a grant keeps where the server came from and says so; a hand edit after it says hand edit', async () => {
    const echo = fixtureServer('env-echo-server.mjs');
    expect((await api('POST', UiRoutes.servers, { name: 'echo', config: echo })).status).toBe(200);
    const shown = async () => ((await api('GET', UiRoutes.approvals)).body.approvals as unknown[])[0];
    const { fingerprint } = (await shown()) as { fingerprint: string };
    expect((await api('POST', '/api/servers/echo/approve', { fingerprint })).status).toBe(200);

    // Edits in this window that need no approval (a tools filter, off and on) keep the source too.
    const filtered = await api('POST', UiRoutes.serverTools('echo'), { filter: { exclude: ['sleep'] } });
    expect(filtered.status).toBe(200);
    expect((await api('POST', UiRoutes.serverEnabled('echo'), { enabled: false })).status).toBe(200);
    expect((await api('POST', UiRoutes.serverEnabled('echo'), { enabled: true })).status).toBe(200);
    const granted = await api('POST', UiRoutes.serverGrant('echo'), { path: t.dir, access: 'read' });
    expect(granted.status).toBe(200);
    expect(await shown()).toEqual(
      expect.objectContaining({ name: 'echo', source: 'ui', edits: ['sandbox-grant'] }),
    );

    // The person's own edit of the file: this window did not write it, nor did Switchboard.
    t.writeServers({ mcpServers: { echo: { ...echo, env: { DEBUG: '1' } } } });
    h.core.lifecycle.reload();
    expect(await shown()).toEqual(expect.objectContaining({ name: 'echo', source: 'hand-edit', edits: [] }));
  });

  it('reads and saves settings; editors say when sync is not running', async () => {
    const settings = await api('GET', UiRoutes.settings);
    expect(settings.body).toMatchObject({
      port: h.port,
      configuredPort: null,
      home: t.home.root,
      startAtLogin: null,
    });
    expect((await api('PUT', UiRoutes.settings, { port: 70000 })).status).toBe(400);
    expect((await api('PUT', UiRoutes.settings, { port: 43210 })).body).toMatchObject({
      configuredPort: 43210,
    });
    expect(h.core.state.bridgePort()).toBe(43210);
    expect((await api('GET', UiRoutes.editors)).body).toEqual({ available: false, editors: [] });
  });

  it('reads and saves the idle timeout of servers that set none, and goes back to the default', async () => {
    expect((await api('GET', UiRoutes.settings)).body).toMatchObject({
      idleTimeout: 600,
      configuredIdleTimeout: null,
      defaultIdleTimeout: 600,
    });
    const bad = await api('PUT', UiRoutes.settings, { idleTimeout: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('the idle timeout is 0 (always running) or more seconds');
    expect((await api('PUT', UiRoutes.settings, { idleTimeout: 0 })).body).toMatchObject({
      idleTimeout: 0,
      configuredIdleTimeout: 0,
    });
    expect(h.core.lifecycle.idleTimeoutDefault()).toBe(0);
    expect(h.core.state.settings()).toEqual({ idleTimeout: 0 });
    expect((await api('PUT', UiRoutes.settings, { idleTimeout: null })).body).toMatchObject({
      idleTimeout: 600,
      configuredIdleTimeout: null,
    });
    expect(h.core.state.settings()).toEqual({});
  });
});

describe('editors in the UI', () => {
  it('shows the diff a sync would make without the bridge token or the person’s own secrets', async () => {
    // This test's own `serve`, with editor sync on, and Cursor installed in the temp HOME.
    await h.stop();
    const cursorDir = join(t.dir, 'user', '.cursor');
    mkdirSync(cursorDir, { recursive: true });
    writeFileSync(join(cursorDir, 'mcp.json'), '{ "mcpServers": {} }\n');
    mkdirSync(join(t.dir, 'user', '.gemini'), { recursive: true });
    h = await startHeadless({ home: t.home, keychain, env: t.env, port: 0, editorSync: { log: () => {} } });
    base = `http://127.0.0.1:${h.port}`;
    control = h.tokens.controlToken();
    await api('POST', UiRoutes.servers, { name: 'echo', config: fixtureServer('env-echo-server.mjs') });
    await api('POST', '/api/servers/echo/approve', {
      fingerprint: h.core.approvals.review('echo').fingerprint,
    });
    const cursorOf = async () =>
      (
        (await api('GET', UiRoutes.editors)).body.editors as { id: string; state: string; diff: string }[]
      ).find((e) => e.id === 'cursor');
    await waitFor(async () => (await cursorOf())?.state === 'in-sync', 15_000, 'cursor synced');
    // Gemini CLI's card says what it needs before its servers connect; Cursor's says nothing extra.
    const views = (await api('GET', UiRoutes.editors)).body.editors as {
      id: string;
      notice: string | null;
    }[];
    expect(views.find((e) => e.id === 'gemini-cli')?.notice).toMatch(
      /only in folders you trust.*\/permissions/,
    );
    expect((await cursorOf()) as unknown).toMatchObject({ notice: null });
    const token = readFileSync(join(t.home.tokens, 'editors', 'cursor'), 'utf8').trim();
    expect(readFileSync(join(cursorDir, 'mcp.json'), 'utf8')).toContain(token);

    // Revoked: the file still carries the old token, which the diff replaces.
    expect((await api('DELETE', '/api/tokens/cursor')).status).toBe(200);
    const cursor = await waitFor(async () => {
      const view = await cursorOf();
      return view?.state === 'drift' ? view : undefined;
    });
    expect(cursor.diff).toContain('"Authorization": "Bearer <cursor token>"');
    expect(cursor.diff).toContain('"Authorization": "•••••••• (hidden)"');
    expect(cursor.diff).not.toContain(token);
  });

  it('hides literal secrets in diff context lines, keeping references and placeholders', () => {
    const literal = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    const diff = [
      '--- mcp.json current',
      '+++ mcp.json after sync',
      '@@ -1,6 +1,9 @@',
      '   "mine": { "command": "gh-mcp", "args": ["--token", "' + literal + '"],',
      '     "env": { "API_KEY": "hunter2hunter2", "REGION": "eu-west-1" } },',
      '+  "echo": { "url": "http://127.0.0.1:43117/mcp/echo", "headers": { "Authorization": "Bearer <cursor token>" } },',
      '   "ref": { "env": { "TOKEN": "${secret:github}" } }',
    ].join('\n');
    const shown = withoutSecrets(diff);
    expect(shown).not.toContain(literal);
    expect(shown).not.toContain('hunter2hunter2');
    expect(shown).toContain('"--token", "•••••••• (hidden)"');
    expect(shown).toContain('"API_KEY": "•••••••• (hidden)"');
    expect(shown).toContain('"REGION": "eu-west-1"');
    expect(shown).toContain('"Authorization": "Bearer <cursor token>"');
    expect(shown).toContain('"TOKEN": "${secret:github}"');
    expect(shown).toContain('"url": "http://127.0.0.1:43117/mcp/echo"');
  });
});

describe('the built UI at /', () => {
  it('is public, with security headers; paths cannot leave the UI folder', async () => {
    const res = await fetch(`${base}/`);
    // 200 once `npm run build:renderer` ran, 503 with instructions before.
    expect([200, 503]).toContain(res.status);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-store');
    for (const path of [
      '/../package.json',
      '/%2e%2e/package.json',
      '/assets/..%2f..%2fpackage.json',
      '/%00',
    ]) {
      expect((await fetch(base + path)).status, path).toBe(404);
    }
    expect((await fetch(`${base}/`, { method: 'POST' })).status).toBe(405);
  });
});
