import type { EventEmitter } from 'node:events';
import { DEFAULT_IDLE_TIMEOUT_S, isRemote } from '../../../shared/schema/servers.ts';
import type { ServerStatus, StatusReport } from '../../../shared/status.ts';
import type { Clock } from '../clock.ts';
import { writeSchemaFile } from '../config/schema-file.ts';
import { watchFile } from '../config/watch.ts';
import type { CoreEvents } from '../core-events.ts';
import { UserError } from '../errors.ts';
import { makePrivateDir } from '../fs/private-home.ts';
import type { HomePaths } from '../home.ts';
import { CommandChangedError, prepareLaunch, type LaunchDeps } from '../launch-plan.ts';
import type { ListStore } from '../lists/list-store.ts';
import type { ServerLists } from '../lists/server-lists.ts';
import type { ServerEntry } from '../server-entry.ts';
import { RuntimeChangedError } from '../store/npm-package.ts';
import type { PackageApprovals } from '../store/package-approvals.ts';
import type { StoredLaunch } from '../store/package-service.ts';
import { StoreChangedError } from '../store/package-store.ts';
import { Supervisor } from '../supervisor/supervisor.ts';
import type { DesiredServer, LaunchPlan, SupervisorTimings } from '../supervisor/types.ts';
import type { UpstreamPeer } from '../supervisor/upstream-link.ts';
import type { AppStateStore } from '../trust/app-state.ts';

type RemotePlan = Extract<LaunchPlan, { transport: 'http' }>;

export interface LifecycleOptions {
  home: HomePaths;
  clock: Clock;
  timings: Partial<SupervisorTimings>;
  /** watch servers.json and apply edits live (serve mode) */
  watch: boolean;
  state: Pick<AppStateStore, 'decision' | 'stopped' | 'setStopped' | 'settings' | 'setIdleTimeout'>;
  events: Pick<EventEmitter<CoreEvents>, 'emit'>;
  lists: Pick<ListStore, 'get' | 'has' | 'put'>;
  launch: LaunchDeps;
  servers: {
    load(): void;
    /** whether servers.json differs from what load() last read */
    changedSinceLoad(): boolean;
    entries(): ReadonlyMap<string, ServerEntry>;
    entry(name: string): ServerEntry;
    recheckCommands(): void;
  };
  statuses: {
    of(name: string): ServerStatus | undefined;
    report(): StatusReport;
    requireRunnable(name: string): void;
  };
  packageTrust: Pick<PackageApprovals, 'blocked' | 'markChanged'>;
  store: {
    storedLaunch(entry: ServerEntry, note?: (text: string) => void): Promise<StoredLaunch | undefined>;
  };
  sandbox: { start(): void; dispose(): Promise<void> };
  tools: { toolsChanged(name: string): void; invalidate(name: string): void };
  signIns: {
    authFor(name: string, plan: RemotePlan): Promise<RemotePlan['auth']>;
    closeAll(): Promise<void>;
  };
  updates: { start(): void; stop(): void };
}

/**
 * The supervisor's side of the core: runs the approved, enabled servers (and only those), follows
 * servers.json while running, starts, stops and restarts one on request, and keeps idle servers'
 * lists and timeouts.
 */
export class Lifecycle {
  readonly #o: LifecycleOptions;
  #supervisor: Supervisor | undefined;
  #watcher: { close(): Promise<void> } | undefined;
  /**
   * The bridge, set once when it is made (before start()): it takes each server connection's
   * messages for editors and answers the servers' requests to their client.
   */
  upstreamPeer: UpstreamPeer | undefined;

  constructor(options: LifecycleOptions) {
    this.#o = options;
  }

  get running(): boolean {
    return this.#supervisor !== undefined;
  }

  supervisor(): Supervisor | undefined {
    return this.#supervisor;
  }

