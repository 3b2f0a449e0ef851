import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ServerLog } from '../logs/server-log.ts';
import type { SignInRequired } from '../oauth/sign-in-required.ts';
import type { Attempt } from './attempt.ts';
import { answerRecorder, explainAnswer, mayBeOldTransport, needsCredentials } from './http-answers.ts';
import type { ClientInfo, ConnectFailure } from './initialize.ts';
import { MODERN_VERSION } from '../../../shared/mcp-2026.ts';
import { discoverModern } from './modern-wire.ts';
import { ModernHttpTransport } from './modern-upstream.ts';
import { newTagKey, relatedStreamsFetch } from './related-streams.ts';
import type { LaunchPlan } from './types.ts';
import { UpstreamLink } from './upstream-link.ts';

type HttpPlan = Extract<LaunchPlan, { transport: 'http' }>;

export interface HttpLaunchOptions {
  log: Pick<ServerLog, 'redact' | 'addSecrets'>;
  /** the server's name (in the words of a 2026 server's errors) and how Switchboard's client calls itself */
  server: string;
  clientInfo: ClientInfo;
  /** initializes over `link`; resolves 'fallback' when `onFailure` asked to try another way */
  connect(link: UpstreamLink, onFailure: ConnectFailure): Promise<'fallback' | undefined>;
}

/**
 * Connects to a remote server for one attempt: Streamable HTTP, or the older HTTP+SSE (servers.json
 * `type`, or when Streamable HTTP is not there), signed with OAuth when the plan has it. A failure
 * is said with what the server answered, never the page it sent.
 */
export async function launchHttp(
  attempt: Attempt,
  plan: HttpPlan,
  options: HttpLaunchOptions,
): Promise<void> {
  const { log } = options;
  let url: URL;
  try {
    url = new URL(plan.url);
  } catch {
    attempt.error(`invalid url: ${log.redact(plan.url)}`);
    return;
  }
  const where = log.redact(plan.url);
  const answers = answerRecorder();
  const requestInit = { headers: plan.headers };
  const { auth } = plan;
  // OAuth: the SDK's transports sign and refresh through the provider; it says when a person must sign in.
  const signed = auth ? { authProvider: auth } : {};
  const fetchVia = auth ? auth.watch(answers.fetch) : answers.fetch;
  if (auth) {
    attempt.cancels.add(auth.onSignInNeeded((need) => signInNeeded(attempt, need)));
    // Tokens never reach a log, not even in a server's error message.
    attempt.cancels.add(auth.onSecrets((values) => log.addSecrets(values)));
    log.addSecrets(await auth.secrets().catch(() => []));
    if (!attempt.current) return;
  }
  // The words for a failed connection: what the server answered, never the page it sent.
  const failure = () => {
    const answer = answers.last();
    if (!answer) return undefined;
    return {
      message: `cannot connect to ${where}: ${explainAnswer(answer)}`,
      retry: !needsCredentials(answer),
    };
  };
  if (plan.protocol !== 'sse') {
    attempt.note(`connecting to ${where}`);
    const tagKey = newTagKey();
    // The server's highest era first: a 2026-07-28 server answers server/discover, any other does not
    // (one extra POST per connection, not per call).
    const connection = {
      url,
      headers: plan.headers,
      fetch: fetchVia,
      ...(auth
        ? {
            bearer: async () => (await auth.tokens())?.access_token,
            authorize: authorizeAgain(auth, url, fetchVia),
          }
        : {}),
    };
    // The probe is not signed in anew: a 401 takes the 2025 path, whose transport does it.
    const discovered = await discoverModern(
      { ...connection, fetch: answers.fetch, authorize: undefined },
      options.clientInfo,
    );
    if (!attempt.current) return;
    if (discovered) {
      attempt.note(
        `${where} speaks MCP ${MODERN_VERSION} (server/discover answered): no initialize, no session`,
      );
      const transport = new ModernHttpTransport(options.server, connection, discovered, tagKey);
      await options.connect(new UpstreamLink(transport, tagKey), failure);
      return;
    }
    // The remote transports (and the SDK's auth client with them) load with the first remote
    // server: a serve of local servers never carries them (docs/performance.md).
    const { StreamableHTTPClientTransport } =
      await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit,
      fetch: relatedStreamsFetch(tagKey, fetchVia),
      ...signed,
    });
    const connected = await options.connect(new UpstreamLink(transport, tagKey), () =>
      plan.protocol === 'auto' && mayBeOldTransport(answers.last()) ? 'fallback' : failure(),
    );
    if (connected !== 'fallback' || !attempt.current) return;
    const answer = answers.last();
    attempt.note(
      `no Streamable HTTP at ${where} (it answered ${answer?.status ?? '?'} to POST); trying the older HTTP+SSE transport`,
    );
  } else {
    attempt.note(`connecting to ${where} (HTTP+SSE)`);
  }
  const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
  const sse = new SSEClientTransport(url, { requestInit, fetch: fetchVia, ...signed });
  await options.connect(new UpstreamLink(sse), failure);
}

/**
 * A 2026 server's 401, answered as the 2025 transport answers it: the SDK's auth() with what the
 * server's WWW-Authenticate says (a refresh with the stored refresh token; without one, the sign-in
 * the provider asks the person for). One at a time per connection: two refreshes at once would spend
 * a rotating refresh token twice and lose the sign-in.
 */
function authorizeAgain(
  provider: NonNullable<HttpPlan['auth']>,
  serverUrl: URL,
  fetchFn: FetchLike,
): (response: Response) => Promise<boolean> {
  let running: Promise<boolean> | undefined;
  return (response) =>
    (running ??= (async () => {
      const { auth, extractWWWAuthenticateParams } = await import('@modelcontextprotocol/sdk/client/auth.js');
      const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
      try {
        return (await auth(provider, { serverUrl, resourceMetadataUrl, scope, fetchFn })) === 'AUTHORIZED';
      } catch {
        return false; // the provider has said what the person must do (onSignInNeeded)
      }
    })().finally(() => (running = undefined)));
}

/**
 * The remote server's OAuth needs the person: without usable tokens the server waits for a sign-in
 * (a call in flight fails saying so); a call that needs more scope fails alone, the rest go on.
 */
function signInNeeded(attempt: Attempt, need: SignInRequired): void {
  if (!attempt.current) return;
  if (need.reason === 'more-scope') {
    attempt.note(
      `a request needs more access than was granted${need.scope ? ` (scope "${need.scope}")` : ''}; sign in again to allow it`,
      'warn',
    );
    return;
  }
  // After the failing request has been answered (its error says to sign in); ending the connection
  // first would answer it "went away" instead.
  setImmediate(() => attempt.needsSignIn(need.message));
}
