import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SwitchboardOAuthProvider } from '../../../electron/core/oauth/provider.ts';
import { SignInRequired } from '../../../electron/core/oauth/sign-in-required.ts';
import { SIGN_IN_KEYCHAIN_SERVICE, SignInStore } from '../../../electron/core/oauth/sign-in-store.ts';
import { MemoryKeychain, OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { ApiRoutes } from '../../../shared/api.ts';
import { runCli } from '../../helpers/cli.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

/**
 * Hostile authorization servers, as real HTTP servers on 127.0.0.1, against the SDK's auth client as
 * Switchboard drives it (issue 21 item 4): a sign-in page that is not a web page, a resource whose
 * metadata switches to another authorization server, and a 401 that names none. Nothing may be
 * opened, returned or printed but https (or http on this computer), nothing registered behind the
 * person's back, and no stored client replaced.
 */

/** One HTTP server: its address, what it was asked, and a handler the test can swap. */
class Peer {
  readonly requests: string[] = [];
  handler: (req: IncomingMessage, res: ServerResponse, url: URL) => void = (_req, res) =>
    void res.writeHead(404).end();
  #server: Server | undefined;
  origin = '';

  async start(): Promise<this> {
    this.#server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', this.origin);
      this.requests.push(`${req.method} ${url.pathname}`);
      req.resume();
      req.on('end', () => this.handler(req, res, url));
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  /** POST …/register requests seen (dynamic client registration). */
  get registrations(): number {
    return this.requests.filter((r) => r.startsWith('POST ') && r.endsWith('/register')).length;
  }

  close(): void {
    this.#server?.closeAllConnections();
    this.#server?.close();
  }
}

function json(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** An authorization server whose metadata names `authorizationEndpoint` (anything it likes). */
function authorizationServer(peer: Peer, authorizationEndpoint: () => string): void {
  peer.handler = (req, res, url) => {
    if (url.pathname === '/.well-known/oauth-authorization-server')
      return json(res, {
        issuer: peer.origin,
        authorization_endpoint: authorizationEndpoint(),
        token_endpoint: `${peer.origin}/token`,
        registration_endpoint: `${peer.origin}/register`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
      });
    if (url.pathname === '/register' && req.method === 'POST')
      return json(
        res,
        { client_id: `registered-at-${peer.origin}`, redirect_uris: ['http://127.0.0.1/callback'] },
        201,
      );
    res.writeHead(404).end();
  };
}

/**
 * An MCP resource that answers every request 401. With `authorizationServer()` it names that one in
 * its protected-resource metadata; without, it names none at all (no metadata anywhere).
 */
function protectedResource(peer: Peer, authorizationServer: () => string | undefined): void {
  peer.handler = (_req, res, url) => {
    const as = authorizationServer();
    const metadata = `${peer.origin}/.well-known/oauth-protected-resource/mcp`;
    if (url.pathname === '/mcp')
      return void res
        .writeHead(401, {
          'www-authenticate': as ? `Bearer resource_metadata="${metadata}"` : 'Bearer realm="mcp"',
        })
        .end();
    if (as && url.pathname === '/.well-known/oauth-protected-resource/mcp')
      return json(res, { resource: `${peer.origin}/mcp`, authorization_servers: [as] });
    res.writeHead(404).end();
  };
}

const HOSTILE_PAGES = [
  'file:///etc/passwd',
  'javascript:alert(document.domain)//',
  'http://evil.example/authorize',
  'smb://evil.example/share',
];

let t: TempHome;
let headless: Headless;
let resource: Peer;
let as1: Peer;
let as2: Peer;
let page = HOSTILE_PAGES[0] ?? '';
let current: string | undefined;
const suffix = Math.random().toString(36).slice(2, 8);
const oauthKeychain = new OsKeychain({ service: SIGN_IN_KEYCHAIN_SERVICE });

beforeAll(async () => {
  resource = await new Peer().start();
  as1 = await new Peer().start();
  as2 = await new Peer().start();
  authorizationServer(as1, () => page);
  authorizationServer(as2, () => `${as2.origin}/authorize`);
  protectedResource(resource, () => current);
  t = tempHome();
  headless = await startHeadless({
    home: t.home,
    keychain: new MemoryKeychain(),
    env: t.env,
    port: 0,
    editorSync: false,
  });
});

afterAll(async () => {
  await headless?.stop();
  t?.cleanup();
  for (const peer of [resource, as1, as2]) peer?.close();
  for (const name of [`page-${suffix}`, `moved-${suffix}`, `none-${suffix}`])
    await new SignInStore(oauthKeychain).forget(name).catch(() => false);
});

async function signInThroughApi(name: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${headless.port}${ApiRoutes.signIn(name)}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${headless.tokens.controlToken()}`,
      'content-type': 'application/json',
    },
    body: '{}',
  });
  return { status: res.status, text: await res.text() };
}

function addRemote(name: string): void {
  const servers = { mcpServers: { [name]: { url: `${resource.origin}/mcp` } } };
  t.writeServers(servers);
  headless.core.lifecycle.reload();
}

describe('a hostile authorization server', () => {
  it.each(HOSTILE_PAGES)(
    'naming %s as its sign-in page: the API never answers it, `try` never prints it',
    async (hostile) => {
      page = hostile;
      current = as1.origin;
      const name = `page-${suffix}`;
      addRemote(name);
      if (headless.core.status.report().servers.find((s) => s.name === name)?.state === 'pending-approval')
        headless.core.approvals.approve(name, headless.core.approvals.review(name).fingerprint);
      const answer = await signInThroughApi(name);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.text).not.toContain('"browser"');
      expect(answer.text).not.toContain(hostile.slice(0, 12));
      // (the SDK itself refuses javascript: in metadata; Switchboard refuses everything but https pages)
      const sdkRefuses = hostile.startsWith('javascript:');
      expect((JSON.parse(answer.text) as { error: string }).error).toContain(
        sdkRefuses ? 'javascript' : 'will not open',
      );

      const tried = await runCli(['try', `${resource.origin}/mcp`], t.env);
      expect(tried.code).toBe(1);
      expect(tried.stdout + tried.stderr).not.toContain(hostile.slice(0, 12));
      if (!sdkRefuses) expect(tried.stderr).toContain('will not open');
      // and no client was registered for a page that is never opened
      expect(as1.registrations).toBe(0);
    },
  );

  it('whose resource metadata now names another authorization server: the connection waits for the person, saying so; nothing is registered there; the stored client stays', async () => {
    current = as2.origin;
    const name = `moved-${suffix}`;
    const store = new SignInStore(new MemoryKeychain());
    const url = `${resource.origin}/mcp`;
    const kept = {
      client_id: 'kept-client',
      redirect_uris: ['http://127.0.0.1:1/callback'],
      issuer: as1.origin,
    };
    await store.write(name, { url, client: kept, tokens: { access_token: 'old', token_type: 'Bearer' } });

    // The SDK's own client over the provider a server's connection uses, in the background.
    const provider = new SwitchboardOAuthProvider({
      server: name,
      serverUrl: url,
      store,
      clock: new ManualClock(),
    });
    const told: SignInRequired[] = [];
    provider.onSignInNeeded((need) => told.push(need));
    const client = new Client({ name: 'test', version: '1' });
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider })),
    ).rejects.toBeInstanceOf(SignInRequired);
    expect(told.map((n) => n.reason)).toEqual(['new-authorization-server']);
    expect(told[0]?.message).toContain(new URL(as2.origin).host);
    expect(as2.registrations).toBe(0);
    expect((await store.read(name, url)).client).toEqual(kept);

    // The same through a running Switchboard: the server waits in needs-sign-in with the reason.
    await new SignInStore(oauthKeychain).write(name, {
      url,
      client: kept,
      tokens: { access_token: 'old', token_type: 'Bearer' },
    });
    addRemote(name);
    headless.core.approvals.approve(name, headless.core.approvals.review(name).fingerprint);
    const status = await waitFor(
      () => headless.core.status.report().servers.find((s) => s.name === name && s.state === 'needs-sign-in'),
      30_000,
      `${name} needs-sign-in`,
    );
    expect(status.lastError).toContain('another authorization server');
    expect(status.lastError).toContain(new URL(as2.origin).host);
    expect(as2.registrations).toBe(0);
    expect((await new SignInStore(oauthKeychain).read(name, url)).client).toEqual(kept);
  });

  it('a 401 that names no authorization server: no registration anywhere, from the background, a sign-in or `try`', async () => {
    current = undefined;
    const name = `none-${suffix}`;
    addRemote(name);
    headless.core.approvals.approve(name, headless.core.approvals.review(name).fingerprint);
    await waitFor(
      () =>
        headless.core.status
          .report()
          .servers.find((s) => s.name === name && s.state !== 'starting' && s.state !== 'pending-approval'),
      30_000,
      `${name} settled`,
    );
    const answer = await signInThroughApi(name);
    expect(answer.status, answer.text).toBe(400);
    expect(answer.text).toContain('offers no OAuth sign-in (it names no authorization server)');
    const tried = await runCli(['try', `${resource.origin}/mcp`], t.env);
    expect(tried.code).toBe(1);
    for (const peer of [resource, as1, as2]) expect(peer.registrations, peer.origin).toBe(0);
  });
});
