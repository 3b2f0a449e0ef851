import { EventEmitter } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ErrorCode,
  McpError,
  type ClientCapabilities,
  type Notification,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ServerState } from '../../../shared/status.ts';
import { systemClock, type Clock } from '../clock.ts';
import { describeError } from '../errors.ts';
import { LIST_METHODS, LIST_PAGE_SCHEMAS, type ListKind, type ServerLists } from '../lists/server-lists.ts';
import type { LogStream, ServerLog } from '../logs/server-log.ts';
import { SignInRequired } from '../oauth/sign-in-required.ts';
import { BackoffPolicy, type Random } from './backoff.ts';
import { ListRefresh, type Refetched } from './list-refresh.ts';
import { answerRecorder, explainAnswer, mayBeOldTransport, needsCredentials } from './http-answers.ts';
import { removePidFile, writePidFile } from './pid-files.ts';
import { spawnProcess, SpawnError, type ExitInfo, type ServerProcess } from './process-group.ts';
import { isGroupAlive, processStartToken } from './process-table.ts';
import { ProcessTransport } from './process-transport.ts';
import { newTagKey, relatedStreamsFetch } from './related-streams.ts';
import type { StartGate } from './start-gate.ts';
import type { DesiredServer, LaunchPlan, SandboxRun, SupervisedStatus, SupervisorTimings } from './types.ts';
import { UpstreamLink, type UpstreamPeer } from './upstream-link.ts';

export interface ClientInfo {
  name: string;
  version: string;
}

export interface ServerRunnerOptions {
  desired: DesiredServer;
  clock: Clock;
  timings: SupervisorTimings;
  log: ServerLog;
  /** where run/<name>.pid goes; null writes none */
  runDir: string | null;
  random?: Random;
  clientInfo?: ClientInfo;
  /** shared by the supervisor's runners: bounds how many servers start at once (default: no bound) */
  startGate?: StartGate;
  /** what Switchboard's client declares in initialize (default RELAYED_CLIENT_CAPABILITIES) */
  capabilities?: ClientCapabilities;
  /** the bridge, which takes each connection's messages for editors (none: the SDK client sees all) */
  peer?: () => UpstreamPeer | undefined;
  /**
   * Set for a server's extra process that serves one editor session alone (`isolated` servers): it
   * names the process in the shared log and in its pid file. Such a process never goes idle: it ends
   * with its session.
   */
  instance?: string;
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

export interface ServerRunnerEvents {
  /** every change of the status, with the new snapshot */
  status: [SupervisedStatus];
  /** the tool list after each successful tools/list (initial, and after list_changed) */
  tools: [Tool[]];
  /**
   * everything the server listed on this run: once all four lists are in after initialize, and again
   * after each list the server said changed was fetched anew
   */
  lists: [ServerLists];
  /**
   * any notification from the server (list_changed, logging, …), for the bridge to fan out; a
   * list_changed comes after the list was fetched anew (and `lists` emitted), so an editor that asks
   * at once gets the new list
   */
  notification: [Notification];
}

/**
 * The SDK's own request timer runs on real time; ours run on the injected clock and abort the
 * request through its signal. This keeps the SDK's timer out of the way (it is cleared on abort).
 */
const SDK_TIMEOUT_MS = 2_147_483_647;
/** After a failed initialize, how long we wait for the exit to explain it better than "Connection closed". */
const EXIT_EXPLAINS_MS = 1_000;
const MAX_LIST_PAGES = 1_000;
/** The lists each list_changed notification is about. */
const LIST_CHANGED_KINDS: Record<string, ListKind[]> = {
  'notifications/tools/list_changed': ['tools'],
  'notifications/prompts/list_changed': ['prompts'],
  'notifications/resources/list_changed': ['resources', 'resourceTemplates'],
};

/** One start of the server: everything that must be torn down when it ends. */
interface Attempt {
  proc: ServerProcess | null;
  client: Client | null;
  link: UpstreamLink | null;
  pidWrite: Promise<void>;
  cancels: Set<() => void>;
  aborts: Set<AbortController>;
  /** set once the attempt failed, errored or was stopped: later events of it are ignored */
  ended: boolean;
  pingMisses: number;
  /** per list: a counter, so that only the newest fetch of it lands */
  listSeq: Record<ListKind, number>;
  /** this run's lists, once all four were fetched after initialize */
  lists: ServerLists | null;
  stderr: LogStream | null;
  /** the OS sandbox this attempt's process runs in, released when it is gone */
  sandbox: SandboxRun | null;
  /** the last thing the sandbox refused on this attempt, in words with the fix */
  refusal: string | null;
  /** gives back this attempt's start slot (no-op when it holds none) */
  releaseStart: () => void;
  /** the bridge asked for a new start while requests were in flight: once they are done */
  renewWhenFree?: boolean;
}

class InitializeTimeout extends Error {}

/**
 * What to make of a failed initialize: 'fallback' leaves the attempt to the caller (to try another
 * transport); otherwise the words for it and whether retrying can help (undefined: the default).
 */
type ConnectFailure = () => 'fallback' | { message: string; retry: boolean } | undefined;

/**
 * The lifecycle of ONE server as an explicit state machine (design.md, "Server lifecycle"):
 *
 *   stopped ─start()→ starting ─initialize ok→ running
 *   starting|running ─exit / failed connect / 3 missed pings→ backoff ─timer→ starting
 *   backoff ─5th failure in 5 min→ crash-loop (waits for start()/restart()/config change)
 *   starting ─prepare() threw / command not found / initialize timed out→ error (waits likewise)
 *   running ─no request for the idle timeout→ idle ─wake() (a request)→ starting
 *   stopped ─park() (its lists are known)→ idle
 *   starting|running ─remote server wants an OAuth sign-in→ needs-sign-in (waits likewise)
 *   any ─stop()→ stopped
 *
 * Running means the MCP initialize handshake succeeded; `client` and `tools` are then available.
 * A wake is not a person's start: it keeps the backoff count, so a server that crashes whenever a
 * request wakes it still ends in crash-loop.
 */
export class ServerRunner extends EventEmitter<ServerRunnerEvents> {
  readonly name: string;
  readonly #clock: Clock;
  readonly #timings: SupervisorTimings;
  readonly #log: ServerLog;
  readonly #runDir: string | null;
  readonly #clientInfo: ClientInfo;
  readonly #backoff: BackoffPolicy;
  readonly #startGate: StartGate | undefined;
  readonly #capabilities: ClientCapabilities;
  readonly #peer: (() => UpstreamPeer | undefined) | undefined;
  readonly #instance: string | undefined;
  #desired: DesiredServer;
  /** requests in flight and subscriptions held on the current connection: the server is in use */
  #holds = 0;
  #cancelIdle: (() => void) | null = null;
  /** when the idle time started counting (the last hold let go) */
  #idleSince = 0;

