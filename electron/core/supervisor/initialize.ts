import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, type ClientCapabilities, type Notification } from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../clock.ts';
import { describeError } from '../errors.ts';
import type { ListKind } from '../lists/server-lists.ts';
import { SignInRequired } from '../oauth/sign-in-required.ts';
import { SDK_TIMEOUT_MS, type Attempt } from './attempt.ts';
import { ListRefresh } from './list-refresh.ts';
import type { RunLists } from './run-lists.ts';
import type { UpstreamLink, UpstreamPeer } from './upstream-link.ts';
import { explain, firstLine, formatDuration } from './wording.ts';

export interface ClientInfo {
  name: string;
  version: string;
}

/**
 * What a shared server is told its client can do: everything the bridge relays to editors. Which
 * editor answers, and whether it can, is decided per request (bridge/server-relay.ts); servers marked
 * `isolated` get their one editor's own capabilities instead.
 */
export const RELAYED_CLIENT_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
};

/** After a failed initialize, how long we wait for the exit to explain it better than "Connection closed". */
const EXIT_EXPLAINS_MS = 1_000;
/** The lists each list_changed notification is about. */
const LIST_CHANGED_KINDS: Record<string, ListKind[]> = {
  'notifications/tools/list_changed': ['tools'],
  'notifications/prompts/list_changed': ['prompts'],
  'notifications/resources/list_changed': ['resources', 'resourceTemplates'],
};

class InitializeTimeout extends Error {}

/**
 * What to make of a failed initialize: 'fallback' leaves the attempt to the caller (to try another
 * transport); otherwise the words for it and whether retrying can help (undefined: the default).
 */
export type ConnectFailure = () => 'fallback' | { message: string; retry: boolean } | undefined;

export interface InitializeOptions {
  server: string;
  clientInfo: ClientInfo;
  capabilities: ClientCapabilities;
  /** the bridge, which takes each connection's messages for editors (none: the SDK client sees all) */
  peer: (() => UpstreamPeer | undefined) | undefined;
  /** the runner's injected clock: the initialize timeout and list refreshes run on it */
  clock: Clock;
  initializeTimeoutMs: number;
  /** whether the server runs now (before then, its lists are about to be fetched anyway) */
  running(): boolean;
  /** a notification from the server, for the bridge to fan out */
  notify(notification: Notification): void;
  /** the attempt's lists, fetched through `client` */
  lists(attempt: Attempt, client: Client): RunLists;
}

/** An initialized connection: the client, and the lists it is about to fetch. */
export interface Initialized {
  client: Client;
  lists: RunLists;
}

/**
 * The MCP initialize handshake over `link`, for one attempt: the client, wired to the bridge and the
 * server's log. A failure is reported to the attempt (error, sign-in, or one that counts toward
 * crash-loop) and resolves undefined; 'fallback' when `onFailure` asked to try another way.
 */
export async function initialize(
  attempt: Attempt,
  link: UpstreamLink,
  options: InitializeOptions,
  onFailure?: ConnectFailure,
): Promise<Initialized | 'fallback' | undefined> {
  const client = new Client(options.clientInfo, { capabilities: options.capabilities });
  attempt.client = client;
  attempt.link = link;
  // Before initialize: a server may ask its client (roots/list) as soon as it is initialized.
  link.receiver = options.peer?.()?.attach(options.server, link);
  link.note = (text, level) => {
    if (attempt.current) attempt.note(text, level);
  };
  client.onerror = (err) => {
    if (attempt.current) attempt.note(`protocol: ${firstLine(describeError(err))}`, 'warn');
  };
  const lists = options.lists(attempt, client);
  // A list that changed is fetched anew first: editors told of it right after get the new one.
  // Announcements that are no news (see ListRefresh) are coalesced, bounded, and said in the log.
  const refresh = new ListRefresh({
    clock: options.clock,
    fetch: (kind) => lists.refresh(kind),
    announce: (notification) => {
      if (attempt.current) options.notify(notification);
    },
    note: (text, level) => {
      if (attempt.current) attempt.note(text, level);
    },
  });
  attempt.cancels.add(() => refresh.close());
  link.onListChanged = (notification, related) => {
    const kinds = LIST_CHANGED_KINDS[notification.method];
    // Before the server runs, its lists are about to be fetched anyway.
    if (!kinds || !attempt.current || !options.running()) return;
    // With the answer to one of Switchboard's own requests (not an editor's): no news.
    refresh.changed(notification, kinds, related !== undefined && !link.fromEditor(related));
  };
  client.fallbackNotificationHandler = async (notification) => {
    if (attempt.current) options.notify(notification);
  };

  const timeoutMs = options.initializeTimeoutMs;
  try {
    await attempt.request(timeoutMs, new InitializeTimeout(), (signal) =>
      client.connect(link, { signal, timeout: SDK_TIMEOUT_MS }),
    );
  } catch (err) {
    if (!attempt.current) return undefined;
    if (err instanceof McpError && err.data instanceof InitializeTimeout) {
      attempt.note(`initialize timed out: no answer within ${formatDuration(timeoutMs)}`, 'error');
      attempt.error(`initialize did not answer within ${formatDuration(timeoutMs)}`);
      return undefined;
    }
    if (err instanceof SignInRequired) {
      attempt.needsSignIn(err.message);
      return undefined;
    }
    // A process that died during initialize says more about why in its exit (code, last stderr).
    if (attempt.proc !== null) await attempt.within(attempt.proc.exited, EXIT_EXPLAINS_MS);
    if (!attempt.current) return undefined;
    const verdict = onFailure?.();
    if (verdict === 'fallback') {
      await client.close().catch(() => {});
      return 'fallback';
    }
    if (verdict && !verdict.retry) attempt.error(verdict.message);
    else attempt.fail(verdict?.message ?? `initialize failed: ${firstLine(explain(err))}`);
    return undefined;
  }
  if (!attempt.current) {
    await client.close().catch(() => {});
    return undefined;
  }

  // A running server must be reapable if Switchboard is killed: its pid file is on disk first.
  await attempt.pidWrite;
  if (!attempt.current) {
    await client.close().catch(() => {});
    return undefined;
  }
  return { client, lists };
}
