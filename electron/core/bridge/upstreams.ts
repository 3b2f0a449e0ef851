import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { EventEmitter } from 'node:events';
import type { ServerStatus, StatusReport } from '../../../shared/status.ts';
import type { CoreEvents } from '../core-events.ts';
import type { ServerLists } from '../lists/server-lists.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import type { ToolGate } from '../trust/tool-pins.ts';
import { ErrorCodes } from './json-rpc.ts';
import type { ServerEntry } from '../server-entry.ts';
import type { ServerRunner } from '../supervisor/server-runner.ts';
import type { Supervisor } from '../supervisor/supervisor.ts';
import type { McpSession } from './mcp-sessions.ts';
import type { RelayHub } from './relay-hub.ts';
import { matchesTemplate } from './uri-template-match.ts';
import type { ServerRelay } from './server-relay.ts';

/** A running server the bridge can relay to: Switchboard's one MCP client connection to it. */
export interface Upstream {
  name: string;
  /** Switchboard's own client on the connection (what the server said in initialize) */
  client: Client;
  /** editors' messages go through here */
  relay: ServerRelay;
  tools: readonly Tool[];
}

export interface Listed {
  name: string;
  lists: ServerLists;
  /** every tool the server lists now (held ones too) */
  tools: readonly Tool[];
  /** which of them editors get; undefined: all */
  gate: ToolGate | undefined;
  /** when its approval was given (Infinity: not known): the older one keeps a contested resource URI */
  approvedAt: number;
}

export type UpstreamLookup =
  | { ok: true; upstream: Upstream }
  | { ok: false; code: number; message: string; state: ServerStatus['state'] | 'unknown' };

/**
 * How long a request waits for a server that is starting (an idle one it woke, or one starting
 * anyway) before it is told so: as long as a start may take (the initialize timeout).
 */
const STARTING_WAIT_MS = 60_000;
/** States in which a server's lists (from its last run) are served: it runs, or starts when asked. */
const LISTED_STATES: ReadonlySet<ServerStatus['state']> = new Set(['running', 'idle', 'starting']);
/** How long a request to a server that just started waits for its tool list (see #listed). */
const TOOLS_WAIT_MS = 5_000;
/** How long a session's first request waits for an isolated server's own process (npx is slow). */
const ISOLATE_WAIT_MS = 60_000;

/**
 * What the bridge's view of the servers uses of the core: the supervisor's processes, the servers'
 * lists, tool gates, settings and status, and status changes (to wait for a server that starts).
 */
export interface UpstreamsCore {
  readonly events: Pick<EventEmitter<CoreEvents>, 'on' | 'off'>;
  readonly lifecycle: {
    supervisor():
      Pick<Supervisor, 'status' | 'statusOf' | 'runner' | 'isolate' | 'release' | 'wake'> | undefined;
    lists(name: string): ServerLists | undefined;
  };
  readonly tools: { toolGate(name: string): ToolGate | undefined };
  readonly servers: { entries(): ReadonlyMap<string, ServerEntry> };
  readonly status: { report(): Pick<StatusReport, 'servers'> };
  readonly state: Pick<AppStateStore, 'approval'>;
}

/** The bridge's view of the core: which servers can answer now, and why the others cannot. */
export class Upstreams {
  readonly #core: UpstreamsCore;
  readonly #hub: RelayHub;
  /** processes of `isolated` servers that serve one session alone, by session and server */
  readonly #isolates = new Map<McpSession, Map<string, ServerRunner>>();
  #isolateSeq = 0;

  constructor(core: UpstreamsCore, hub: RelayHub) {
    this.#core = core;
    this.#hub = hub;
  }

  /** The running servers, for the aggregate endpoint. */
  running(): Upstream[] {
    const result: Upstream[] = [];
    const supervisor = this.#core.lifecycle.supervisor();
    if (!supervisor) return result;
    for (const status of supervisor.status()) {
      const upstream = this.#ready(status.name);
      if (upstream) result.push(upstream);
    }
    return result;
  }

  /**
   * The lists an editor is given for the server without it having to run (its last run's, kept by the
   * core): while it runs, is idle or starts; undefined otherwise (or before it ever listed).
   */
  lists(name: string): ServerLists | undefined {
    // The supervisor's state: a server it supervises is approved and enabled (a cheap lookup).
    const state = this.#core.lifecycle.supervisor()?.statusOf(name)?.state;
    return state !== undefined && LISTED_STATES.has(state) ? this.#core.lifecycle.lists(name) : undefined;
  }

