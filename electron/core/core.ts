import type { Notification, Tool } from '@modelcontextprotocol/sdk/types.js';
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { basename } from 'node:path';
import type { ApprovalResult } from '../../shared/api.ts';
import type { LogLine } from '../../shared/logs.ts';
import { isRemote } from '../../shared/schema/servers.ts';
import type { ServerSourceSchema } from '../../shared/schema/state.ts';
import type { ServerStatus, StatusReport } from '../../shared/status.ts';
import type { SignInInfo, SignInOutcome, SignInRequest, SignInStart } from '../../shared/sign-in.ts';
import type { z } from 'zod';
import { systemClock, type Clock } from './clock.ts';
import { formatProblems, readServersFile, type ConfigProblem } from './config/servers-file.ts';
import { writeSchemaFile } from './config/schema-file.ts';
import { watchFile } from './config/watch.ts';
import { UserError } from './errors.ts';
import type { HomePaths } from './home.ts';
import { prepareLaunch } from './launch-plan.ts';
import type { SignInOpener } from './oauth/open-browser.ts';
import { SignInService } from './oauth/sign-in-service.ts';
import { SIGN_IN_KEYCHAIN_SERVICE } from './oauth/sign-in-store.ts';
import { OsKeychain, type Keychain } from './secrets/keychain.ts';
import { serverEntry, type ServerEntry } from './server-entry.ts';
import { Supervisor } from './supervisor/supervisor.ts';
import type { DesiredServer, LaunchPlan, SupervisorTimings } from './supervisor/types.ts';
import type { UpstreamPeer } from './supervisor/upstream-link.ts';
import { AppStateStore } from './trust/app-state.ts';
import { describeLaunch } from './trust/command-line.ts';
import type { CommandLookup } from './trust/resolve-command.ts';

export interface CoreOptions {
  home: HomePaths;
  keychain: Keychain;
  /** the environment servers inherit and ${env:…} reads */
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  clock?: Clock;
  timings?: Partial<SupervisorTimings>;
  /** PATH used to find commands; on macOS the login shell's (see supervisor/login-path.ts) */
  commandPath?: string | undefined;
  /** watch servers.json and apply edits live (serve mode) */
  watch?: boolean;
  /** where OAuth sign-ins are kept (default: the OS keychain, service `switchboard-oauth`) */
  signInKeychain?: Keychain;
  /**
   * Also shows sign-in pages to the person from here (the desktop app's browser; the fetch mode of
   * tests); without it they only go back to whoever asked (the UI, `switchboard login`).
   */
  signInOpener?: SignInOpener;
}

export interface CoreEvents {
  status: [ServerStatus];
  removed: [string];
  log: [LogLine];
  /** servers.json was (re)read: the config error changed, or servers were added/removed */
  config: [StatusReport];
  /** a running server's tool list, after each tools/list */
  tools: [name: string, tools: Tool[]];
  /** a notification from a running server (list_changed, logging, …), for the bridge */
  notification: [name: string, notification: Notification];
  /** a sign-in to a remote server ended */
  signIn: [SignInOutcome];
}

type ServerSource = z.infer<typeof ServerSourceSchema>;

/**
 * Switchboard's headless heart: servers.json + trust + secrets + supervision. Plain Node; the
 * Electron shell, `switchboard serve` and the CLI are composition roots over it.
 *
 * `load()` alone reads the files (what the CLI does when no instance runs); `start()` also runs the
 * approved servers and follows edits of servers.json.
 */
export class Core {
  readonly events = new EventEmitter<CoreEvents>();
  readonly home: HomePaths;
  readonly state: AppStateStore;
  readonly #keychain: Keychain;
  readonly #env: NodeJS.ProcessEnv;
  readonly #platform: NodeJS.Platform;
  readonly #clock: Clock;
  readonly #timings: Partial<SupervisorTimings>;
  readonly #commandPath: string | undefined;
  readonly #watch: boolean;
  #entries = new Map<string, ServerEntry>();
  #problems: ConfigProblem[] = [];
  #supervisor: Supervisor | undefined;
  /** where pending configs came from (UI, install link, import); hand edits are the default */
  readonly #sources = new Map<string, ServerSource>();
  #watcher: { close(): Promise<void> } | undefined;
  /** OAuth for remote servers: their connections' providers and the sign-ins people start */
  readonly #signIns: SignInService;
  /**
   * The bridge, set once when it is made (before start()): it takes each server connection's
   * messages for editors and answers the servers' requests to their client.
   */
  upstreamPeer: UpstreamPeer | undefined;

