import type { Notification } from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../clock.ts';
import type { ListKind } from '../lists/server-lists.ts';

/** What fetching a list anew found: another list than before, the same one, or nothing (it failed). */
export type Refetched = 'changed' | 'same' | 'failed';

export interface ListRefreshOptions {
  clock: Clock;
  /** fetches one list anew and keeps it; says whether it differs from the one held */
  fetch(kind: ListKind): Promise<Refetched>;
  /** a list the server announced did change: editors are told (after it was fetched) */
  announce(notification: Notification): void;
  /** a line for the server's log, saying what the server is doing */
  note(text: string, level: 'info' | 'warn'): void;
}

/** The wait between two fetches of a list whose announcements changed nothing, at first and at most. */
export const QUIET_FIRST_MS = 1_000;
export const QUIET_MAX_MS = 60_000;
/** Above this wait the log says that the server keeps announcing changes that are none. */
const SAY_THROTTLED_AT_MS = 8_000;

interface MethodState {
  kinds: ListKind[];
  notification: Notification;
  running: boolean;
  /** announced again while fetching or waiting: fetch once more */
  again: boolean;
  /** the least time between the start of two fetches (grows while fetches find nothing new) */
  interval: number;
  lastStart: number;
  cancelTimer: (() => void) | null;
  /** announcements since the last line about it, for the log */
  heard: number;
  saidThrottled: boolean;
}

/**
 * When a server says a list changed (`notifications/tools/list_changed`, …), Switchboard fetches it
 * anew before telling editors. Some servers say so when nothing changed, at every chance: a server
 * behind a stateless gateway (supergateway's Streamable HTTP without `--stateful`) is a new process
 * for each request, and each announces its tools as it starts — on the answer to the very list
 * request that was meant to read them. Fetching again for each announcement is an endless loop. So:
 *
 * - an announcement that came with the answer to one of Switchboard's own requests (initialize, a
 *   ping, a list: any request not relayed for an editor) is not a reason to list again: the list just
 *   fetched is the news (`own`);
 * - announcements coalesce: one fetch per list at a time, and one more if more came meanwhile;
 * - the rate is bounded: while fetches find the same list, the least time between two doubles from
 *   1 s up to a minute; a fetch that finds a real change brings it back to none;
 * - editors are told only of lists that did change;
 * - the server's log says what it is doing, once per kind of behaviour.
 */
export class ListRefresh {
  readonly #options: ListRefreshOptions;
  readonly #methods = new Map<string, MethodState>();
  #saidOwn = false;
  #closed = false;

  constructor(options: ListRefreshOptions) {
    this.#options = options;
  }

  /** The server announced that these lists changed; `own`: with the answer to one of ours. */
  changed(notification: Notification, kinds: ListKind[], own: boolean): void {
    if (this.#closed) return;
    if (own) {
      if (!this.#saidOwn) {
        this.#saidOwn = true;
        this.#options.note(
          `announced ${notification.method.replace(/^notifications\//, '')} with the answer to Switchboard's own request: ` +
            'it seems to start anew for each request (a stateless server, such as supergateway without --stateful); ' +
            'such announcements do not make Switchboard list again',
          'info',
        );
      }
      return;
    }
    let state = this.#methods.get(notification.method);
    if (!state) {
      state = {
        kinds,
        notification,
        running: false,
        again: false,
        interval: 0,
        lastStart: Number.NEGATIVE_INFINITY,
        cancelTimer: null,
        heard: 0,
        saidThrottled: false,
      };
      this.#methods.set(notification.method, state);
    }
    state.notification = notification;
    state.heard += 1;
    if (state.running || state.cancelTimer) {
      state.again = true;
      return;
    }
    this.#schedule(state);
  }

  /** The connection ended: nothing more is fetched. */
  close(): void {
    this.#closed = true;
    for (const state of this.#methods.values()) {
      state.cancelTimer?.();
      state.cancelTimer = null;
    }
  }

  #schedule(state: MethodState): void {
    const wait = state.lastStart + state.interval - this.#options.clock.now();
    if (wait <= 0) {
      void this.#run(state);
      return;
    }
    state.cancelTimer = this.#options.clock.setTimeout(() => {
      state.cancelTimer = null;
      if (!this.#closed) void this.#run(state);
    }, wait);
  }

  async #run(state: MethodState): Promise<void> {
    state.running = true;
    state.again = false;
    state.lastStart = this.#options.clock.now();
    let results: Refetched[];
    try {
      results = await Promise.all(state.kinds.map((kind) => this.#options.fetch(kind)));
    } finally {
      state.running = false;
    }
    if (this.#closed) return;
    if (results.includes('changed')) {
      state.interval = 0;
      state.saidThrottled = false;
      this.#options.announce(state.notification);
    } else if (results.every((r) => r === 'same')) {
      state.interval = Math.min(Math.max(state.interval * 2, QUIET_FIRST_MS), QUIET_MAX_MS);
      if (state.interval >= SAY_THROTTLED_AT_MS && !state.saidThrottled) {
        state.saidThrottled = true;
        this.#options.note(
          `keeps announcing ${state.notification.method.replace(/^notifications\//, '')} (${state.heard} times since it last changed) ` +
            `while its ${state.kinds.join(' and ')} stay the same: Switchboard now lists them less and less often, ` +
            `down to once a minute, until they really change`,
          'warn',
        );
        state.heard = 0;
      }
    }
    if (state.again) this.#schedule(state);
  }
}
