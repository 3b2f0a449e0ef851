import { randomUUID } from 'node:crypto';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { SignInOutcome, SignInStart } from '../../../shared/sign-in.ts';
import type { Clock } from '../clock.ts';
import { UserError } from '../errors.ts';
import type { SignInOpener } from './open-browser.ts';
import { takesBearerIn2026 } from './modern-check.ts';
import { connect, explainSignInError, retrying, SignInSession, type RemoteTarget } from './sign-in.ts';
import type { SignInStore } from './sign-in-store.ts';

export interface SignInOptions {
  /** an OAuth client the person registered by hand (when the server takes no automatic registration) */
  client?: { clientId: string; clientSecret?: string | undefined } | undefined;
  clientMetadataUrl?: string | undefined;
  /** ask the person again even while the tokens held still work */
  fresh?: boolean | undefined;
}

export interface SignInsOptions {
  store: Pick<SignInStore, 'read' | 'update'>;
  clock: Clock;
  clientInfo: { name: string; version: string };
  /** every sign-in's end: signed in, failed or cancelled */
  onDone: (outcome: SignInOutcome) => void;
  /**
   * Also shows each authorization URL to the person from here (the desktop app's browser, or the
   * fetch mode of tests); without it the URL only goes back to whoever started the sign-in.
   */
  open?: SignInOpener | undefined;
  fetch?: FetchLike;
}

/** How long start() waits for the server to say where to sign in (discovery, registration). */
const FIRST_STEP_MS = 60_000;

interface Running {
  session: SignInSession;
  /** the authorization URL the person was last sent to */
  sent: { url?: string };
  startedAt: number;
  cancelled: boolean;
}

/**
 * The sign-ins in progress, at most one per server: the core's side of "Sign in" in the UI, the tray
 * and `switchboard login`. A sign-in connects to the server as Switchboard does (so its 401 says
 * where and with which scope to sign in), sends the person to the browser, and ends when the browser
 * comes back (or 10 minutes pass, or it is cancelled or started again).
 */
export class SignIns {
  readonly #options: SignInsOptions;
  readonly #running = new Map<string, Running>();

  constructor(options: SignInsOptions) {
    this.#options = options;
  }

  /** The sign-in in progress for `server`: where the person is to go, since when. */
  pending(server: string): { url: string; startedAt: number } | undefined {
    const running = this.#running.get(server);
    return running?.sent.url ? { url: running.sent.url, startedAt: running.startedAt } : undefined;
  }

  /**
   * Starts a sign-in (ending one in progress for the same server). Resolves once the person can be
   * sent to the browser, or when none was needed; rejects when the server cannot be signed in to.
   */
  async start(server: string, target: RemoteTarget, options: SignInOptions = {}): Promise<SignInStart> {
    await this.cancel(server, 'a new sign-in was started');
    const { store, clock, clientInfo } = this.#options;
    let announce: (url: URL) => void = () => {};
    const firstUrl = new Promise<URL>((resolve) => (announce = resolve));
    const sent: Running['sent'] = {};
    const session = await SignInSession.start({
      server,
      serverUrl: target.url,
      store,
      clock,
      clientMetadataUrl: options.clientMetadataUrl,
      client: options.client,
      fresh: options.fresh,
      ...(this.#options.fetch ? { fetch: this.#options.fetch } : {}),
      open: (url) => {
        sent.url = url.href;
        announce(url);
        void this.#options.open?.(url).catch(() => false);
      },
    });
    const running: Running = { session, sent, startedAt: clock.now(), cancelled: false };
    const id = randomUUID();
    this.#running.set(server, running);

    const work = (async () => {
      const connection = await connect(session, target, clientInfo, this.#options.fetch).catch(
        async (err: unknown) => {
          // A server that speaks only MCP 2026-07-28 refuses initialize: signed in when it takes the token.
          const bearer = (await session.provider.tokens().catch(() => undefined))?.access_token;
          if (await takesBearerIn2026(target.url, target.headers, bearer, this.#options.fetch))
            return undefined;
          throw err;
        },
      );
      if (!connection) return;
      try {
        // Servers that let initialize through ask for sign-in on their first real request.
        if (connection.client.getServerCapabilities()?.tools)
          await retrying(session, connection, () => connection.client.listTools());
      } finally {
        await connection.client.close().catch(() => {});
      }
    })();
    const finished = work.then(
      (): SignInOutcome => ({ name: server, id, result: 'signed-in' }),
      (err: unknown): SignInOutcome =>
        running.cancelled
          ? { name: server, id, result: 'cancelled', message: 'the sign-in was cancelled' }
          : { name: server, id, result: 'failed', message: explainSignInError(err) },
    );
    void finished.then(async (outcome) => {
      if (this.#running.get(server) === running) this.#running.delete(server);
      await session.close();
      this.#options.onDone(outcome);
    });

    const first = await new Promise<{ url: URL } | { outcome: SignInOutcome }>((resolve, reject) => {
      const cancel = clock.setTimeout(
        () =>
          reject(new UserError(`"${server}" did not say where to sign in within ${FIRST_STEP_MS / 1000} s`)),
        FIRST_STEP_MS,
      );
      void firstUrl.then((url) => {
        cancel();
        resolve({ url });
      });
      void finished.then((outcome) => {
        cancel();
        resolve({ outcome });
      });
    }).catch(async (err: unknown) => {
      await this.cancel(server);
      throw err;
    });
    if ('url' in first) return { status: 'browser', url: first.url.href, id };
    if (first.outcome.result === 'signed-in') return { status: 'signed-in' };
    throw new UserError(`cannot sign in to "${server}": ${first.outcome.message ?? 'unknown error'}`);
  }

  /** Ends the sign-in in progress for `server`, if any. */
  async cancel(server: string, reason = 'the sign-in was cancelled'): Promise<void> {
    const running = this.#running.get(server);
    if (!running) return;
    this.#running.delete(server);
    running.cancelled = true;
    await running.session.close(reason);
  }

  async closeAll(): Promise<void> {
    await Promise.all(
      [...this.#running.keys()].map((server) => this.cancel(server, 'Switchboard is stopping')),
    );
  }
}