  /**
   * Every server whose lists are served now (see lists()), by name, with its tools as it lists them
   * and those editors get (`gate`: the pinned ones).
   */
  listed(): Listed[] {
    const out: Listed[] = [];
    for (const status of this.#core.lifecycle.supervisor()?.status() ?? []) {
      if (!LISTED_STATES.has(status.state)) continue;
      const lists = this.#core.lifecycle.lists(status.name);
      if (!lists) continue;
      const gate = this.gate(status.name);
      out.push({
        name: status.name,
        lists,
        tools: gate ? [...gate.listed, ...heldTools(gate)] : lists.tools,
        gate,
        approvedAt: this.#core.state.approval(status.name)?.approvedAt ?? Infinity,
      });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Why editors may not get this prompt of the server now (undefined: they may): it is new or
   * changed since it was pinned, or not among the pinned ones at all.
   */
  refusedPrompt(server: string, prompt: unknown): string | undefined {
    const gate = this.gate(server);
    if (!gate || typeof prompt !== 'string') return undefined;
    const reason = gate.prompts.held.get(prompt);
    // An AI agent reads this: the decision is the person's, never a command to run.
    if (reason === 'new')
      return `Prompt "${prompt}" of MCP server "${server}" is new since it was approved; Switchboard holds it back until the person accepts the change in Switchboard`;
    if (reason === 'changed')
      return `Prompt "${prompt}" of MCP server "${server}" changed since it was approved; Switchboard holds it back until the person accepts the change in Switchboard`;
    if (gate.prompts.pinned !== null && !gate.prompts.pinned.has(prompt))
      return `Unknown prompt "${prompt}": MCP server "${server}" does not list it; call prompts/list for the current names`;
    return undefined;
  }

  /**
   * Why /mcp/<server> does not relay a read of this URI (undefined: it does): only a resource
   * template held back since it was pinned (new or changed) matches it; a URI the server lists or a
   * pinned template matches is read as always.
   */
  refusedRead(server: string, uri: unknown): string | undefined {
    const gate = this.gate(server);
    if (!gate || gate.templates.held.size === 0 || typeof uri !== 'string') return undefined;
    if (this.#core.lifecycle.lists(server)?.resources.some((r) => r.uri === uri)) return undefined;
    if (gate.templates.listed.some((t) => matchesTemplate(t.uriTemplate, uri))) return undefined;
    const held = [...gate.templates.held].find(([template]) => matchesTemplate(template, uri));
    if (!held) return undefined;
    // An AI agent reads this: the decision is the person's, never a command to run.
    return `Resource template "${held[0]}" of MCP server "${server}" is ${held[1] === 'new' ? 'new' : 'changed'} since it was approved; Switchboard holds it back until the person accepts the change in Switchboard`;
  }

  /** Which of the server's tools editors get (pinned) and which are held back. */
  gate(name: string): ToolGate | undefined {
    return this.#core.tools.toolGate(name);
  }

  /**
   * Why editors may not call this tool of the server now (undefined: they may): it is new or changed
   * since its tools were pinned, or not in the list the server gave at all.
   */
  refusedTool(server: string, tool: unknown): string | undefined {
    const gate = this.gate(server);
    if (!gate || (typeof tool === 'string' && gate.callable.has(tool))) return undefined;
    const reason = typeof tool === 'string' ? gate.held.get(tool) : undefined;
    // An AI agent reads this: the decision is the person's, never a command to run.
    if (reason === 'new')
      return `Tool "${String(tool)}" of MCP server "${server}" is new since its tools were approved; Switchboard holds it back until the person accepts the change in Switchboard`;
    if (reason === 'changed')
      return `Tool "${String(tool)}" of MCP server "${server}" changed since its tools were approved; Switchboard holds it back until the person accepts the change in Switchboard`;
    return `Unknown tool "${String(tool)}": MCP server "${server}" does not list it; call tools/list for the current names`;
  }

  /**
   * The server at once when nothing needs waiting for: a shared server running with its connection
   * settled (see acquire). Undefined otherwise: then acquire() waits, starts or says why not. The hot
   * path of every call.
   */
  readyNow(name: string, session?: McpSession): Upstream | undefined {
    if (session && this.#core.servers.entries().get(name)?.config.isolated === true) return undefined;
    const ready = this.#ready(name);
    return ready?.relay.isSettled ? ready : undefined;
  }

  /**
   * The server if it is running; starts it if it is idle and waits while it is starting; else why it
   * cannot answer. With a session, a server marked `isolated` answers from that session's own process
   * (started on its first use, ended with the session).
   */
  async acquire(name: string, session?: McpSession): Promise<UpstreamLookup> {
    // A server being told new roots answers once it has them; one that starts anew meanwhile (its
    // editors with roots left) answers on its next connection.
    for (let tries = 1; ; tries++) {
      const found = await this.#acquire(name, session);
      if (!found.ok || tries >= 3 || (await found.upstream.relay.settled())) return found;
    }
  }

  async #acquire(name: string, session?: McpSession): Promise<UpstreamLookup> {
    if (session && this.#core.servers.entries().get(name)?.config.isolated === true) {
      // The session's own process is all it needs: the shared one may stay idle.
      const state = this.#status(name)?.state;
      if (state !== undefined && LISTED_STATES.has(state)) return this.#own(name, session);
    }
    const shared = await this.#acquireShared(name);
    if (!shared.ok || !session || this.#core.servers.entries().get(name)?.config.isolated !== true)
      return shared;
    return this.#own(name, session);
  }

  /** Ends the processes a session had of isolated servers. */
  release(session: McpSession): void {
    const supervisor = this.#core.lifecycle.supervisor();
    for (const runner of this.#isolates.get(session)?.values() ?? []) void supervisor?.release(runner);
    this.#isolates.delete(session);
  }

  /**
   * The session's own process of an isolated server, if it has one: with its relay once connected.
   */
  ownOf(session: McpSession, name: string): { relay: ServerRelay | undefined } | undefined {
    if (!this.#isolates.get(session)?.has(name)) return undefined;
    return { relay: this.#hub.ownRelay(session, name) };
  }

  async #own(name: string, session: McpSession): Promise<UpstreamLookup> {
    let runners = this.#isolates.get(session);
    let runner = runners?.get(name);
    if (!runner) {
      // Each new connection of the process (it restarts after a crash) brings a relay of its own.
      runner = this.#core.lifecycle.supervisor()?.isolate(name, {
        tag: `${session.editor}-${++this.#isolateSeq}`,
        capabilities: session.capabilities,
        ...(session.clientInfo ? { clientInfo: session.clientInfo } : {}),
        peer: { attach: (server, link) => this.#hub.attachIsolated(server, link, session) },
      });
      if (!runner)
        return { ok: false, code: ErrorCodes.ServerUnavailable, ...unavailable(name, this.#status(name)) };
      if (!runners) this.#isolates.set(session, (runners = new Map()));
      runners.set(name, runner);
    }
    if (runner.state !== 'running')
      await statusWait(runner, () => runner.state !== 'starting', ISOLATE_WAIT_MS);
    const client = runner.client;
    const link = runner.link;
    const relay = link ? this.#hub.relay(name, link, session) : undefined;
    if (runner.state === 'running' && client && relay) {
      relay.replay(); // a restarted process gets the session's log level and subscriptions again
      return { ok: true, upstream: { name, client, relay, tools: runner.tools } };
    }
    const why = runner.status.lastError ? `: ${runner.status.lastError}` : '';
    return {
      ok: false,
      code: ErrorCodes.ServerUnavailable,
      state: runner.state,
      message: `MCP server "${name}" runs one process per editor session (isolated), and this session's did not start${why}; see its log in Switchboard`,
    };
  }

  async #acquireShared(name: string): Promise<UpstreamLookup> {
    const ready = this.#ready(name);
    if (ready) return { ok: true, upstream: ready };
    let status = this.#status(name);
    if (status?.state === 'idle') {
      // The first request since it went idle: it starts, and concurrent ones wait for the same start.
      this.#core.lifecycle.supervisor()?.wake(name);
      status = this.#status(name);
    }
    if (status?.state === 'starting') {
      status = await this.#settled(name);
      const now = this.#ready(name);
      // Its tools as this run lists them are in before a call goes out: a tool that changed since
      // it was pinned is held back from the very first call, not only from the ones after.
      if (now) return { ok: true, upstream: (await this.#listed(name)) ?? now };
    }
    return { ok: false, code: ErrorCodes.ServerUnavailable, ...unavailable(name, status) };
  }

  #ready(name: string): Upstream | undefined {
    const runner = this.#core.lifecycle.supervisor()?.runner(name);
    const client = runner?.client;
    const link = runner?.link;
    if (!runner || runner.state !== 'running' || !client || !link) return undefined;
    const relay = this.#hub.relay(name, link);
    return relay ? { name, client, relay, tools: runner.tools } : undefined;
  }

  /** The server once its first tool list of this run is in (a few seconds at most), else undefined. */
  async #listed(name: string): Promise<Upstream | undefined> {
    const runner = this.#core.lifecycle.supervisor()?.runner(name);
    if (!runner || runner.toolsKnown) return undefined;
    await statusWait(runner, () => runner.state !== 'running' || runner.toolsKnown, TOOLS_WAIT_MS);
    return this.#ready(name);
  }

  #status(name: string): ServerStatus | undefined {
    return this.#core.status.report().servers.find((s) => s.name === name);
  }

  async #settled(name: string): Promise<ServerStatus | undefined> {
    await statusWait(
      this.#core.events,
      (status: ServerStatus) => status.name === name && status.state !== 'starting',
      STARTING_WAIT_MS,
    );
    return this.#status(name);
  }
}

/** Resolves at the first 'status' event `settled` accepts, or after `ms`, whichever comes first. */
function statusWait<A extends unknown[]>(
  source: {
    on(event: 'status', listener: (...args: A) => void): unknown;
    off(event: 'status', listener: (...args: A) => void): unknown;
  },
  settled: (...args: A) => boolean,
  ms: number,
): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      source.off('status', onStatus);
      resolve();
    };
    const onStatus = (...args: A) => {
      if (settled(...args)) done();
    };
    const timer = setTimeout(done, ms);
    source.on('status', onStatus);
  });
}

