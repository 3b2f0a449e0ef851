import { EventEmitter } from 'node:events';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ClientCapabilities, Notification, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ServerState } from '../../../shared/status.ts';
import type { Clock } from '../clock.ts';
import type { ServerLists } from '../lists/server-lists.ts';
import type { ServerLog } from '../logs/server-log.ts';
import { Attempt, type AttemptHost, type NoteLevel } from './attempt.ts';
import type { Random } from './backoff.ts';
import { Drain } from './drain.ts';
import { startPings } from './health-ping.ts';
import { IdleTimer } from './idle-timer.ts';
import { RELAYED_CLIENT_CAPABILITIES, type ClientInfo, type Initialized } from './initialize.ts';
import { Launcher } from './launcher.ts';
import { ProcessPidFile } from './pid-files.ts';
import type { ExitInfo } from './process-group.ts';
import { RetrySchedule } from './retry-schedule.ts';
import { RunLists } from './run-lists.ts';
import { NOT_RUNNING, outranks, RunnerStatus, type StatusPatch } from './runner-status.ts';
import type { StartGate } from './start-gate.ts';
import type {
  DesiredServer,
  SandboxRefusal,
  SandboxRun,
  SupervisedStatus,
  SupervisorTimings,
} from './types.ts';
import type { UpstreamLink, UpstreamPeer } from './upstream-link.ts';
import { formatDuration } from './wording.ts';

export interface ServerRunnerOptions {
  desired: DesiredServer;
  clock: Clock;
  timings: SupervisorTimings;
  log: Pick<ServerLog, 'addSecrets' | 'redact' | 'stderrStream' | 'lifecycle'>;
  /** where run/<name>.pid goes; null writes none */
  runDir: string | null;
  random?: Random;
  clientInfo?: ClientInfo;
  /** shared by the supervisor's runners: bounds how many servers start at once (default: no bound) */
  startGate?: Pick<StartGate, 'acquire'>;
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
 *
 * The runner decides; its helpers do: each start is an Attempt (attempt.ts) launched over stdio
 * (stdio-launch.ts) or HTTP (http-launch.ts), initialized (initialize.ts), pinged (health-ping.ts),
 * listed (run-lists.ts); the idle timeout (idle-timer.ts), the backoff (retry-schedule.ts) and
 * request timeouts run on the injected clock, the stop sequence (process-group.ts) on real time.
 */
export class ServerRunner extends EventEmitter<ServerRunnerEvents> {
  readonly name: string;
  readonly #clock: Clock;
  readonly #timings: SupervisorTimings;
  readonly #log: ServerRunnerOptions['log'];
  readonly #pidFile: ProcessPidFile | null;
  readonly #retries: RetrySchedule;
  readonly #idle: IdleTimer;
  readonly #drain = new Drain();
  readonly #launcher: Launcher;
  readonly #instance: string | undefined;
  #desired: DesiredServer;

  readonly #status = new RunnerStatus();
  #tools: Tool[] = [];
  #client: Client | null = null;
  #link: UpstreamLink | null = null;

  #attempt: Attempt | null = null;
  #launches = 0;
  /** true while the server should be running (start()ed and not stop()ped) */
  #wanted = false;
  #disposed = false;
  /** what the attempts report to (not part of the runner's own interface) */
  readonly #host: AttemptHost = {
    isCurrent: (attempt) => this.#isCurrent(attempt),
    note: (text, level) => this.#note(text, level),
    fail: (attempt, message) => this.#fail(attempt, message),
    error: (attempt, message) => this.#toError(attempt, message),
    needsSignIn: (attempt, message) => this.#toNeedsSignIn(attempt, message),
    refused: (attempt, refusal) => this.#refused(attempt, refusal),
  };

