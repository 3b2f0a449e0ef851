import { randomBytes } from 'node:crypto';
import {
  extractWWWAuthenticateParams,
  refreshAuthorization,
  selectResourceURL,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { InvalidGrantError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { displayText } from '../../../shared/display-text.ts';
import { authorizationUrlProblem } from '../../../shared/sign-in.ts';
import type { Clock } from '../clock.ts';
import { describeError, UserError } from '../errors.ts';
import { SignInRequired } from './sign-in-required.ts';
import type { SignInRecord, SignInStore } from './sign-in-store.ts';

/** How long a keychain that could not be read counts as unreadable before it is asked again. */
const KEYCHAIN_RETRY_MS = 60_000;

/** Where the browser comes back to; any port (RFC 8252 §7.3), so this stands for them all. */
export const LOOPBACK_REDIRECT = 'http://127.0.0.1/callback';

/** A sign-in the person is doing now: the browser goes to `authorize(url)` and comes back to redirectUrl. */
export interface Interactive {
  redirectUrl: string;
  /** a new authorization URL to send the person to; its `state` is what the callback must bring back */
  authorize(url: URL): void;
}

export interface OAuthProviderOptions {
  /** the server's name in servers.json (the key of its record in the store) */
  server: string;
  serverUrl: string;
  store: Pick<SignInStore, 'read' | 'update'>;
  clock: Clock;
  /** Switchboard's Client ID Metadata Document URL (the setting, or given per call) */
  clientMetadataUrl?: string | undefined;
  /** an OAuth client the person registered with the authorization server by hand */
  client?: { clientId: string; clientSecret?: string | undefined } | undefined;
  /** set while the person signs in; without it the provider never starts an authorization */
  interactive?: Interactive | undefined;
  /** a sign-in that asks the person again: tokens held from before are not used, only replaced */
  fresh?: boolean | undefined;
  /** for the early refresh (the SDK's own requests use the transport's fetch) */
  fetch?: FetchLike | undefined;
}

/**
 * Switchboard's OAuthClientProvider for one remote server: the MCP SDK's auth client
 * (`@modelcontextprotocol/sdk/client/auth.js`: discovery, registration, PKCE, token exchange, refresh)
 * does the protocol; this keeps what it produces in the keychain (SignInStore) and decides what
 * happens when a person is needed.
 *
 * - Without `interactive` (a server's connection, in the background) it never starts an
 *   authorization: where the SDK would send the person to the browser it throws SignInRequired, and
 *   tells its listeners, so the server waits in `needs-sign-in` instead of retrying.
 * - With `interactive` (a sign-in the person started) authorization URLs go to `interactive.authorize`.
 *
 * Beyond the SDK: tokens are refreshed shortly before they expire (not only after a 401), and a scope
 * challenge (403 insufficient_scope) leads to a new authorization instead of a refresh, which cannot
 * add scopes (see `watch`).
 */
export class SwitchboardOAuthProvider implements OAuthClientProvider {
  readonly #server: string;
  readonly #serverUrl: string;
  readonly #store: OAuthProviderOptions['store'];
  readonly #clock: Clock;
  readonly #clientMetadataUrl: string | undefined;
  readonly #client: OAuthProviderOptions['client'];
  readonly #interactive: Interactive | undefined;
  readonly #fetch: FetchLike | undefined;
  /** true until a `fresh` sign-in has tokens of its own */
  #ignoreStored: boolean;
  readonly #listeners = new Set<(need: SignInRequired) => void>();
  readonly #secretListeners = new Set<(values: string[]) => void>();
  #verifier: string | undefined;
  #discovery: OAuthDiscoveryState | undefined;
  /** the scope of a 403 insufficient_scope seen just now, until the authorization that follows it */
  #stepUp: string | undefined;
  #refreshing: Promise<OAuthTokens | undefined> | undefined;
  /** in the background: why the keychain could not be read, and until when that answer stands */
  #keychainProblem: { message: string; until: number } | undefined;

  constructor(options: OAuthProviderOptions) {
    this.#server = options.server;
    this.#serverUrl = options.serverUrl;
    this.#store = options.store;
    this.#clock = options.clock;
    this.#clientMetadataUrl = options.clientMetadataUrl;
    this.#client = options.client;
    this.#interactive = options.interactive;
    this.#fetch = options.fetch;
    this.#ignoreStored = options.fresh === true;
  }

  get server(): string {
    return this.#server;
  }

  get serverUrl(): string {
    return this.#serverUrl;
  }

  /** Called when a connection cannot go on until the person signs in; returns how to stop listening. */
  onSignInNeeded(listener: (need: SignInRequired) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Called with every token and client secret this provider stores, so logs can redact them. */
  onSecrets(listener: (values: string[]) => void): () => void {
    this.#secretListeners.add(listener);
    return () => this.#secretListeners.delete(listener);
  }

  /** The tokens and client secret held now (to redact from logs). */
  async secrets(): Promise<string[]> {
    return secretsOf(await this.#record());
  }

  /**
   * Wraps a transport's fetch to notice scope challenges. The SDK answers a 403 insufficient_scope
   * by calling auth() with the new scope, which refreshes when there is a refresh token — and a
   * refresh never adds scopes. While such a challenge is open, tokens() hides the refresh token so
   * the SDK asks for an authorization with the scope instead.
   */
  watch(base: FetchLike): FetchLike {
    return async (url, init) => {
      const response = await base(url, init);
      if (response.status === 403) {
        const { error, scope } = extractWWWAuthenticateParams(response);
        if (error === 'insufficient_scope') this.#stepUp = scope ?? '';
      }
      return response;
    };
  }

  // ─── OAuthClientProvider ──────────────────────────────────────────────────────────────────────

  get redirectUrl(): string {
    if (this.#interactive) return this.#interactive.redirectUrl;
    // Never used in the background (no authorization starts there), but the SDK treats a missing
    // one as a non-interactive grant.
    return LOOPBACK_REDIRECT;
  }

  get clientMetadataUrl(): string | undefined {
    return this.#clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Switchboard',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A desktop app cannot keep a secret: a public client, protected by PKCE.
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return randomBytes(24).toString('base64url');
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    if (this.#client) {
      const stored = (await this.#record()).client;
      // Once used, the SDK hands it back with the issuer it was used with: keep that one.
      if (stored?.client_id === this.#client.clientId && stored.client_secret === this.#client.clientSecret)
        return stored;
      return {
        client_id: this.#client.clientId,
        ...(this.#client.clientSecret ? { client_secret: this.#client.clientSecret } : {}),
      };
    }
    const stored = (await this.#record()).client;
    // A 401 that led to no OAuth metadata at all names no authorization server: the SDK would then
    // guess endpoints at the server's own address and register there. It wants other credentials.
    const namesNoAuthorizationServer =
      !this.#discovery?.authorizationServerMetadata && !this.#discovery?.resourceMetadata;
    if (!this.#interactive) {
      if (stored) {
        // The server now names another authorization server than the one this client is registered
        // with: the SDK would register a new client there and replace this one. Only the person,
        // signing in, decides to trust the new address.
        const moved = this.#movedFrom(stored);
        if (moved)
          throw this.#need(new SignInRequired('new-authorization-server', { ...this.#issuer(), was: moved }));
        return stored;
      }
      if (namesNoAuthorizationServer) throw new Error(NO_SIGN_IN_OFFERED);
      // No client yet: registering is part of a sign-in, which only the person starts.
      throw this.#signedOut();
    }
    if (!stored && namesNoAuthorizationServer) throw new NoSignInOffered();
    // Where the person would be sent is known now: nothing is registered for a page never opened.
    const page = this.#discovery?.authorizationServerMetadata?.authorization_endpoint;
    if (page) this.#checkSignInPage(page);
    if (!stored) return undefined;
    // A client registered for another loopback port, or another metadata document, is not reused.
    if ('redirect_uris' in stored && !stored.redirect_uris.includes(this.redirectUrl)) return undefined;
    if (isHttpsUrl(stored.client_id) && stored.client_id !== this.#clientMetadataUrl) return undefined;
    return stored;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    if (!this.#interactive) {
      // In the background only the client already held is kept (the SDK stamps it with its issuer);
      // a new one is never registered or stored without the person.
      const stored = (await this.#record()).client;
      if (stored?.client_id !== client.client_id)
        throw this.#need(new SignInRequired('signed-out', this.#issuer()));
    }
    this.#told(secretsOf({ url: this.#serverUrl, client }));
    await this.#store.update(this.#server, this.#serverUrl, (record) => ({ ...record, client }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    if (this.#ignoreStored) return undefined;
    const record = await this.#record();
    let tokens = record.tokens;
    if (tokens?.refresh_token && this.#refreshDue(record)) tokens = await this.#refreshEarly(tokens);
    if (tokens && this.#stepUp !== undefined) {
      const withoutRefresh = { ...tokens };
      delete withoutRefresh.refresh_token;
      return withoutRefresh;
    }
    return tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.#ignoreStored = false;
    this.#told(secretsOf({ url: this.#serverUrl, tokens }));
    const now = this.#clock.now();
    await this.#store.update(this.#server, this.#serverUrl, (record) => ({
      ...record,
      tokens,
      expiresAt: tokens.expires_in ? now + tokens.expires_in * 1000 : undefined,
      wantedScope:
        record.wantedScope && !covers(tokens.scope, record.wantedScope) ? record.wantedScope : undefined,
    }));
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    // Whatever the metadata says, the person is only ever sent to a web page: https, or http on
    // this computer (a file:, javascript: or custom-scheme "page" is refused, never opened or shown).
    this.#checkSignInPage(url.href);
    const stepUp = this.#stepUp;
    this.#stepUp = undefined;
    if (!this.#interactive) {
      if (stepUp !== undefined) {
        // That call fails (the connection goes on); the next sign-in asks for this scope too.
        const scope = stepUp || url.searchParams.get('scope') || undefined;
        if (scope)
          await this.#store.update(this.#server, this.#serverUrl, (record) => ({
            ...record,
            wantedScope: union(record.wantedScope, scope),
          }));
        throw this.#need(
          new SignInRequired('more-scope', { ...(scope ? { scope } : {}), ...this.#issuer() }),
        );
      }
      throw this.#signedOut();
    }
    // Ask again for what was granted before and what a call asked for since, with what is needed now.
    const record = await this.#record();
    const scope = union(
      union(url.searchParams.get('scope') ?? undefined, record.wantedScope),
      record.tokens?.scope,
    );
    if (scope) url.searchParams.set('scope', scope);
    this.#interactive.authorize(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error('no sign-in is in progress (no PKCE verifier)');
    return this.#verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'all') this.#verifier = undefined;
    if (scope === 'discovery' || scope === 'all') this.#discovery = undefined;
    if (scope === 'client' || scope === 'tokens' || scope === 'all') {
      await this.#store.update(this.#server, this.#serverUrl, (record) => ({
        ...record,
        ...(scope !== 'tokens' ? { client: undefined } : {}),
        ...(scope !== 'client' ? { tokens: undefined, expiresAt: undefined } : {}),
      }));
    }
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  // ─── internals ────────────────────────────────────────────────────────────────────────────────

  /**
   * The server's sign-in as kept in the keychain. In the background a keychain that cannot be read
   * (none running, locked, no Secret Service) reads as "not signed in": a server that needs no sign-in
   * must not need the keychain. Only when the server then asks for a sign-in does the person hear
   * about the keychain (see #signedOut). The answer stands for a minute, so a locked keychain is not
   * asked again on every request.
   */
  async #record(): Promise<SignInRecord> {
    if (this.#interactive) return this.#store.read(this.#server, this.#serverUrl);
    const now = this.#clock.now();
    if (this.#keychainProblem && now < this.#keychainProblem.until) return { url: this.#serverUrl };
    try {
      const record = await this.#store.read(this.#server, this.#serverUrl);
      this.#keychainProblem = undefined;
      return record;
    } catch (err) {
      this.#keychainProblem = { message: describeError(err), until: now + KEYCHAIN_RETRY_MS };
      return { url: this.#serverUrl };
    }
  }

  /** The person must sign in; when the keychain could not be read, they are told that too. */
  #signedOut(): SignInRequired {
    return this.#need(
      new SignInRequired('signed-out', {
        ...this.#issuer(),
        keychainProblem: this.#keychainProblem?.message,
      }),
    );
  }

  /** The authorization server `stored` was registered with, if discovery now names another one. */
  #movedFrom(stored: OAuthClientInformationMixed): string | undefined {
    const now = this.#discovery?.authorizationServerUrl;
    const was = (stored as { issuer?: unknown }).issuer;
    if (now === undefined || typeof was !== 'string') return undefined;
    return sameUrl(was, String(now)) ? undefined : was;
  }

  /** Throws unless `page` is a sign-in page Switchboard opens (https, or http on this computer). */
  #checkSignInPage(page: string): void {
    const problem = authorizationUrlProblem(page);
    if (problem)
      throw new UserError(
        `its authorization server${this.#issuerHost()} names a sign-in page Switchboard will not open: ${problem}`,
        { hint: 'a genuine server signs you in on an https page; check the server URL' },
      );
  }

  /** " (host)" of the authorization server discovery found, for messages. */
  #issuerHost(): string {
    const issuer = this.#issuer().issuer;
    const host = issuer ? URL.parse(issuer)?.host : undefined;
    return host ? ` (${displayText(host)})` : '';
  }

  #issuer(): { issuer?: string } {
    const issuer =
      this.#discovery?.authorizationServerMetadata?.issuer ?? this.#discovery?.authorizationServerUrl;
    return issuer ? { issuer } : {};
  }

  #told(values: string[]): void {
    if (values.length) for (const listener of this.#secretListeners) listener(values);
  }

  #need(need: SignInRequired): SignInRequired {
    for (const listener of this.#listeners) listener(need);
    return need;
  }

  /**
   * Refresh once the token is close to expiring: in its last minute, or its last third when it lives
   * shorter than three minutes. Needs what discovery found (kept in memory), so the first refresh
   * after a start happens the SDK's way, on a 401.
   */
  #refreshDue(record: SignInRecord): boolean {
    if (record.expiresAt === undefined || !this.#discovery) return false;
    const lifetime = (record.tokens?.expires_in ?? 0) * 1000;
    const margin = Math.min(60_000, lifetime / 3);
    return this.#clock.now() >= record.expiresAt - margin;
  }

  #refreshEarly(tokens: OAuthTokens): Promise<OAuthTokens | undefined> {
    this.#refreshing ??= this.#refresh(tokens).finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  async #refresh(tokens: OAuthTokens): Promise<OAuthTokens | undefined> {
    const discovery = this.#discovery;
    const record = await this.#record();
    const client = record.client;
    if (!discovery || !client || !tokens.refresh_token) return tokens;
    try {
      const selected = await selectResourceURL(this.#serverUrl, this, discovery.resourceMetadata);
      // As the SDK does: the metadata's resource indicator verbatim (a URL object would add a "/").
      const resource =
        selected && discovery.resourceMetadata ? discovery.resourceMetadata.resource : selected;
      const fresh = await refreshAuthorization(discovery.authorizationServerUrl, {
        metadata: discovery.authorizationServerMetadata,
        clientInformation: client,
        refreshToken: tokens.refresh_token,
        resource,
        ...(this.#fetch ? { fetchFn: this.#fetch } : {}),
      });
      const saved = { ...fresh, issuer: String(discovery.authorizationServerUrl) };
      await this.saveTokens(saved);
      return saved;
    } catch (err) {
      if (err instanceof InvalidGrantError) {
        // The refresh token was revoked or expired: the request goes out without a token, its 401
        // leads the SDK to auth(), and that to a sign-in.
        await this.invalidateCredentials('tokens');
        return undefined;
      }
      // Unreachable or refused for another reason: the current token may still work; a 401 retries.
      return tokens;
    }
  }
}

function secretsOf(record: SignInRecord): string[] {
  return [
    record.tokens?.access_token,
    record.tokens?.refresh_token,
    record.tokens?.id_token,
    record.client?.client_secret,
  ].filter((v): v is string => typeof v === 'string' && v !== '');
}

/** Space-separated scope lists merged, in order, without repeats. */
export function union(a: string | undefined, b: string | undefined): string | undefined {
  const words = [...new Set([...(a ?? '').split(' '), ...(b ?? '').split(' ')].filter(Boolean))];
  return words.length ? words.join(' ') : undefined;
}

/** Whether `granted` includes every scope in `wanted` (an unknown grant is taken to be what was asked). */
function covers(granted: string | undefined, wanted: string): boolean {
  if (granted === undefined) return true;
  const have = new Set(granted.split(' '));
  return wanted.split(' ').every((w) => !w || have.has(w));
}

const NO_SIGN_IN_OFFERED =
  'the server asks for credentials but offers no OAuth sign-in (it names no authorization server)';

/** A sign-in was asked of a server that names no authorization server: it wants other credentials. */
export class NoSignInOffered extends UserError {
  constructor() {
    super(NO_SIGN_IN_OFFERED, { hint: 'give it the credentials it expects in its "headers"' });
    this.name = 'NoSignInOffered';
  }
}

/** Two URLs compared as parsed, a trailing slash aside (as the SDK binds clients to issuers). */
function sameUrl(a: string, b: string): boolean {
  const norm = (u: string) => (URL.parse(u)?.href ?? u).replace(/\/$/, '');
  return norm(a) === norm(b);
}

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}