/** The tools a gate holds back, as the server lists them. */
function heldTools(gate: ToolGate): Tool[] {
  return gate.held.size === 0 ? [] : (gate.tools.filter((t) => gate.held.has(t.name)) as Tool[]);
}

/** Why a server cannot answer, in words that say what to do. */
export function unavailable(
  name: string,
  status: ServerStatus | undefined,
): { message: string; state: ServerStatus['state'] | 'unknown' } {
  if (!status) return { state: 'unknown', message: `Switchboard has no server named "${name}"` };
  const why = status.lastError ? ` (${status.lastError})` : '';
  const messages: Record<ServerStatus['state'], string> = {
    // An AI agent reads these: trust decisions are named as the person's, never as a command to run.
    'pending-approval': `"${name}" is waiting for your approval: approve it in Switchboard`,
    denied: `"${name}" was denied in Switchboard; to use it, approve it in Switchboard`,
    disabled: `"${name}" is disabled in Switchboard's servers.json (set "enabled": true)`,
    stopped: `"${name}" is stopped; start it in Switchboard or run: switchboard start ${name}`,
    idle: `"${name}" is idle and did not start; try again`,
    starting: `"${name}" is still starting; try again in a moment`,
    running: `"${name}" is running but not connected yet; try again in a moment`,
    backoff: `"${name}" crashed${why} and Switchboard restarts it${status.nextRetryAt ? ` at ${clockTime(status.nextRetryAt)}` : ' soon'}; try again then, or see why: switchboard logs ${name}`,
    'crash-loop': `"${name}" keeps crashing${why}, so Switchboard stopped restarting it; see why (switchboard logs ${name}), fix it, then run: switchboard restart ${name}`,
    // The person signs in, in Switchboard's window or tray: never a command an agent could run.
    'needs-sign-in': `"${name}" needs you to sign in to it: sign in to "${name}" in Switchboard, then try again`,
    error: `"${name}" cannot start${why}; once that is fixed, run: switchboard restart ${name}`,
  };
  return { state: status.state, message: `MCP server ${messages[status.state]}` };
}

/**
 * A local time of day, `14:05:09`. Not `toLocaleTimeString`: its first call loads ICU's date formats
 * into serve for good (~6 MB, docs/performance.md), and an agent reads this message, not a person.
 */
function clockTime(ms: number): string {
  const t = new Date(ms);
  return [t.getHours(), t.getMinutes(), t.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}