  constructor(options: ServerRunnerOptions) {
    super();
    this.name = options.desired.name;
    this.#desired = options.desired;
    this.#clock = options.clock;
    this.#timings = options.timings;
    this.#log = options.log;
    this.#instance = options.instance;
    // run/<name>.pid, or run/<name>~<instance>.pid for a session's own process ("~" is in no server name).
    const pidName = options.instance === undefined ? this.name : `${this.name}~${options.instance}`;
    this.#pidFile =
      options.runDir === null ? null : new ProcessPidFile(options.runDir, pidName, options.clock);
    this.#retries = new RetrySchedule(options.clock, options.timings, options.random);
    this.#idle = new IdleTimer({
      clock: options.clock,
      timeoutMs: () => this.#idleMs,
      running: () => this.#status.state === 'running',
      onIdle: (ms) => this.#goIdle(ms),
    });
    this.#launcher = new Launcher({
      desired: () => this.#desired,
      log: options.log,
      timings: options.timings,
      pidFile: this.#pidFile,
      startGate: options.startGate,
      drain: this.#drain,
      initialize: {
        server: this.name,
        clientInfo: options.clientInfo ?? { name: 'switchboard', version: '0.0.0' },
        capabilities: options.capabilities ?? RELAYED_CLIENT_CAPABILITIES,
        peer: options.peer,
        clock: options.clock,
        initializeTimeoutMs: options.timings.initializeTimeoutMs,
        running: () => this.#status.state === 'running',
        notify: (notification) => this.emit('notification', notification),
        lists: (attempt, client) => this.#listsOf(attempt, client),
      },
      spawned: (pid) => this.#set({ pid }),
      exited: (attempt, info) => this.#onExit(attempt, info),
      running: (attempt, link, initialized) => this.#running(attempt, link, initialized),
    });
  }

  get status(): SupervisedStatus {
    return this.#status.snapshot(this.name, this.#desired);
  }

  get state(): ServerState {
    return this.#status.state;
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

  /** The sandbox the current run is in while `running` (null when it runs unsandboxed). */
  get sandbox(): SandboxRun | null {
    return this.#status.state === 'running' ? (this.#attempt?.sandbox ?? null) : null;
  }

  /** The tools from the last tools/list of the current run ([] until known). */
  get tools(): Tool[] {
    return this.#tools;
  }

  /** Whether this run listed its tools yet (`tools` is then the server's list). */
  get toolsKnown(): boolean {
    return this.#status.toolCount !== null;
  }

  /**
   * Starts the server (a person's action: also clears backoff and crash-loop). No-op while it is
   * already starting or running.
   */
  start(): void {
    if (this.#disposed) return;
    this.#wanted = true;
    if (this.#status.state === 'starting' || this.#status.state === 'running') return;
    this.#retries.reset();
    this.#status.clearFailure();
    this.#launch(this.#status.state === 'idle');
  }

  /**
   * A request wants the server: starts it if it is idle (no-op in any other state). Unlike start(),
   * backoff and crash-loop counts stay as they are.
   */
  wake(): void {
    if (this.#disposed || this.#status.state !== 'idle') return;
    this.#wanted = true;
    this.#note('starting: a request came in while it was idle');
    this.#launch(true);
  }

  /**
   * A server whose lists are known need not run until it is used: it waits in `idle` (no-op unless it
   * has never started and stop() put it nowhere else).
   */
  park(): void {
    if (this.#disposed || this.#status.state !== 'stopped' || this.#attempt !== null || !this.#lazy) return;
    this.#wanted = false;
    this.#set({ state: 'idle' });
  }

  /**
   * Marks the server in use (an editor's request in flight, a resource subscription) until the
   * returned function is called: it does not go idle meanwhile, and its idle time counts from then.
   */
  hold(): () => void {
    return this.#idle.hold(() => {
      const attempt = this.#attempt;
      if (attempt?.renewWhenFree) {
        attempt.renewWhenFree = false;
        this.#renew(attempt);
      } else this.#idle.arm();
    });
  }

  /** Stops whatever runs now and starts again; resolves once the old process group is gone. */
  async restart(): Promise<void> {
    if (this.#disposed) return;
    this.#wanted = true;
    this.#retries.reset();
    this.#status.clearFailure();
    if (this.#attempt !== null && !this.#attempt.ended) this.#note('restarting');
    this.#launch();
    await this.#drain.settled();
  }

  /** Stops the server and its whole process group; resolves when they are gone. */
  async stop(): Promise<void> {
    this.#wanted = false;
    this.#retries.cancelRetry();
    const attempt = this.#attempt;
    this.#attempt = null;
    this.#client = null;
    this.#link = null;
    if (attempt !== null && !attempt.ended) {
      this.#note('stopping');
      this.#endAttempt(attempt);
    }
    await this.#drain.settled();
    if (this.#attempt === null && this.#status.state !== 'stopped') {
      this.#tools = [];
      this.#set({ state: 'stopped', ...NOT_RUNNING });
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
    if (this.#status.state === 'idle') {
      // Its lists are of the old config: it runs once to learn the new ones.
      this.#wanted = true;
      this.#launch();
      return;
    }
    if (!this.#wanted) return;
    this.#note('config changed; restarting');
    await this.restart();
  }

  /** stop() for good. */
  async dispose(): Promise<void> {
    await this.stop();
    this.#disposed = true;
  }

  /**
   * Starts the server anew (a wake, not a restart: no count, no backoff) as soon as nothing holds it:
   * the bridge asks when the editors that gave it roots have left, so that it has the folders it was
   * started with again, not theirs.
   */
  #renew(attempt: Attempt): void {
    if (!this.#isCurrent(attempt) || this.#status.state !== 'running') return;
    if (this.#idle.held) {
      attempt.renewWhenFree = true;
      return;
    }
    this.#note(
      'the editors that gave it folders (roots) have left: starting it anew with the folders it was started with',
    );
    this.#launch(true);
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
    if (this.#idleMs === 0 && this.#status.state === 'idle') {
      this.#wanted = true;
      this.#note('idle timeout is now 0 (always running): starting');
      this.#launch(true);
    } else {
      this.#idle.clear(); // a shorter timeout must not wait for the longer one's timer
      this.#idle.arm();
    }
  }

  /** No request for the idle timeout: the server stops cleanly and waits for the next one. */
  #goIdle(ms: number): void {
    const attempt = this.#attempt;
    if (attempt === null || attempt.ended || this.#status.state !== 'running' || this.#idle.held) return;
    this.#wanted = false;
    this.#retries.cancelRetry();
    this.#note(`no request for ${formatDuration(ms)}: stopping until the next one (idle)`);
    // Ended while still current, so that the runner lets go of its client and link too: an idle
    // server holds no SDK client, transport or child process objects until it is woken.
    this.#endAttempt(attempt);
    this.#attempt = null;
    this.#set({ state: 'idle', ...NOT_RUNNING });
  }

  // ─── launching ──────────────────────────────────────────────────────────────────────────────

  /** `wake`: started for a request, not restarted (the restart count stays). */
  #launch(wake = false): void {
    this.#retries.cancelRetry();
    const previous = this.#attempt;
    const attempt = new Attempt(this.#clock, this.#host);
    this.#attempt = attempt;
    this.#client = null;
    this.#link = null;
    this.#tools = [];
    if (previous !== null && !previous.ended) this.#endAttempt(previous);
    if (this.#launches++ > 0 && !wake) this.#status.restarts += 1;
    this.#set({ state: 'starting', ...NOT_RUNNING });
    void this.#launcher.run(attempt);
  }

  /** Initialize answered: the server runs (its health pings, idle time and lists start). */
  async #running(attempt: Attempt, link: UpstreamLink, { client, lists }: Initialized): Promise<void> {
    this.#client = client;
    this.#link = link;
    link.holder = () => this.hold();
    link.renew = () => this.#renew(attempt);
    attempt.releaseStart();
    const info = client.getServerVersion();
    this.#status.worked();
    this.#set({ state: 'running', since: this.#clock.now() });
    const answered = link.modern ? 'server/discover' : 'initialize';
    this.#note(`running: ${answered} answered${info ? ` by ${info.name} ${info.version}` : ''}`);
    attempt.cancels.add(this.#retries.countStable());
    // A stateless remote gets no health pings: there is no process of ours to restart and no session
    // to lose, its calls say how it is, and a ping costs a stateless gateway a whole server start
    // (~2,900 a day while idle). Processes of ours and remote sessions are pinged
    // (docs/decisions/server-lifecycle.md).
    if (!link.stateless) startPings(attempt, client, this.#clock, this.#timings);
    this.#idle.arm();
    await lists.fetchAll();
  }

  /** This run's lists, fetched through its client; the runner keeps the tools and tells of both. */
  #listsOf(attempt: Attempt, client: Client): RunLists {
    return new RunLists({
      attempt,
      client,
      server: this.name,
      timeoutMs: this.#timings.initializeTimeoutMs,
      running: () => this.#status.state === 'running',
      knownTools: () => (this.toolsKnown ? this.#tools : undefined),
      toolsListed: (tools) => this.#toolsListed(tools),
      listed: (lists) => this.emit('lists', lists),
    });
  }

  #toolsListed(tools: Tool[]): void {
    this.#tools = tools;
    this.#set({ toolCount: tools.length });
    this.emit('tools', tools);
  }

  /**
   * The sandbox refused the server something: its log says what and how to allow it; so does status,
   * unless what it shows explains more (a refused connection over a file it managed without).
   */
  #refused(attempt: Attempt, refusal: SandboxRefusal): void {
    if (!this.#isCurrent(attempt) || attempt.refusal?.words === refusal.words) return;
    this.#note(refusal.words, 'warn');
    if (outranks(refusal, attempt.refusal)) attempt.refusal = refusal;
    const redacted = { ...refusal, words: this.#log.redact(refusal.words) };
    if (!outranks(redacted, this.#status.refusal)) return;
    this.#status.refusal = redacted;
    this.#emitStatus();
  }

  // ─── endings ────────────────────────────────────────────────────────────────────────────────

  #onExit(attempt: Attempt, info: ExitInfo): void {
    const how = info.signal !== null ? `exited on signal ${info.signal}` : `exited with code ${info.code}`;
    const unexpected = this.#isCurrent(attempt) && !attempt.ended;
    this.#note(how, unexpected ? 'warn' : 'info');
    if (!unexpected) return;
    const during = this.#status.state === 'starting' ? ' before initialize answered' : '';
    // What the sandbox refused explains a crash better than its last words.
    const last = attempt.refusal?.words ?? attempt.stderr?.lastLine;
    this.#fail(attempt, `${how}${during}${last ? `: ${last}` : ''}`);
    if (attempt.refusal) this.#status.errorFromRefusal = true;
  }

  /** A failure that counts toward crash-loop: back off and retry, or give up. */
  #fail(attempt: Attempt, message: string): void {
    if (!this.#endWith(attempt, message)) return;
    const now = this.#clock.now();
    const decision = this.#retries.recordFailure(now);
    if (decision.kind === 'crash-loop') {
      this.#set({ state: 'crash-loop', ...NOT_RUNNING });
      this.#note(
        `crash-loop: ${decision.failuresInWindow} failures in ${formatDuration(this.#timings.crashLoopWindowMs)}; ` +
          `not restarting until you restart it or change its config`,
        'error',
      );
      return;
    }
    const at = now + decision.delayMs;
    this.#set({ state: 'backoff', ...NOT_RUNNING, nextRetryAt: at });
    this.#note(`backoff: next start at ${new Date(at).toISOString()} (attempt ${decision.attempt})`, 'warn');
    this.#retries.retryAfter(decision.delayMs, () => {
      if (this.#attempt === attempt && this.#wanted) this.#launch();
    });
  }

  /** Cannot start, and retrying will not help: wait for the person (start, restart, config change). */
  #toError(attempt: Attempt, message: string): void {
    if (!this.#endWith(attempt, message)) return;
    this.#set({ state: 'error', ...NOT_RUNNING });
    this.#note(`error: ${message}`, 'error');
  }

  /** A remote server that wants an OAuth sign-in: wait for the person (a sign-in restarts it). */
  #toNeedsSignIn(attempt: Attempt, message: string): void {
    if (!this.#endWith(attempt, message)) return;
    this.#set({ state: 'needs-sign-in', ...NOT_RUNNING });
    this.#note(`needs sign-in: ${message}`, 'warn');
  }

  /** Ends the current attempt for `message` (the status's last error); false when it is not current. */
  #endWith(attempt: Attempt, message: string): boolean {
    if (!this.#isCurrent(attempt) || attempt.ended) return false;
    this.#endAttempt(attempt);
    this.#status.lastError = this.#log.redact(message);
    return true;
  }

  /** Marks the attempt over and tears it down in the background; the drain settles when it is gone. */
  #endAttempt(attempt: Attempt): void {
    attempt.ended = true;
    attempt.releaseStart();
    if (this.#attempt === attempt) {
      this.#client = null;
      this.#link = null;
    }
    this.#tools = [];
    this.#drain.track(attempt.teardown(this.#pidFile));
  }

  // ─── helpers ────────────────────────────────────────────────────────────────────────────────

  #note(text: string, level?: NoteLevel): void {
    this.#log.lifecycle(this.#instance === undefined ? text : `[${this.#instance}] ${text}`, level);
  }

  #isCurrent(attempt: Attempt): boolean {
    return this.#attempt === attempt && !attempt.ended;
  }

  #set(patch: StatusPatch): void {
    if (patch.state !== undefined && patch.state !== 'running') this.#idle.clear();
    this.#status.apply(patch);
    this.#emitStatus();
  }

  #emitStatus(): void {
    this.emit('status', this.status);
  }
}