  constructor(options: CoreOptions) {
    this.home = options.home;
    this.#keychain = options.keychain;
    this.#env = options.env ?? process.env;
    this.#platform = options.platform ?? process.platform;
    this.#clock = options.clock ?? systemClock;
    this.#timings = options.timings ?? {};
    this.#commandPath = options.commandPath ?? this.#env.PATH;
    this.#watch = options.watch ?? false;
    this.state = new AppStateStore(options.home.stateFile);
    this.#signIns = new SignInService({
      keychain: options.signInKeychain ?? new OsKeychain({ service: SIGN_IN_KEYCHAIN_SERVICE }),
      clock: this.#clock,
      clientMetadataUrl: () => this.state.clientMetadataUrl(),
      open: options.signInOpener,
      onDone: (outcome) => void this.#signInDone(outcome),
    });
  }

  get running(): boolean {
    return this.#supervisor !== undefined;
  }

  /** Reads servers.json. An invalid file keeps the last good servers in force and records the problems. */
  load(): void {
    const result = readServersFile(this.home.serversFile);
    if (!result.ok) {
      this.#problems = result.problems;
      return;
    }
    if (result.text.trim() === '' && this.#entries.size > 0) {
      // An empty file is more likely a save in progress or a mistake than a wish to stop everything.
      this.#problems = [
        {
          message: `the file is empty; the ${this.#entries.size} configured server(s) keep running. To remove them all, write {"mcpServers": {}}`,
          server: undefined,
          path: [],
          line: undefined,
          column: undefined,
        },
      ];
      return;
    }
    this.#problems = [];
    const lookup = (cwd: string | undefined): CommandLookup => ({
      path: this.#commandPath,
      pathExt: this.#env.PATHEXT,
      cwd: cwd ?? this.home.root,
      platform: this.#platform,
    });
    this.#entries = new Map(
      [...result.servers].map(([name, config]) => [name, serverEntry(name, config, lookup)]),
    );
    // A server removed from a valid file loses its approval: adding it back asks again. A missing or
    // empty file forgets nothing (more likely a mistake or a save in progress than a wish).
    if (result.text.trim() !== '') this.state.forgetAllExcept(new Set(this.#entries.keys()));
  }

  async start(): Promise<void> {
    if (this.#supervisor) return;
    mkdirSync(this.home.root, { recursive: true });
    writeSchemaFile(this.home.serversFile);
    this.#supervisor = new Supervisor({
      clock: this.#clock,
      timings: this.#timings,
      runDir: this.home.run,
      logsDir: this.home.logs,
      peer: () => this.upstreamPeer,
    });
    this.#supervisor.on('status', (status) =>
      this.events.emit('status', this.#withTrust(status.name) ?? status),
    );
    this.#supervisor.on('log', (line) => this.events.emit('log', line));
    this.#supervisor.on('tools', (name, tools) => this.events.emit('tools', name, tools));
    this.#supervisor.on('notification', (name, n) => this.events.emit('notification', name, n));
    await this.#supervisor.reapOrphans();
    this.load();
    // Watch first, then start servers: start() (and so "bridge ready") does not wait behind spawning
    // a first wave of servers that then compete with it for the CPU; servers come up right after.
    if (this.#watch) this.#watcher = await watchFile(this.home.serversFile, () => this.reload());
    this.#apply();
  }

  /** Re-reads servers.json and applies it: only servers whose fingerprint changed restart. */
  reload(): void {
    const before = new Set(this.#entries.keys());
    this.load();
    for (const name of before) if (!this.#entries.has(name)) this.events.emit('removed', name);
    this.#apply();
    this.events.emit('config', this.status());
  }

  /** Records where a server's current config came from, to show on its approval. */
  noteSource(name: string, source: ServerSource): void {
    this.#sources.set(name, source);
  }

  sourceOf(name: string): ServerSource {
    return this.#sources.get(name) ?? 'hand-edit';
  }

  forgetSource(name: string): void {
    this.#sources.delete(name);
  }

  configError(): string | null {
    return this.#problems.length ? formatProblems(this.#problems, basename(this.home.serversFile)) : null;
  }

  configProblems(): readonly ConfigProblem[] {
    return this.#problems;
  }

  entries(): ReadonlyMap<string, ServerEntry> {
    return this.#entries;
  }

  status(): StatusReport {
    return {
      live: this.running,
      configError: this.configError(),
      servers: [...this.#entries.keys()].map((name) => this.#withTrust(name)).filter((s) => s !== undefined),
    };
  }

  /** Approves the server's exact current launch config and starts it if Switchboard is running. */
  approve(name: string, source: ServerSource = this.sourceOf(name)): ApprovalResult {
    const entry = this.#entry(name);
    if (entry.refusal) throw new UserError(`server "${name}" cannot be approved: ${entry.refusal}`);
    this.state.approve(name, entry.fingerprint, entry.launch, source, this.#clock.now());
    this.#apply();
    return { name, fingerprint: entry.fingerprint, launch: describeLaunch(entry.launch) };
  }

  /** Keeps the server from running until its config changes. */
  deny(name: string): void {
    const entry = this.#entry(name);
    this.state.deny(name, entry.fingerprint, this.#clock.now());
    this.#apply();
  }

  async startServer(name: string): Promise<void> {
    this.#requireRunnable(name);
    await this.#requireSupervisor().start(name);
  }

  async stopServer(name: string): Promise<void> {
    this.#entry(name);
    await this.#requireSupervisor().stop(name);
  }

  async restartServer(name: string): Promise<void> {
    this.#requireRunnable(name);
    await this.#requireSupervisor().restart(name);
  }

  logs(name: string, limit = 500): LogLine[] {
    this.#entry(name);
    return this.#supervisor?.logs(name, limit) ?? [];
  }

  supervisor(): Supervisor | undefined {
    return this.#supervisor;
  }

  // ─── OAuth sign-in (remote servers) ─────────────────────────────────────────────────────────────

  /**
   * Starts the person's sign-in to a remote server: resolves with the page to open in their browser
   * (or at once when the tokens Switchboard holds still work). When it ends, `signIn` is emitted and
   * the server restarts with its new tokens.
   */
  async signIn(name: string, request: SignInRequest = {}): Promise<SignInStart> {
    return this.#signIns.start(name, await this.#remotePlan(name), request);
  }

  /** Forgets a remote server's sign-in (tokens and client); it then waits for a new one. */
  async signOut(name: string): Promise<boolean> {
    const entry = this.#entry(name);
    if (!isRemote(entry.config)) throw new UserError(`"${name}" is a local server: it has no sign-in`);
    const had = await this.#signIns.forget(name);
    const state = this.#supervisor?.statusOf(name)?.state;
    if (state && state !== 'stopped') await this.#supervisor?.restart(name);
    return had;
  }

  /** What Switchboard holds of a remote server's sign-in (never the tokens). */
  async signInInfo(name: string): Promise<SignInInfo> {
    const entry = this.#entry(name);
    // Its URL may hold a ${secret:…} that cannot be read now: then nothing can be said about it.
    const url = isRemote(entry.config)
      ? await this.#launchPlan(entry).then(
          (plan) => plan.url,
          () => undefined,
        )
      : undefined;
    return this.#signIns.info(name, url);
  }

  async #signInDone(outcome: SignInOutcome): Promise<void> {
    if (outcome.result === 'signed-in') {
      // Its connection picks the new tokens up from a fresh start.
      const state = this.#supervisor?.statusOf(outcome.name)?.state;
      if (state && state !== 'stopped') await this.#supervisor?.restart(outcome.name).catch(() => {});
    }
    this.events.emit('signIn', outcome);
  }

  /** The resolved launch of an approved, enabled remote server, for signing in to it. */
  async #remotePlan(name: string): Promise<Extract<LaunchPlan, { transport: 'http' }>> {
    const entry = this.#entry(name);
    if (!isRemote(entry.config))
      throw new UserError(`"${name}" is a local server: only remote (url) servers sign in`);
    const status = this.#withTrust(name);
    if (status?.state === 'pending-approval' || status?.state === 'denied') {
      throw new UserError(`"${name}" is not approved, and signing in connects to it`, {
        hint: `approve it first (switchboard approve ${name})`,
      });
    }
    if (status?.state === 'disabled')
      throw new UserError(`"${name}" is disabled`, { hint: 'set "enabled": true in servers.json first' });
    return this.#launchPlan(entry);
  }

  async #launchPlan(entry: ServerEntry): Promise<Extract<LaunchPlan, { transport: 'http' }>> {
    const plan = await prepareLaunch(entry, this.#launchDeps());
    if (plan.transport !== 'http') throw new Error(`"${entry.name}" is not a remote server`);
    return plan;
  }

  #launchDeps() {
    return {
      keychain: this.#keychain,
      env: this.#env,
      commandPath: this.#commandPath,
      platform: this.#platform,
      home: this.home.root,
    };
  }

  /** Stops every server (no orphans) and the file watcher. */
  async shutdown(): Promise<void> {
    await this.#signIns.closeAll();
    await this.#watcher?.close();
    this.#watcher = undefined;
    const supervisor = this.#supervisor;
    this.#supervisor = undefined;
    await supervisor?.shutdown();
  }

  #apply(): void {
    if (!this.#supervisor) return;
    const desired: DesiredServer[] = [];
    for (const entry of this.#entries.values()) {
      if (!entry.config.enabled || entry.refusal) continue;
      if (this.state.decision(entry.name, entry.fingerprint) !== 'approved') continue;
      desired.push({
        name: entry.name,
        fingerprint: entry.fingerprint,
        transport: isRemote(entry.config) ? 'http' : 'stdio',
        prepare: async () =>
          this.#signIns.withAuth(entry.name, await prepareLaunch(entry, this.#launchDeps())),
      });
    }
    this.#supervisor.reconcile(desired);
    // Servers that left the desired set but are still configured changed state (pending, denied, …).
    for (const entry of this.#entries.values()) {
      if (!desired.some((d) => d.name === entry.name)) {
        const status = this.#withTrust(entry.name);
        if (status) this.events.emit('status', status);
      }
    }
  }

  /** A server's status as a person should see it: trust and config decide before the supervisor does. */
  #withTrust(name: string): ServerStatus | undefined {
    const entry = this.#entries.get(name);
    if (!entry) return undefined;
    const base: ServerStatus = {
      name,
      state: 'stopped',
      transport: entry.launch.transport,
      pid: null,
      restarts: 0,
      lastError: null,
      since: null,
      nextRetryAt: null,
      toolCount: null,
      fingerprint: entry.fingerprint,
    };
    if (!entry.config.enabled) return { ...base, state: 'disabled' };
    if (entry.refusal) return { ...base, state: 'error', lastError: entry.refusal };
    const decision = this.state.decision(name, entry.fingerprint);
    if (decision === 'denied') return { ...base, state: 'denied' };
    if (decision === 'pending') return { ...base, state: 'pending-approval' };
    const live = this.#supervisor?.statusOf(name);
    return live ? { ...live, fingerprint: entry.fingerprint } : base;
  }

  #entry(name: string): ServerEntry {
    const entry = this.#entries.get(name);
    if (!entry && this.#problems.length > 0) {
      // The server may well be in the file; the file just cannot be read right now.
      throw new UserError(`servers.json has errors, so server "${name}" cannot be read from it`, {
        hint: `fix ${this.home.serversFile} first:\n${this.configError() ?? ''}`,
      });
    }
    if (!entry) {
      const known = [...this.#entries.keys()];
      throw new UserError(`no server named "${name}" in ${this.home.serversFile}`, {
        hint: known.length
          ? `configured servers: ${known.join(', ')}`
          : 'add one with: switchboard add NAME -- COMMAND ARGS…',
      });
    }
    return entry;
  }

  #requireRunnable(name: string): void {
    const status = this.#withTrust(name);
    if (status?.state === 'pending-approval') {
      throw new UserError(`server "${name}" is waiting for approval`, {
        hint: `run: switchboard approve ${name}`,
      });
    }
    if (status?.state === 'denied') {
      throw new UserError(`server "${name}" was denied`, {
        hint: `approve it with: switchboard approve ${name}`,
      });
    }
    if (status?.state === 'disabled') {
      throw new UserError(`server "${name}" is disabled`, { hint: 'set "enabled": true in servers.json' });
    }
    if (status?.state === 'error' && this.#entries.get(name)?.refusal) {
      throw new UserError(`server "${name}" cannot start: ${status.lastError}`);
    }
  }

  #requireSupervisor(): Supervisor {
    if (!this.#supervisor) {
      throw new UserError('Switchboard is not running', { hint: 'start it with: switchboard serve' });
    }
    return this.#supervisor;
  }
}