  #state: ServerState = 'stopped';
  #pid: number | null = null;
  #restarts = 0;
  #lastError: string | null = null;
  /** the last thing the current run's sandbox refused (cleared by a new start) */
  #refusal: string | null = null;
  #since: number | null = null;
  #nextRetryAt: number | null = null;
  #toolCount: number | null = null;
  #tools: Tool[] = [];
  #client: Client | null = null;
  #link: UpstreamLink | null = null;

  #attempt: Attempt | null = null;
  #launches = 0;
  /** true while the server should be running (start()ed and not stop()ped) */
  #wanted = false;
  #cancelRetry: (() => void) | null = null;
  /** settles when every attempt torn down so far is gone (its process group dead) */
  #draining: Promise<void> = Promise.resolve();
  #disposed = false;

  constructor(options: ServerRunnerOptions) {
    super();
    this.name = options.desired.name;
    this.#desired = options.desired;
    this.#clock = options.clock;
    this.#timings = options.timings;
    this.#log = options.log;
    this.#runDir = options.runDir;
    this.#clientInfo = options.clientInfo ?? { name: 'switchboard', version: '0.0.0' };
    this.#backoff = new BackoffPolicy(options.timings, options.random);
    this.#startGate = options.startGate;
    this.#capabilities = options.capabilities ?? RELAYED_CLIENT_CAPABILITIES;
    this.#peer = options.peer;
    this.#instance = options.instance;
  }

