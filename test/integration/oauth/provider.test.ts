import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { discoverOAuthServerInfo } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInOpener } from '../../../electron/core/oauth/open-browser.ts';
import { SwitchboardOAuthProvider } from '../../../electron/core/oauth/provider.ts';
import { SignInRequired } from '../../../electron/core/oauth/sign-in-required.ts';
import { connect, retrying, SignInSession } from '../../../electron/core/oauth/sign-in.ts';
import { SignInStore } from '../../../electron/core/oauth/sign-in-store.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { startOAuthFixture, type OAuthFixture } from '../../helpers/oauth-server.ts';

/**
 * Switchboard's OAuth provider over the SDK's auth client, against a real authorization server (the
 * SDK's auth router in test/fixtures/oauth-server.mjs): early refresh, a revoked refresh token, the
 * background connection that never starts a sign-in, and scope step-up.
 */

const TTL = 600;
let fixture: OAuthFixture;
let scopeChallenge: Server;
let challengeUrl: string;

beforeAll(async () => {
  fixture = await startOAuthFixture({ tokenTtlSeconds: TTL, approveAtOnce: true });
  // Answers every request as a resource server whose call needs more scope.
  scopeChallenge = createServer((_req, res) =>
    res
      .writeHead(403, {
        'www-authenticate': 'Bearer error="insufficient_scope", scope="mcp:tools mcp:admin"',
      })
      .end(),
  );
  await new Promise<void>((resolve) => scopeChallenge.listen(0, '127.0.0.1', resolve));
  challengeUrl = `http://127.0.0.1:${(scopeChallenge.address() as AddressInfo).port}/mcp`;
});

afterAll(() => {
  fixture?.stop();
  scopeChallenge?.close();
});

/** Signs in to the fixture for real (its page approves at once) and returns the store holding it. */
async function signedIn(clock: ManualClock): Promise<SignInStore> {
  const store = new SignInStore(new MemoryKeychain());
  const open = signInOpener({ SWITCHBOARD_SIGN_IN: 'fetch' });
  const session = await SignInSession.start({
    server: 'notes',
    serverUrl: fixture.url,
    store,
    clock,
    open: (url) => void open(url),
  });
  const connection = await connect(
    session,
    { url: fixture.url, headers: {}, protocol: 'auto' },
    {
      name: 'test',
      version: '1',
    },
  );
  await retrying(session, connection, () => connection.client.listTools());
  await connection.client.close();
  await session.close();
  return store;
}

function background(store: SignInStore, clock: ManualClock, url = fixture.url): SwitchboardOAuthProvider {
  return new SwitchboardOAuthProvider({ server: 'notes', serverUrl: url, store, clock });
}

