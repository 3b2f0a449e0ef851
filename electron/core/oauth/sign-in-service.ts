import {
  clientMetadataUrlProblem,
  type SignInInfo,
  type SignInOutcome,
  type SignInRequest,
  type SignInStart,
} from '../../../shared/sign-in.ts';
import type { Clock } from '../clock.ts';
import { UserError } from '../errors.ts';
import type { Keychain } from '../secrets/keychain.ts';
import type { SignInOpener } from './open-browser.ts';
import { SwitchboardOAuthProvider } from './provider.ts';
import { SignIns } from './sign-ins.ts';
import { SignInStore } from './sign-in-store.ts';

/**
 * What sign-in reads of a remote server's launch plan (supervisor/types.ts LaunchPlan, `http`, has it;
 * declared here so that oauth/ does not reach up into the supervisor that uses it).
 */
export interface RemoteTarget {
  url: string;
  headers: Record<string, string>;
  /** servers.json `type`: Streamable HTTP only, the older HTTP+SSE only, or the first that answers */
  protocol: 'streamable-http' | 'sse' | 'auto';
}

export interface SignInServiceOptions {
  keychain: Keychain;
  clock: Clock;
  /** Switchboard's Client ID Metadata Document URL from Settings, read at each sign-in */
  clientMetadataUrl: () => string | undefined;
  onDone: (outcome: SignInOutcome) => void;
  open?: SignInOpener | undefined;
}

/**
 * OAuth for the core's remote servers: each server's provider for its connections (kept per server,
 * so what discovery found stays in memory), the sign-ins people start, and what is held (never the
 * tokens themselves) for the UI and the CLI.
 */
export class SignInService {
  readonly #store: SignInStore;
  readonly #clock: Clock;
  readonly #clientMetadataUrl: () => string | undefined;
  readonly #signIns: SignIns;
  readonly #providers = new Map<string, SwitchboardOAuthProvider>();

  constructor(options: SignInServiceOptions) {
    this.#store = new SignInStore(options.keychain);
    this.#clock = options.clock;
    this.#clientMetadataUrl = options.clientMetadataUrl;
    this.#signIns = new SignIns({
      store: this.#store,
      clock: options.clock,
      clientInfo: { name: 'switchboard', version: '0.0.0' },
      open: options.open,
      onDone: options.onDone,
    });
  }

  /**
   * The OAuth provider for a remote server's connections, kept per server and URL (none when its
   * headers carry their own Authorization).
   */
  authFor(server: string, plan: RemoteTarget): SwitchboardOAuthProvider | undefined {
    if (hasAuthorization(plan.headers)) return undefined;
    let provider = this.#providers.get(server);
    if (!provider || provider.serverUrl !== plan.url) {
      provider = new SwitchboardOAuthProvider({
        server,
        serverUrl: plan.url,
        store: this.#store,
        clock: this.#clock,
      });
      this.#providers.set(server, provider);
    }
    return provider;
  }

  /** Starts the person's sign-in (see SignIns.start). */
  start(server: string, plan: RemoteTarget, request: SignInRequest = {}): Promise<SignInStart> {
    if (hasAuthorization(plan.headers)) {
      throw new UserError(
        `"${server}" sends its own Authorization header (servers.json "headers"), so it does not sign in with OAuth`,
        { hint: 'remove that header from its entry to sign in instead' },
      );
    }
    const clientMetadataUrl = request.clientMetadataUrl ?? this.#clientMetadataUrl();
    const problem = clientMetadataUrl ? clientMetadataUrlProblem(clientMetadataUrl) : undefined;
    if (clientMetadataUrl && problem)
      throw new UserError(
        `the Client ID Metadata Document URL "${clientMetadataUrl}" cannot be used: ${problem}`,
      );
    return this.#signIns.start(
      server,
      { url: plan.url, headers: plan.headers, protocol: plan.protocol },
      {
        clientMetadataUrl,
        fresh: request.fresh,
        client: request.clientId
          ? { clientId: request.clientId, clientSecret: request.clientSecret }
          : undefined,
      },
    );
  }

  /** Forgets the server's sign-in (tokens and client); true if there was one. */
  async forget(server: string): Promise<boolean> {
    await this.#signIns.cancel(server);
    this.#providers.delete(server);
    return this.#store.forget(server);
  }

  /** What is held for the server at `url` (undefined: its URL cannot be known now). */
  async info(server: string, url: string | undefined): Promise<SignInInfo> {
    const none: SignInInfo = {
      name: server,
      signedIn: false,
      scope: null,
      expiresAt: null,
      wantedScope: null,
      pending: this.#signIns.pending(server) ?? null,
    };
    if (url === undefined) return none;
    const record = await this.#store.read(server, url);
    return {
      ...none,
      signedIn: record.tokens !== undefined,
      scope: record.tokens?.scope ?? null,
      expiresAt: record.expiresAt ?? null,
      wantedScope: record.wantedScope ?? null,
    };
  }

  closeAll(): Promise<void> {
    return this.#signIns.closeAll();
  }
}

function hasAuthorization(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === 'authorization');
}
