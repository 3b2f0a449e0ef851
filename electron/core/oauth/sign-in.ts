import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Clock } from '../clock.ts';
import { UserError } from '../errors.ts';
import { LoopbackListener, type Callback } from './loopback.ts';
import { SwitchboardOAuthProvider } from './provider.ts';
import type { SignInStore } from './sign-in-store.ts';

/** How long a sign-in waits for the person to finish in the browser. */
export const SIGN_IN_TIMEOUT_MS = 10 * 60_000;
/**
 * Sign-ins one operation may need: the first, and a scope step-up or two. A server that keeps asking
 * after that will not be satisfied by asking the person again.
 */
const MAX_SIGN_INS = 3;

export interface SignInSessionOptions {
  /** the server's name (its record in the store) */
  server: string;
  /** what the browser's pages call it (default: its name) */
  label?: string;
  serverUrl: string;
  store: Pick<SignInStore, 'read' | 'update'>;
  clock: Clock;
  clientMetadataUrl?: string | undefined;
  client?: { clientId: string; clientSecret?: string | undefined } | undefined;
  /** ask the person again even while the tokens held still work */
  fresh?: boolean | undefined;
  /** shows the person an authorization URL: a browser, a printed line, or the UI that asked */
  open: (url: URL) => void;
  timeoutMs?: number;
  fetch?: FetchLike;
}

/**
 * One sign-in the person does: a loopback listener for the browser's return, and an interactive
 * OAuth provider whose authorization URLs go to `open`. An MCP connection made with `provider`
 * fails with the SDK's UnauthorizedError once it has sent the person to the browser; `complete`
 * then waits for them to come back and exchanges the code (the transport's finishAuth), after which
 * the failed step is tried again (`connect` and `retrying` below do this).
 */
export class SignInSession {
  readonly provider: SwitchboardOAuthProvider;
  readonly #listener: LoopbackListener;
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  #pending: Promise<Callback> | undefined;
  #signIns = 0;
  #closed = false;
  /** the last authorization URL sent to the person */
  lastUrl: URL | undefined;

  private constructor(options: Omit<SignInSessionOptions, 'label'>, listener: LoopbackListener) {
    this.#listener = listener;
    this.#clock = options.clock;
    this.#timeoutMs = options.timeoutMs ?? SIGN_IN_TIMEOUT_MS;
    this.provider = new SwitchboardOAuthProvider({
      server: options.server,
      serverUrl: options.serverUrl,
      store: options.store,
      clock: options.clock,
      clientMetadataUrl: options.clientMetadataUrl,
      client: options.client,
      fresh: options.fresh,
      fetch: options.fetch,
      interactive: {
        redirectUrl: listener.redirectUrl,
        authorize: (url) => {
          const pending = listener.expect(url.searchParams.get('state') ?? '');
          pending.catch(() => {}); // awaited by complete(); a superseded one fails unheard
          this.#pending = pending;
          this.lastUrl = url;
          options.open(url);
        },
      },
    });
  }

  static async start(options: SignInSessionOptions): Promise<SignInSession> {
    const record = await options.store.read(options.server, options.serverUrl);
    const client = record.client;
    // A client registered for one loopback port keeps working while that port is free.
    const registered = client && 'redirect_uris' in client ? client.redirect_uris[0] : undefined;
    const listener = await LoopbackListener.open({
      server: options.label ?? options.server,
      preferredPort: loopbackPort(registered),
    });
    return new SignInSession(options, listener);
  }

  get redirectUrl(): string {
    return this.#listener.redirectUrl;
  }

  /** True while the person has been sent to the browser and their answer was not used yet. */
  get authorizing(): boolean {
    return this.#pending !== undefined;
  }

  /** Waits for the browser's answer to the last authorization URL and exchanges its code. */
  async complete(transport: { finishAuth(code: string): Promise<void> }): Promise<void> {
    const pending = this.#pending;
    if (!pending) throw new Error('no sign-in page was opened');
    this.#pending = undefined;
    if (++this.#signIns > MAX_SIGN_INS)
      throw new UserError(`the server asked for a sign-in ${this.#signIns} times in a row; giving up`, {
        hint: 'it may want a scope it never grants; check the account or app permissions at its provider',
      });
    const callback = await this.#within(pending);
    try {
      await transport.finishAuth(callback.code);
    } catch (err) {
      callback.respond({ ok: false, message: explainSignInError(err) });
      throw err;
    }
    callback.respond({ ok: true });
  }

  /** Stops listening; a wait in progress fails with `reason`. */
  async close(reason?: string): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#listener.close(reason);
  }