describe("Switchboard's OAuth provider", () => {
  it('refreshes the access token shortly before it expires, not only after a 401', async () => {
    const clock = new ManualClock(Date.now());
    const store = await signedIn(clock);
    const provider = background(store, clock);
    const told: string[] = [];
    provider.onSecrets((values) => told.push(...values));
    provider.saveDiscoveryState(await discoverOAuthServerInfo(fixture.url));
    const first = await provider.tokens();
    expect(first?.access_token).toMatch(/^sbat_/);
    expect(await provider.secrets()).toEqual([first?.access_token, first?.refresh_token]);
    const refreshes = (await fixture.state()).counts.refreshes;

    clock.advance((TTL - 120) * 1000); // two minutes left: not yet
    expect((await provider.tokens())?.access_token).toBe(first?.access_token);
    clock.advance(90_000); // thirty seconds left: now
    const renewed = await provider.tokens();
    expect(renewed?.access_token).toMatch(/^sbat_/);
    expect(renewed?.access_token).not.toBe(first?.access_token);
    expect((await fixture.state()).counts.refreshes).toBe(refreshes + 1);
    // Logs learn each new token as it is stored, to redact it.
    expect(told).toEqual([renewed?.access_token, renewed?.refresh_token]);
    // Kept for the next start, with the new expiry.
    const record = await store.read('notes', fixture.url);
    expect(record.tokens?.access_token).toBe(renewed?.access_token);
    expect(record.expiresAt).toBe(clock.now() + TTL * 1000);
  });

  it('drops tokens whose refresh token was revoked, keeping the client for the next sign-in', async () => {
    const clock = new ManualClock(Date.now());
    const store = await signedIn(clock);
    const provider = background(store, clock);
    provider.saveDiscoveryState(await discoverOAuthServerInfo(fixture.url));
    await fixture.revokeRefreshTokens();
    clock.advance(TTL * 1000);
    expect(await provider.tokens()).toBeUndefined();
    const record = await store.read('notes', fixture.url);
    expect(record.tokens).toBeUndefined();
    expect(record.client?.client_id).toBeTruthy();
  });

  it('never starts a sign-in in the background: it says one is needed, where a server offers OAuth', async () => {
    const clock = new ManualClock(Date.now());
    const provider = background(new SignInStore(new MemoryKeychain()), clock);
    const needs: SignInRequired[] = [];
    provider.onSignInNeeded((need) => needs.push(need));
    // A 401 that led to no OAuth metadata at all is not a sign-in: it wants other credentials.
    provider.saveDiscoveryState({ authorizationServerUrl: 'http://127.0.0.1:9/' });
    await expect(provider.clientInformation()).rejects.toThrow(/offers no OAuth sign-in/);
    expect(needs).toEqual([]);

    provider.saveDiscoveryState(await discoverOAuthServerInfo(fixture.url));
    const error = await provider.clientInformation().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(SignInRequired);
    expect((error as SignInRequired).reason).toBe('signed-out');
    expect((error as SignInRequired).message).toBe(
      `it needs you to sign in at ${new URL(fixture.origin).host}: sign in to it in Switchboard`,
    );
    expect(needs).toHaveLength(1);
    await expect(provider.redirectToAuthorization(new URL(`${fixture.origin}/authorize`))).rejects.toThrow(
      SignInRequired,
    );
  });

  it('answers a scope challenge with a new authorization for that scope, never a refresh', async () => {
    const clock = new ManualClock(Date.now());
    const store = await signedIn(clock);
    await store.write('notes', { ...(await store.read('notes', fixture.url)), url: challengeUrl });
    const provider = background(store, clock, challengeUrl);
    expect((await provider.tokens())?.refresh_token).toMatch(/^sbrt_/);

    const response = await provider.watch(fetch)(challengeUrl, { method: 'POST' });
    expect(response.status).toBe(403);
    // What the SDK's auth() reads next: no refresh token, so it asks for an authorization.
    expect((await provider.tokens())?.refresh_token).toBeUndefined();
    const needed = await provider
      .redirectToAuthorization(new URL(`${fixture.origin}/authorize?scope=mcp%3Atools+mcp%3Aadmin`))
      .catch((err: unknown) => err);
    expect(needed).toBeInstanceOf(SignInRequired);
    expect((needed as SignInRequired).reason).toBe('more-scope');
    expect((needed as SignInRequired).message).toContain('scope "mcp:tools mcp:admin"');
    expect((await store.read('notes', challengeUrl)).wantedScope).toBe('mcp:tools mcp:admin');
    // The connection goes on with its tokens, refresh token and all.
    expect((await provider.tokens())?.refresh_token).toMatch(/^sbrt_/);

    // The next sign-in asks for what was granted and what was wanted since.
    const sent: URL[] = [];
    const interactive = new SwitchboardOAuthProvider({
      server: 'notes',
      serverUrl: challengeUrl,
      store,
      clock,
      interactive: { redirectUrl: 'http://127.0.0.1:1/callback', authorize: (url) => sent.push(url) },
    });
    await interactive.redirectToAuthorization(new URL(`${fixture.origin}/authorize?scope=mcp%3Aread`));
    expect(sent[0]?.searchParams.get('scope')).toBe('mcp:read mcp:tools mcp:admin');
  });
});
