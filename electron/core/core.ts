import type { Notification, Tool } from '@modelcontextprotocol/sdk/types.js';
import { EventEmitter } from 'node:events';
import { mkdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { ApprovalPreview, ApprovalResult } from '../../shared/api.ts';
import { displayText } from '../../shared/display-text.ts';
import type { LogLine } from '../../shared/logs.ts';
import { isRemote } from '../../shared/schema/servers.ts';
import type { ServerSourceSchema } from '../../shared/schema/state.ts';
import type { ServerStatus, StatusReport } from '../../shared/status.ts';
import type { z } from 'zod';
import { systemClock, type Clock } from './clock.ts';
import { formatProblems, readServersFile, type ConfigProblem } from './config/servers-file.ts';
import { writeSchemaFile } from './config/schema-file.ts';
import { watchFile } from './config/watch.ts';
import { StaleApprovalError, UserError } from './errors.ts';
import type { HomePaths } from './home.ts';
import { CommandChangedError, prepareLaunch } from './launch-plan.ts';
import type { Keychain } from './secrets/keychain.ts';
import { serverEntry, type ServerEntry } from './server-entry.ts';
import { Supervisor } from './supervisor/supervisor.ts';
import type { DesiredServer, SupervisorTimings } from './supervisor/types.ts';
import type { UpstreamPeer } from './supervisor/upstream-link.ts';
import { AppStateStore } from './trust/app-state.ts';
import { describeLaunch, describeReferences } from './trust/command-line.ts';
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
  /** servers.json's text as last read, to tell whether it changed since */
  #loadedText: string | undefined;
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
  }

  get running(): boolean {
    return this.#supervisor !== undefined;
  }

  /** Reads servers.json. An invalid file keeps the last good servers in force and records the problems. */
  load(): void {
    const result = readServersFile(this.home.serversFile);
    this.#loadedText = result.text;
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
    this.#entries = new Map(
      [...result.servers].map(([name, config]) => [name, serverEntry(name, config, this.#lookup)]),
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

  /** Shown to people (CLI, UI, tray): characters that could hide part of it are escaped. */
  configError(): string | null {
    return this.#problems.length
      ? displayText(formatProblems(this.#problems, basename(this.home.serversFile)))
      : null;
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

  /**
   * What approving the server would allow now, as a person is to be shown it: the exact launch lines,
   * the secrets and env it passes on, and the fingerprint an approval of exactly this must carry.
   */
  review(name: string): ApprovalPreview {
    const entry = this.#current(name);
    if (entry.refusal) throw new UserError(`server "${name}" cannot be approved: ${entry.refusal}`);
    return {
      name,
      state: this.#withTrust(name)?.state ?? 'pending-approval',
      transport: entry.launch.transport,
      source: this.sourceOf(name),
      fingerprint: entry.fingerprint,
      lines: describeLaunch(entry.launch),
      references: describeReferences(entry.launch),
    };
  }

  /**
   * Approves the server's launch config if it is still the one shown (`fingerprint`, from review()
   * or the approvals list), and starts it if Switchboard is running. A config that changed since it
   * was shown is refused (StaleApprovalError): the person approves what they saw, never what came after.
   */
  approve(name: string, fingerprint: string, source: ServerSource = this.sourceOf(name)): ApprovalResult {
    this.#catchUp();
    const entry = this.#current(name);
    if (entry.refusal) throw new UserError(`server "${name}" cannot be approved: ${entry.refusal}`);
    if (entry.fingerprint !== fingerprint) throw new StaleApprovalError(name);
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

  /** Stops every server (no orphans) and the file watcher. */
  async shutdown(): Promise<void> {
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
        prepare: () =>
          prepareLaunch(entry, {
            keychain: this.#keychain,
            env: this.#env,
            commandPath: this.#commandPath,
            platform: this.#platform,
            home: this.home.root,
          }).catch((err: unknown) => {
            // Another program than the approved one would run (PATH changed, a symlink retargeted):
            // the server goes back to waiting for approval, showing the program it would run now.
            if (err instanceof CommandChangedError) setImmediate(() => this.#recheckCommands());
            throw err;
          }),
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

  /**
   * Reads servers.json again if it changed since it was last read, before a trust decision: an edit
   * the file watcher has not delivered yet (or a CLI that showed the config a while ago) must not
   * slip past the fingerprint check.
   */
  #catchUp(): void {
    let text: string;
    try {
      text = readFileSync(this.home.serversFile, 'utf8');
    } catch {
      text = '';
    }
    if (text === this.#loadedText) return;
    if (this.running) this.reload();
    else this.load();
  }

  /** How commands are found for servers (PATH, PATHEXT, platform); the catalog finds runtimes so too. */
  commandLookup(cwd?: string): CommandLookup {
    return this.#lookup(cwd);
  }

  readonly #lookup = (cwd: string | undefined): CommandLookup => ({
    path: this.#commandPath,
    pathExt: this.#env.PATHEXT,
    cwd: cwd ?? this.home.root,
    platform: this.#platform,
  });

  /**
   * The server's entry with its command looked up again: PATH or a symlink may point elsewhere since
   * servers.json was read, and an approval must cover the program that would run now.
   */
  #current(name: string): ServerEntry {
    const entry = this.#entry(name);
    const now = this.#lookedUpAgain(entry);
    if (!now) return entry;
    this.#entries.set(name, now);
    this.#apply();
    return now;
  }

  /** Looks every local server's command up again; applies what changed (see #current). */
  #recheckCommands(): void {
    let changed = false;
    for (const entry of this.#entries.values()) {
      const now = this.#lookedUpAgain(entry);
      if (!now) continue;
      this.#entries.set(entry.name, now);
      changed = true;
    }
    if (changed) this.#apply();
  }

  /** The entry with its command looked up now, or undefined when that changes nothing. */
  #lookedUpAgain(entry: ServerEntry): ServerEntry | undefined {
    if (isRemote(entry.config)) return undefined;
    const now = serverEntry(entry.name, entry.config, this.#lookup);
    return now.fingerprint === entry.fingerprint ? undefined : now;
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
    if (entry.refusal) return { ...base, state: 'error', lastError: displayText(entry.refusal) };
    const decision = this.state.decision(name, entry.fingerprint);
    if (decision === 'denied') return { ...base, state: 'denied' };
    if (decision === 'pending') return { ...base, state: 'pending-approval' };
    const live = this.#supervisor?.statusOf(name);
    // lastError is shown to people and may quote a command or a server's own words.
    return live
      ? {
          ...live,
          lastError: live.lastError === null ? null : displayText(live.lastError),
          fingerprint: entry.fingerprint,
        }
      : base;
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
    const refusal = this.#entries.get(name)?.refusal;
    if (status?.state === 'error' && refusal) {
      throw new UserError(`server "${name}" cannot start: ${refusal}`);
    }
  }

  #requireSupervisor(): Supervisor {
    if (!this.#supervisor) {
      throw new UserError('Switchboard is not running', { hint: 'start it with: switchboard serve' });
    }
    return this.#supervisor;
  }
}