  #within(pending: Promise<Callback>): Promise<Callback> {
    return new Promise<Callback>((resolve, reject) => {
      const cancel = this.#clock.setTimeout(
        () =>
          reject(
            new UserError(
              `nobody finished the sign-in in the browser within ${this.#timeoutMs / 60_000} min`,
              {
                hint: 'start it again',
              },
            ),
          ),
        this.#timeoutMs,
      );
      pending.then(
        (callback) => {
          cancel();
          resolve(callback);
        },
        (err: unknown) => {
          cancel();
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }
}

/** A remote server as Switchboard connects to it. */
export interface RemoteTarget {
  url: string;
  headers: Record<string, string>;
  protocol: 'streamable-http' | 'sse' | 'auto';
}

type AuthTransport = StreamableHTTPClientTransport | SSEClientTransport;

export interface Connection {
  client: Client;
  transport: AuthTransport;
}

/**
 * Connects as Switchboard would (Streamable HTTP, the older HTTP+SSE when `auto` finds no Streamable
 * HTTP), signing in through `session` whenever the server asks.
 */
export async function connect(
  session: SignInSession,
  target: RemoteTarget,
  clientInfo: { name: string; version: string },
  fetch: FetchLike = globalThis.fetch,
): Promise<Connection> {
  const kinds: ('streamable-http' | 'sse')[] =
    target.protocol === 'auto' ? ['streamable-http', 'sse'] : [target.protocol];
  for (let k = 0; ; k++) {
    const kind = kinds[k] ?? 'sse';
    for (;;) {
      const options = {
        authProvider: session.provider,
        requestInit: { headers: target.headers },
        fetch: session.provider.watch(fetch),
      };
      const transport =
        kind === 'sse'
          ? new SSEClientTransport(new URL(target.url), options)
          : new StreamableHTTPClientTransport(new URL(target.url), options);
      const client = new Client(clientInfo, { capabilities: {} });
      try {
        await client.connect(transport);
        return { client, transport };
      } catch (err) {
        await client.close().catch(() => {});
        if (err instanceof UnauthorizedError && session.authorizing) {
          await session.complete(transport);
          continue;
        }
        const next = kinds[k + 1];
        if (next && err instanceof StreamableHTTPError && isFallbackStatus(err.code)) break;
        throw err;
      }
    }
  }
}

/** Runs `step` on a connection; when it fails for want of a sign-in, signs in and runs it again. */
export async function retrying<T>(
  session: SignInSession,
  connection: Connection,
  step: () => Promise<T>,
): Promise<T> {
  for (;;) {
    try {
      return await step();
    } catch (err) {
      if (!(err instanceof UnauthorizedError) || !session.authorizing) throw err;
      await session.complete(connection.transport);
    }
  }
}

function isFallbackStatus(code: number | undefined): boolean {
  return code !== undefined && code >= 400 && code < 500 && code !== 401 && code !== 403;
}

/** The port of a loopback redirect URI, if it is one. */
function loopbackPort(uri: string | undefined): number | undefined {
  if (!uri) return undefined;
  try {
    const url = new URL(uri);
    return url.hostname === '127.0.0.1' && url.port ? Number(url.port) : undefined;
  } catch {
    return undefined;
  }
}

/** A failed sign-in in words a person can act on. */
export function explainSignInError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/403 after trying upscoping/i.test(message))
    return 'the server still refuses (403 insufficient_scope) after a sign-in with the scope it asked for';
  if (/does not support dynamic client registration/i.test(message))
    return "its authorization server does not let apps register themselves: register an OAuth app with it (redirect URI http://127.0.0.1/callback; any port) and sign in with that app's client ID";
  if (err instanceof TypeError && /fetch failed/i.test(message)) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return `cannot reach the server or its authorization server${cause}`;
  }
  return message || `${err instanceof Error ? err.name : 'an error'} without a message`;
}