  get status(): SupervisedStatus {
    return {
      name: this.name,
      state: this.#state,
      transport: this.#desired.transport,
      pid: this.#pid,
      restarts: this.#restarts,
      lastError: this.#lastError,
      since: this.#since,
      nextRetryAt: this.#nextRetryAt,
      toolCount: this.#toolCount,
      fingerprint: this.#desired.fingerprint,
      ...(this.#refusal !== null ? { sandboxRefused: this.#refusal } : {}),
    };
  }

  get state(): ServerState {
    return this.#state;
  }

  get desired(): DesiredServer {
    return this.#desired;
  }

  /** The connected MCP client while `running`, else null. Do not close it; the runner owns it. */
  get client(): Client | null {
    return this.#client;
  }

  /** The connection the bridge relays editors' messages on while `running`, else null. */
  get link(): UpstreamLink | null {
    return this.#link;
  }

  /** The tools from the last tools/list of the current run ([] until known). */
  get tools(): Tool[] {
    return this.#tools;
  }

  /** Whether this run listed its tools yet (`tools` is then the server's list). */
  get toolsKnown(): boolean {
    return this.#toolCount !== null;
  }

  /**
   * Starts the server (a person's action: also clears backoff and crash-loop). No-op while it is
   * already starting or running.
   */
  start(): void {
    if (this.#disposed) return;
    this.#wanted = true;
    if (this.#state === 'starting' || this.#state === 'running') return;
    this.#backoff.reset();
    this.#lastError = null;
    this.#refusal = null;
    this.#launch(this.#state === 'idle');
  }

  /**
   * A request wants the server: starts it if it is idle (no-op in any other state). Unlike start(),
   * backoff and crash-loop counts stay as they are.
   */
  wake(): void {
    if (this.#disposed || this.#state !== 'idle') return;
    this.#wanted = true;
    this.#note('starting: a request came in while it was idle');
    this.#launch(true);
  }

  /**
   * A server whose lists are known need not run until it is used: it waits in `idle` (no-op unless it
   * has never started and stop() put it nowhere else).
   */
  park(): void {
    if (this.#disposed || this.#state !== 'stopped' || this.#attempt !== null || !this.#lazy) return;
    this.#wanted = false;
    this.#set({ state: 'idle' });
  }

  /**
   * Marks the server in use (an editor's request in flight, a resource subscription) until the
   * returned function is called: it does not go idle meanwhile, and its idle time counts from then.
   */
  hold(): () => void {
    // The idle timer stays armed through a run of calls (one per call was a timer per call): fired
    // while held it does nothing, and the release arms it again.
    this.#holds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds -= 1;
      if (this.#holds > 0) return;
      const attempt = this.#attempt;
      if (attempt?.renewWhenFree) {
        attempt.renewWhenFree = false;
        this.#renew(attempt);
      } else this.#armIdleTimer();
    };
  }

  /** Stops whatever runs now and starts again; resolves once the old process group is gone. */
  async restart(): Promise<void> {
    if (this.#disposed) return;
    this.#wanted = true;
    this.#backoff.reset();
    this.#lastError = null;
    this.#refusal = null;
    if (this.#attempt !== null && !this.#attempt.ended) this.#note('restarting');
    this.#launch();
    await this.#settle();
  }

  /** Stops the server and its whole process group; resolves when they are gone. */
  async stop(): Promise<void> {
    this.#wanted = false;
    this.#clearRetry();
    const attempt = this.#attempt;
    this.#attempt = null;
    this.#client = null;
    this.#link = null;
    if (attempt !== null && !attempt.ended) {
      this.#note('stopping');
      this.#endAttempt(attempt);
    }
    await this.#settle();
    if (this.#attempt === null && this.#state !== 'stopped') {
      this.#tools = [];
      this.#set({ state: 'stopped', pid: null, since: null, nextRetryAt: null, toolCount: null });
      this.#note('stopped');
    }
  }

  /**
   * New config for this server. Same fingerprint: nothing happens (the process keeps running). A new
   * fingerprint restarts it if it should be running, clearing backoff and crash-loop.
   */
  async update(desired: DesiredServer): Promise<void> {
    if (desired.name !== this.name) throw new Error(`update for ${desired.name} sent to runner ${this.name}`);
    const changed =
      desired.fingerprint !== this.#desired.fingerprint || desired.transport !== this.#desired.transport;
    const idleChanged = desired.idleTimeoutMs !== this.#desired.idleTimeoutMs;
    this.#desired = desired;
    if (!changed) {
      if (idleChanged) this.#idleTimeoutChanged();
      return;
    }
    this.#emitStatus();
    if (this.#state === 'idle') {
      // Its lists are of the old config: it runs once to learn the new ones.
      this.#wanted = true;
      this.#launch();
      return;
    }
    if (!this.#wanted) return;
    this.#note('config changed; restarting');
    await this.restart();
  }

  /**
   * Starts the server anew (a wake, not a restart: no count, no backoff) as soon as nothing holds it:
   * the bridge asks when the editors that gave it roots have left, so that it has the folders it was
   * started with again, not theirs.
   */
  #renew(attempt: Attempt): void {
    if (!this.#isCurrent(attempt) || this.#state !== 'running') return;
    if (this.#holds > 0) {
      attempt.renewWhenFree = true;
      return;
    }
    this.#note(
      'the editors that gave it folders (roots) have left: starting it anew with the folders it was started with',
    );
    this.#launch(true);
  }

  /** stop() for good. */
  async dispose(): Promise<void> {
    await this.stop();
    this.#disposed = true;
  }

  // ─── idle ───────────────────────────────────────────────────────────────────────────────────

  /** Servers' own extra processes (isolated) end with their session instead. */
  get #lazy(): boolean {
    return this.#instance === undefined;
  }

  get #idleMs(): number {
    return this.#lazy ? (this.#desired.idleTimeoutMs ?? 0) : 0;
  }

  #idleTimeoutChanged(): void {
    if (this.#idleMs === 0 && this.#state === 'idle') {
      this.#wanted = true;
      this.#note('idle timeout is now 0 (always running): starting');
      this.#launch(true);
    } else {
      this.#clearIdleTimer(); // a shorter timeout must not wait for the longer one's timer
      this.#armIdleTimer();
    }
  }

  /** Counts the idle time from now, if the server is running and nothing holds it. */
  #armIdleTimer(): void {
    const ms = this.#idleMs;
    if (ms <= 0 || this.#state !== 'running' || this.#holds > 0) return this.#clearIdleTimer();
    this.#idleSince = this.#clock.now();
    if (this.#cancelIdle === null) this.#idleAfter(ms);
  }

  /** Goes idle `ms` from now unless the server was used meanwhile (then it waits out the rest). */
  #idleAfter(ms: number): void {
    this.#cancelIdle = this.#clock.setTimeout(() => {
      this.#cancelIdle = null;
      const idleMs = this.#idleMs;
      if (idleMs <= 0 || this.#holds > 0) return; // released later: armed again then
      const left = this.#idleSince + idleMs - this.#clock.now();
      if (left > 0) this.#idleAfter(left);
      else this.#goIdle(idleMs);
    }, ms);
  }

  #clearIdleTimer(): void {
    this.#cancelIdle?.();
    this.#cancelIdle = null;
  }

  /** No request for the idle timeout: the server stops cleanly and waits for the next one. */
  #goIdle(ms: number): void {
    const attempt = this.#attempt;
    if (attempt === null || attempt.ended || this.#state !== 'running' || this.#holds > 0) return;
    this.#wanted = false;
    this.#clearRetry();
    this.#note(`no request for ${formatDuration(ms)}: stopping until the next one (idle)`);
    // Ended while still current, so that the runner lets go of its client and link too: an idle
    // server holds no SDK client, transport or child process objects until it is woken.
    this.#endAttempt(attempt);
    this.#attempt = null;
    this.#set({ state: 'idle', pid: null, since: null, nextRetryAt: null, toolCount: null });
  }

  // ─── launching ──────────────────────────────────────────────────────────────────────────────

  /** `wake`: started for a request, not restarted (the restart count stays). */
  #launch(wake = false): void {
    this.#clearRetry();
    const previous = this.#attempt;
    const attempt: Attempt = {
      proc: null,
      client: null,
      link: null,
      pidWrite: Promise.resolve(),
      cancels: new Set(),
      aborts: new Set(),
      ended: false,
      pingMisses: 0,
      listSeq: { tools: 0, prompts: 0, resources: 0, resourceTemplates: 0 },
      lists: null,
      stderr: null,
      sandbox: null,
      refusal: null,
      releaseStart: () => {},
    };
    this.#attempt = attempt;
    this.#client = null;
    this.#link = null;
    this.#tools = [];
    if (previous !== null && !previous.ended) this.#endAttempt(previous);
    if (this.#launches++ > 0 && !wake) this.#restarts += 1;
    this.#set({ state: 'starting', pid: null, since: null, nextRetryAt: null, toolCount: null });
    void this.#run(attempt);
  }

  async #run(attempt: Attempt): Promise<void> {
    await this.#settle();
    if (!this.#isCurrent(attempt)) return;
    if (this.#startGate) {
      attempt.releaseStart = await this.#startGate.acquire();
      if (!this.#isCurrent(attempt)) {
        attempt.releaseStart();
        return;
      }
    }
    let plan: LaunchPlan;
    try {
      plan = await this.#desired.prepare((text) => {
        if (this.#isCurrent(attempt)) this.#note(text);
      });
    } catch (err) {
      if (this.#isCurrent(attempt)) this.#toError(attempt, describeError(err));
      return;
    }
    if (!this.#isCurrent(attempt)) return;
    this.#log.addSecrets(plan.redact);
    if (plan.transport === 'stdio') await this.#runStdio(attempt, plan);
    else await this.#runHttp(attempt, plan);
  }

  async #runStdio(attempt: Attempt, plan: Extract<LaunchPlan, { transport: 'stdio' }>): Promise<void> {
    const commandLine = this.#log.redact([plan.command, ...plan.args].map(quote).join(' '));
    const sandbox = plan.sandbox ?? null;
    attempt.sandbox = sandbox;
    if (sandbox) attempt.cancels.add(sandbox.onRefusal((words) => this.#refused(attempt, words)));
    let proc: ServerProcess;
    try {
      proc = await spawnProcess(
        { command: plan.command, args: plan.args, cwd: plan.cwd, env: plan.env },
        {
          // The stop sequence waits on real processes, so its grace periods run on real time even
          // when idle and retry timers run on a test's hand-moved clock (else a stop could wait forever).
          clock: systemClock,
          timings: this.#timings,
          onStopStep: (step) => this.#note(`stop: ${step}`, 'warn'),
        },
      );
    } catch (err) {
      void sandbox?.release();
      if (!this.#isCurrent(attempt)) return;
      const message = describeError(err);
      if (err instanceof SpawnError && (err.code === 'ENOENT' || err.code === 'EACCES'))
        this.#toError(attempt, message);
      else this.#fail(attempt, message);
      return;
    }
    attempt.proc = proc;
    this.#note(`spawned pid ${proc.pid}: ${commandLine}`);
    if (attempt.ended) {
      // Stopped or replaced while spawning: its teardown already ran, so stop this process here.
      this.#track(proc.stop());
      return;
    }
    attempt.pidWrite = this.#writePid(proc, commandLine);
    const explain = sandbox ? (line: string) => sandbox.explain(line) : undefined;
    const stderr = this.#log.stderrStream(
      explain &&
        ((line) => {
          const words = explain(line);
          if (words) this.#refused(attempt, words);
        }),
    );
    attempt.stderr = stderr;
    proc.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    proc.stderr.once('close', () => stderr.end());
    void proc.exited.then((info) => this.#onExit(attempt, info));
    this.#set({ pid: proc.pid });
    await this.#connect(attempt, new UpstreamLink(new ProcessTransport(proc.stdin, proc.stdout)));
  }

  async #runHttp(attempt: Attempt, plan: Extract<LaunchPlan, { transport: 'http' }>): Promise<void> {
    let url: URL;
    try {
      url = new URL(plan.url);
    } catch {
      this.#toError(attempt, `invalid url: ${this.#log.redact(plan.url)}`);
      return;
    }
    const where = this.#log.redact(plan.url);
    const answers = answerRecorder();
    const requestInit = { headers: plan.headers };
    const { auth } = plan;
    // OAuth: the SDK's transports sign and refresh through the provider; it says when a person must sign in.
    const signed = auth ? { authProvider: auth } : {};
    const fetchVia = auth ? auth.watch(answers.fetch) : answers.fetch;
    if (auth) {
      attempt.cancels.add(auth.onSignInNeeded((need) => this.#signInNeeded(attempt, need)));
      // Tokens never reach a log, not even in a server's error message.
      attempt.cancels.add(auth.onSecrets((values) => this.#log.addSecrets(values)));
      this.#log.addSecrets(await auth.secrets().catch(() => []));
      if (!this.#isCurrent(attempt)) return;
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
      this.#note(`connecting to ${where}`);
      const tagKey = newTagKey();
      // The remote transports (and the SDK's auth client with them) load with the first remote
      // server: a serve of local servers never carries them (docs/performance.md).
      const { StreamableHTTPClientTransport } =
        await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      const transport = new StreamableHTTPClientTransport(url, {
        requestInit,
        fetch: relatedStreamsFetch(tagKey, fetchVia),
        ...signed,
      });
      const connected = await this.#connect(attempt, new UpstreamLink(transport, tagKey), () =>
        plan.protocol === 'auto' && mayBeOldTransport(answers.last()) ? 'fallback' : failure(),
      );
      if (connected !== 'fallback' || !this.#isCurrent(attempt)) return;
      const answer = answers.last();
      this.#note(
        `no Streamable HTTP at ${where} (it answered ${answer?.status ?? '?'} to POST); trying the older HTTP+SSE transport`,
      );
    } else {
      this.#note(`connecting to ${where} (HTTP+SSE)`);
    }
    const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
    const sse = new SSEClientTransport(url, { requestInit, fetch: fetchVia, ...signed });
    await this.#connect(attempt, new UpstreamLink(sse), failure);
  }

  /**
   * The remote server's OAuth needs the person: without usable tokens the server waits for a sign-in
   * (a call in flight fails saying so); a call that needs more scope fails alone, the rest go on.
   */
  #signInNeeded(attempt: Attempt, need: SignInRequired): void {
    if (!this.#isCurrent(attempt)) return;
    if (need.reason === 'more-scope') {
      this.#note(
        `a request needs more access than was granted${need.scope ? ` (scope "${need.scope}")` : ''}; sign in again to allow it`,
        'warn',
      );
      return;
    }
    // After the failing request has been answered (its error says to sign in); ending the connection
    // first would answer it "went away" instead.
    setImmediate(() => this.#toNeedsSignIn(attempt, need.message));
  }

  /** Initializes over `link`; resolves 'fallback' when `onFailure` asked to try another way. */
  async #connect(
    attempt: Attempt,
    link: UpstreamLink,
    onFailure?: ConnectFailure,
  ): Promise<'fallback' | undefined> {
    const client = new Client(this.#clientInfo, { capabilities: this.#capabilities });
    attempt.client = client;
    attempt.link = link;
    // Before initialize: a server may ask its client (roots/list) as soon as it is initialized.
    link.receiver = this.#peer?.()?.attach(this.name, link);
    link.note = (text, level) => {
      if (this.#isCurrent(attempt)) this.#note(text, level);
    };
    client.onerror = (err) => {
      if (this.#isCurrent(attempt)) this.#note(`protocol: ${firstLine(describeError(err))}`, 'warn');
    };
    // A list that changed is fetched anew first: editors told of it right after get the new one.
    // Announcements that are no news (see ListRefresh) are coalesced, bounded, and said in the log.
    const refresh = new ListRefresh({
      clock: this.#clock,
      fetch: (kind) => this.#refreshList(attempt, client, kind),
      announce: (notification) => {
        if (this.#isCurrent(attempt)) this.emit('notification', notification);
      },
      note: (text, level) => {
        if (this.#isCurrent(attempt)) this.#note(text, level);
      },
    });
    attempt.cancels.add(() => refresh.close());
    link.onListChanged = (notification, related) => {
      const kinds = LIST_CHANGED_KINDS[notification.method];
      // Before the server runs, its lists are about to be fetched anyway.
      if (!kinds || !this.#isCurrent(attempt) || this.#state !== 'running') return;
      // With the answer to one of Switchboard's own requests (not an editor's): no news.
      refresh.changed(notification, kinds, related !== undefined && !link.fromEditor(related));
    };
    client.fallbackNotificationHandler = async (notification) => {
      if (this.#isCurrent(attempt)) this.emit('notification', notification);
    };

    const timeoutMs = this.#timings.initializeTimeoutMs;
    try {
      await this.#request(attempt, timeoutMs, new InitializeTimeout(), (signal) =>
        client.connect(link, { signal, timeout: SDK_TIMEOUT_MS }),
      );
    } catch (err) {
      if (!this.#isCurrent(attempt)) return;
      if (err instanceof McpError && err.data instanceof InitializeTimeout) {
        this.#note(`initialize timed out: no answer within ${formatDuration(timeoutMs)}`, 'error');
        this.#toError(attempt, `initialize did not answer within ${formatDuration(timeoutMs)}`);
        return;
      }
      if (err instanceof SignInRequired) {
        this.#toNeedsSignIn(attempt, err.message);
        return;
      }
      // A process that died during initialize says more about why in its exit (code, last stderr).
      if (attempt.proc !== null) await this.#within(attempt.proc.exited, EXIT_EXPLAINS_MS);
      if (!this.#isCurrent(attempt)) return;
      const verdict = onFailure?.();
      if (verdict === 'fallback') {
        await client.close().catch(() => {});
        return 'fallback';
      }
      if (verdict && !verdict.retry) this.#toError(attempt, verdict.message);
      else this.#fail(attempt, verdict?.message ?? `initialize failed: ${firstLine(explain(err))}`);
      return;
    }
    if (!this.#isCurrent(attempt)) {
      await client.close().catch(() => {});
      return;
    }

    // A running server must be reapable if Switchboard is killed: its pid file is on disk first.
    await attempt.pidWrite;
    if (!this.#isCurrent(attempt)) {
      await client.close().catch(() => {});
      return;
    }

    this.#client = client;
    this.#link = link;
    link.holder = () => this.hold();
    link.renew = () => this.#renew(attempt);
    attempt.releaseStart();
    const info = client.getServerVersion();
    this.#set({ state: 'running', since: this.#clock.now() });
    this.#note(`running: initialize answered${info ? ` by ${info.name} ${info.version}` : ''}`);
    attempt.cancels.add(
      this.#clock.setTimeout(() => this.#backoff.recordStable(), this.#timings.stableResetMs),
    );
    this.#schedulePing(attempt, client);
    this.#armIdleTimer();
    await this.#fetchLists(attempt, client);
  }

  /**
   * Runs an SDK request with a timeout on our clock: on expiry the request is aborted with an McpError
   * whose data is `reason`.
   */
  async #request<T>(
    attempt: Attempt,
    timeoutMs: number,
    reason: Error,
    run: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    attempt.aborts.add(controller);
    const cancel = this.#clock.setTimeout(
      () => controller.abort(new McpError(ErrorCode.RequestTimeout, reason.message, reason)),
      timeoutMs,
    );
    attempt.cancels.add(cancel);
    try {
      return await run(controller.signal);
    } finally {
      cancel();
      attempt.cancels.delete(cancel);
      attempt.aborts.delete(controller);
    }
  }

  /**
   * All four lists, after initialize. Only a complete set is emitted (`lists`): a list that could not
   * be fetched would otherwise be remembered as empty.
   */
  async #fetchLists(attempt: Attempt, client: Client): Promise<void> {
    // Tools first, on their own: a request that started the server waits for them (pinning), and
    // should not queue behind the other lists at the server.
    const tools = await this.#list(attempt, client, 'tools');
    if (!this.#isCurrent(attempt) || this.#state !== 'running') return;
    if (tools !== undefined) this.#toolsListed(tools as Tool[]);
    // The waiting request goes out before the other lists do.
    await new Promise((resolve) => setImmediate(resolve));
    const rest = ['prompts', 'resources', 'resourceTemplates'] as const;
    const results = await Promise.all(rest.map((kind) => this.#list(attempt, client, kind)));
    if (!this.#isCurrent(attempt) || this.#state !== 'running' || tools === undefined) return;
    const lists = this.#snapshot(client);
    lists.tools = tools as Tool[];
    for (const [i, kind] of rest.entries()) {
      const items = results[i];
      if (items === undefined) return; // #list noted why: only a complete set is kept
      (lists[kind] as unknown[]) = items;
    }
    attempt.lists = lists;
    this.emit('lists', lists);
  }

  /** One list again, after the server said it changed: whether it did. */
  async #refreshList(attempt: Attempt, client: Client, kind: ListKind): Promise<Refetched> {
    const seq = ++attempt.listSeq[kind];
    const items = await this.#list(attempt, client, kind);
    if (items === undefined || !this.#isCurrent(attempt) || seq !== attempt.listSeq[kind]) return 'failed';
    if (this.#state !== 'running') return 'failed';
    const lists = attempt.lists;
    const before = lists ? lists[kind] : kind === 'tools' && this.toolsKnown ? this.#tools : undefined;
    const changed = before === undefined || JSON.stringify(before) !== JSON.stringify(items);
    if (!changed) return 'same';
    if (kind === 'tools') this.#toolsListed(items as Tool[]);
    if (lists === null) return 'changed'; // the first fetch was incomplete: nothing whole to tell
    const next: ServerLists = { ...lists, [kind]: items };
    attempt.lists = next;
    this.emit('lists', next);
    return 'changed';
  }

  /** The sandbox refused the server something: its log says what and how to allow it; so does status. */
  #refused(attempt: Attempt, words: string): void {
    if (!this.#isCurrent(attempt) || attempt.refusal === words) return;
    attempt.refusal = words;
    this.#note(words, 'warn');
    this.#refusal = this.#log.redact(words);
    this.#emitStatus();
  }

  #toolsListed(tools: Tool[]): void {
    this.#tools = tools;
    this.#set({ toolCount: tools.length });
    this.emit('tools', tools);
  }

  /** What the server said in initialize, with empty lists. */
  #snapshot(client: Client): ServerLists {
    return {
      capabilities: client.getServerCapabilities() ?? {},
      serverInfo: client.getServerVersion() ?? { name: this.name, version: 'unknown' },
      instructions: client.getInstructions(),
      tools: [],
      prompts: [],
      resources: [],
      resourceTemplates: [],
    };
  }

  /**
   * Every page of one list (empty when the server has no such capability); undefined when it failed
   * (noted in the log). Items are kept as the server sent them.
   */
  async #list(attempt: Attempt, client: Client, kind: ListKind): Promise<unknown[] | undefined> {
    const capabilities = client.getServerCapabilities();
    const offered = kind === 'resourceTemplates' ? capabilities?.resources : capabilities?.[kind];
    if (offered === undefined) return [];
    const { method, field } = LIST_METHODS[kind];
    const items: unknown[] = [];
    try {
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const params = cursor === undefined ? undefined : { cursor };
        const result = await this.#request(
          attempt,
          this.#timings.initializeTimeoutMs,
          new Error(`${method} timed out`),
          (signal) =>
            client.request(
              { method, ...(params ? { params } : {}) } as Parameters<Client['request']>[0],
              LIST_PAGE_SCHEMAS[kind],
              { signal, timeout: SDK_TIMEOUT_MS },
            ),
        );
        items.push(...((result as Record<string, unknown>)[field] as unknown[]));
        cursor = result.nextCursor;
        if (cursor === undefined || seen.has(cursor)) break;
        seen.add(cursor);
      }
    } catch (err) {
      if (this.#isCurrent(attempt)) this.#note(`${method} failed: ${describeError(err)}`, 'warn');
      return undefined;
    }
    return items;
  }

  #schedulePing(attempt: Attempt, client: Client): void {
    const cancel = this.#clock.setTimeout(() => {
      attempt.cancels.delete(cancel);
      void this.#ping(attempt, client);
    }, this.#timings.pingIntervalMs);
    attempt.cancels.add(cancel);
  }

  async #ping(attempt: Attempt, client: Client): Promise<void> {
    if (!this.#isCurrent(attempt)) return;
    let answered: boolean;
    try {
      await this.#request(attempt, this.#timings.pingTimeoutMs, new Error('ping timed out'), (signal) =>
        client.ping({ signal, timeout: SDK_TIMEOUT_MS }),
      );
      answered = true;
    } catch (err) {
      // An error response is still an answer: the server is alive.
      answered =
        err instanceof McpError &&
        err.code !== ErrorCode.RequestTimeout &&
        err.code !== ErrorCode.ConnectionClosed;
    }
    if (!this.#isCurrent(attempt)) return;
    const max = this.#timings.pingMissesBeforeRestart;
    if (answered) {
      attempt.pingMisses = 0;
    } else {
      attempt.pingMisses += 1;
      this.#note(`health: ping missed (${attempt.pingMisses}/${max})`, 'warn');
      if (attempt.pingMisses >= max) {
        this.#fail(attempt, `stopped answering ping (${max} missed in a row); restarting`);
        return;
      }
    }
    this.#schedulePing(attempt, client);
  }

  async #writePid(proc: ServerProcess, command: string): Promise<void> {
    if (this.#runDir === null) return;
    try {
      const startToken = await processStartToken(proc.pid);
      await writePidFile(this.#runDir, {
        name: this.#pidName,
        pid: proc.pid,
        pgid: proc.pgid,
        command,
        startedAt: this.#clock.now(),
        startToken,
      });
    } catch (err) {
      this.#note(`could not write pid file: ${describeError(err)}`, 'warn');
    }
  }

  // ─── endings ────────────────────────────────────────────────────────────────────────────────

  #onExit(attempt: Attempt, info: ExitInfo): void {
    const how = info.signal !== null ? `exited on signal ${info.signal}` : `exited with code ${info.code}`;
    const unexpected = this.#isCurrent(attempt) && !attempt.ended;
    this.#note(how, unexpected ? 'warn' : 'info');
    if (!unexpected) return;
    const during = this.#state === 'starting' ? ' before initialize answered' : '';
    // What the sandbox refused explains a crash better than its last words.
    const last = attempt.refusal ?? attempt.stderr?.lastLine;
    this.#fail(attempt, `${how}${during}${last ? `: ${last}` : ''}`);
  }

  /** A failure that counts toward crash-loop: back off and retry, or give up. */
  #fail(attempt: Attempt, message: string): void {
    if (!this.#isCurrent(attempt) || attempt.ended) return;
    this.#endAttempt(attempt);
    this.#lastError = this.#log.redact(message);
    const now = this.#clock.now();
    const decision = this.#backoff.recordFailure(now);
    if (decision.kind === 'crash-loop') {
      this.#set({ state: 'crash-loop', pid: null, since: null, nextRetryAt: null, toolCount: null });
      this.#note(
        `crash-loop: ${decision.failuresInWindow} failures in ${formatDuration(this.#timings.crashLoopWindowMs)}; ` +
          `not restarting until you restart it or change its config`,
        'error',
      );
      return;
    }
    const at = now + decision.delayMs;
    this.#set({ state: 'backoff', pid: null, since: null, nextRetryAt: at, toolCount: null });
    this.#note(`backoff: next start at ${new Date(at).toISOString()} (attempt ${decision.attempt})`, 'warn');
    this.#cancelRetry = this.#clock.setTimeout(() => {
      this.#cancelRetry = null;
      if (this.#attempt === attempt && this.#wanted) this.#launch();
    }, decision.delayMs);
  }

  /** Cannot start, and retrying will not help: wait for the person (start, restart, config change). */
  #toError(attempt: Attempt, message: string): void {
    if (!this.#isCurrent(attempt) || attempt.ended) return;
    this.#endAttempt(attempt);
    this.#lastError = this.#log.redact(message);
    this.#set({ state: 'error', pid: null, since: null, nextRetryAt: null, toolCount: null });
    this.#note(`error: ${message}`, 'error');
  }

  /** A remote server that wants an OAuth sign-in: wait for the person (a sign-in restarts it). */
  #toNeedsSignIn(attempt: Attempt, message: string): void {
    if (!this.#isCurrent(attempt) || attempt.ended) return;
    this.#endAttempt(attempt);
    this.#lastError = this.#log.redact(message);
    this.#set({ state: 'needs-sign-in', pid: null, since: null, nextRetryAt: null, toolCount: null });
    this.#note(`needs sign-in: ${message}`, 'warn');
  }

  /** Marks the attempt over and tears it down in the background; #draining settles when it is gone. */
  #endAttempt(attempt: Attempt): void {
    attempt.ended = true;
    attempt.releaseStart();
    if (this.#attempt === attempt) {
      this.#client = null;
      this.#link = null;
    }
    this.#tools = [];
    this.#track(this.#teardown(attempt));
  }

  /** Adds work that must finish before the runner may start again (a process group going away). */
  #track(work: Promise<unknown>): void {
    this.#draining = Promise.all([this.#draining, work.catch(() => {})]).then(() => {});
  }

  /** Resolves once all tracked work is done, including work added while waiting. */
  async #settle(): Promise<void> {
    for (;;) {
      const draining = this.#draining;
      await draining;
      if (draining === this.#draining) return;
    }
  }

  async #teardown(attempt: Attempt): Promise<void> {
    for (const cancel of attempt.cancels) cancel();
    attempt.cancels.clear();
    for (const controller of attempt.aborts) controller.abort(new Error('stopping'));
    attempt.aborts.clear();
    const client = attempt.client;
    attempt.client = null;
    const proc = attempt.proc;
    // Stop the process first (stdin close is step one); the client just detaches afterwards.
    const stopped = proc?.stop();
    await client?.close().catch(() => {});
    if (proc === null || stopped === undefined) {
      await attempt.sandbox?.release();
      return;
    }
    await stopped;
    await attempt.sandbox?.release();
    await attempt.pidWrite;
    if (this.#runDir !== null && !(proc.pgid !== null && (await isGroupAlive(proc.pgid)))) {
      await removePidFile(this.#runDir, this.#pidName, proc.pid).catch(() => {});
    }
  }

  // ─── helpers ────────────────────────────────────────────────────────────────────────────────

  #note(text: string, level?: 'info' | 'warn' | 'error'): void {
    this.#log.lifecycle(this.#instance === undefined ? text : `[${this.#instance}] ${text}`, level);
  }

  /** run/<name>.pid, or run/<name>~<instance>.pid for a session's own process ("~" is in no server name). */
  get #pidName(): string {
    return this.#instance === undefined ? this.name : `${this.name}~${this.#instance}`;
  }

  #isCurrent(attempt: Attempt): boolean {
    return this.#attempt === attempt && !attempt.ended;
  }

  #clearRetry(): void {
    this.#cancelRetry?.();
    this.#cancelRetry = null;
  }

  /** Resolves when p settles or ms pass on the clock. */
  #within(p: Promise<unknown>, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const cancel = this.#clock.setTimeout(resolve, ms);
      void p.then(() => {
        cancel();
        resolve();
      });
    });
  }

  #set(
    patch: Partial<Pick<SupervisedStatus, 'state' | 'pid' | 'since' | 'nextRetryAt' | 'toolCount'>>,
  ): void {
    if (patch.state !== undefined && patch.state !== 'running') this.#clearIdleTimer();
    if (patch.state !== undefined) this.#state = patch.state;
    if (patch.pid !== undefined) this.#pid = patch.pid;
    if (patch.since !== undefined) this.#since = patch.since;
    if (patch.nextRetryAt !== undefined) this.#nextRetryAt = patch.nextRetryAt;
    if (patch.toolCount !== undefined) this.#toolCount = patch.toolCount;
    this.#emitStatus();
  }

  #emitStatus(): void {
    this.emit('status', this.status);
  }
}

/** describeError plus the chain of causes ("fetch failed: connect ECONNREFUSED 127.0.0.1:9"). */
function explain(err: unknown): string {
  let text = describeError(err);
  let cause = err instanceof Error ? err.cause : undefined;
  for (let depth = 0; depth < 3 && cause instanceof Error; depth++) {
    if (cause.message && !text.includes(cause.message)) text += `: ${cause.message}`;
    cause = cause.cause;
  }
  return text;
}

/** A message's first line, at most 300 characters: an error may carry a whole (HTML) page. */
function firstLine(text: string): string {
  const html = text.search(/<!DOCTYPE|<html/i);
  const line = (html === -1 ? text : `${text.slice(0, html)}(an HTML page)`).split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** POSIX-shell quoting, for showing a command line to people (never executed). */
function quote(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** 60000 → "60 s", 300000 → "5 min", 1500 → "1.5 s", 250 → "250 ms" */
export function formatDuration(ms: number): string {
  if (ms >= 120_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1_000) return `${Number((ms / 1_000).toFixed(1))} s`;
  return `${ms} ms`;
}