  async start(): Promise<void> {
    if (this.#supervisor) return;
    const { home, events, tools } = this.#o;
    makePrivateDir(home.root);
    this.#o.sandbox.start();
    writeSchemaFile(home.serversFile);
    this.#supervisor = new Supervisor({
      clock: this.#o.clock,
      timings: this.#o.timings,
      runDir: home.run,
      logsDir: home.logs,
      peer: () => this.upstreamPeer,
    });
    this.#supervisor.on('status', (status) =>
      events.emit('status', this.#o.statuses.of(status.name) ?? status),
    );
    this.#supervisor.on('log', (line) => events.emit('log', line));
    this.#supervisor.on('tools', (name, list) => {
      tools.toolsChanged(name);
      events.emit('tools', name, list);
    });
    this.#supervisor.on('lists', (name, fingerprint, lists) => {
      this.#o.lists.put(name, fingerprint, lists);
      tools.invalidate(name); // its prompts (pinned too) may be new
      tools.toolsChanged(name);
      events.emit('lists', name);
    });
    this.#supervisor.on('notification', (name, n) => events.emit('notification', name, n));
    await this.#supervisor.reapOrphans();
    this.#o.servers.load();
    // Watch first, then start servers: start() (and so "bridge ready") does not wait behind spawning
    // a first wave of servers that then compete with it for the CPU; servers come up right after.
    if (this.#o.watch) {
      this.#watcher = await watchFile(home.serversFile, () => this.reload());
      // An edit made since the read above and before the watcher was ready raised no event (seconds
      // under load at start): read once more. A file unchanged since reloads nothing.
      if (this.#o.servers.changedSinceLoad()) this.reload();
    }
    this.apply();
    this.#o.updates.start();
    // Tools held back in an earlier run are still held: their servers say so (after "ready").
    setImmediate(() => {
      for (const name of this.#o.servers.entries().keys()) tools.toolsChanged(name);
    });
  }

  /** Re-reads servers.json and applies it: only servers whose fingerprint changed restart. */
  reload(): void {
    const { servers, events } = this.#o;
    const before = new Set(servers.entries().keys());
    servers.load();
    for (const name of before) if (!servers.entries().has(name)) events.emit('removed', name);
    this.apply();
    events.emit('config', this.#o.statuses.report());
  }

  /** Stops every server (no orphans) and the file watcher. */
  async shutdown(): Promise<void> {
    if (this.#supervisor) this.#o.events.emit('stopping', this.#o.clock.now());
    this.#o.updates.stop();
    await this.#o.signIns.closeAll();
    await this.#watcher?.close();
    this.#watcher = undefined;
    const supervisor = this.#supervisor;
    this.#supervisor = undefined;
    await supervisor?.shutdown();
    await this.#o.sandbox.dispose();
  }

  /** Makes the running set match the approved, enabled servers (nothing while not started). */
  apply(): void {
    if (!this.#supervisor) return;
    const { state, servers, packageTrust } = this.#o;
    const desired: DesiredServer[] = [];
    const idleDefault = this.idleTimeoutDefault();
    const stopped = state.stopped();
    for (const entry of servers.entries().values()) {
      if (!entry.config.enabled || entry.refusal) continue;
      if (state.decision(entry.name, entry.fingerprint) !== 'approved') continue;
      if (packageTrust.blocked(entry)) continue;
      desired.push({
        name: entry.name,
        fingerprint: entry.fingerprint,
        transport: isRemote(entry.config) ? 'http' : 'stdio',
        idleTimeoutMs: (entry.config.idleTimeout ?? idleDefault) * 1000,
        listsKnown: this.#o.lists.has(entry.name, entry.fingerprint),
        stopped: stopped.has(entry.name),
        prepare: (note) => this.#prepare(entry, note),
      });
    }
    void this.#supervisor.reconcile(desired);
    // Servers that left the desired set but are still configured changed state (pending, denied, …).
    for (const entry of servers.entries().values()) {
      if (!desired.some((d) => d.name === entry.name)) {
        const status = this.#o.statuses.of(entry.name);
        if (status) this.#o.events.emit('status', status);
      }
    }
  }

  async #prepare(entry: ServerEntry, note?: (text: string) => void): Promise<LaunchPlan> {
    const plan = await this.#o.store
      .storedLaunch(entry, note)
      .then((stored) => prepareLaunch(entry, this.#o.launch, stored))
      .catch((err: unknown) => {
        // Another program than the approved one would run (PATH changed, a symlink retargeted):
        // the server goes back to waiting for approval, showing the program it would run now.
        if (err instanceof CommandChangedError || err instanceof RuntimeChangedError)
          setImmediate(() => this.#o.servers.recheckCommands());
        // Its install changed on disk: it waits for a new approval, which installs it afresh.
        if (err instanceof StoreChangedError) {
          this.#o.packageTrust.markChanged(entry.name, err.message);
          setImmediate(() => this.apply());
        }
        throw err;
      });
    if (plan.transport !== 'http') return plan;
    const auth = await this.#o.signIns.authFor(entry.name, plan);
    return auth ? { ...plan, auth } : plan;
  }

  async startServer(name: string): Promise<void> {
    this.#o.statuses.requireRunnable(name);
    const supervisor = this.#requireSupervisor();
    this.#o.state.setStopped(name, undefined);
    await supervisor.start(name);
  }

  /** Stops the server until the person starts it again: kept in state.json, so a restart keeps it. */
  async stopServer(name: string): Promise<void> {
    this.#o.servers.entry(name);
    const supervisor = this.#requireSupervisor();
    if (supervisor.runner(name)) this.#o.state.setStopped(name, this.#o.clock.now());
    await supervisor.stop(name);
  }

  async restartServer(name: string): Promise<void> {
    this.#o.statuses.requireRunnable(name);
    const supervisor = this.#requireSupervisor();
    this.#o.state.setStopped(name, undefined);
    await supervisor.restart(name);
  }

  /**
   * What the server said about itself on its last run under its current config (initialize answer and
   * lists), whether or not it runs now; undefined when it has not run since it was approved.
   */
  lists(name: string): ServerLists | undefined {
    const entry = this.#o.servers.entries().get(name);
    return entry ? this.#o.lists.get(name, entry.fingerprint) : undefined;
  }

  /** The idle timeout of servers that set none (seconds; 0: always running). */
  idleTimeoutDefault(): number {
    return this.#o.state.settings().idleTimeout ?? DEFAULT_IDLE_TIMEOUT_S;
  }

  /** Changes it (undefined: back to the built-in default); running servers follow at once. */
  setIdleTimeoutDefault(seconds: number | undefined): void {
    this.#o.state.setIdleTimeout(seconds);
    this.apply();
  }

  #requireSupervisor(): Supervisor {
    if (!this.#supervisor) {
      throw new UserError('Switchboard is not running', { hint: 'start it with: switchboard serve' });
    }
    return this.#supervisor;
  }
}
