import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ApprovalPreview, ApprovalResult, ToolChange, ToolReview } from '../../shared/api.ts';
import { displayText } from '../../shared/display-text.ts';
import type { LogLine } from '../../shared/logs.ts';
import { DEFAULT_IDLE_TIMEOUT_S, isRemote } from '../../shared/schema/servers.ts';
import type { ServerSourceSchema } from '../../shared/schema/state.ts';
import type { ServerStatus, StatusReport } from '../../shared/status.ts';
import type { SecretInfo, SecretsResponse } from '../../shared/ui-api.ts';
import type { SignInInfo, SignInOutcome, SignInRequest, SignInStart } from '../../shared/sign-in.ts';
import type { OutdatedEntry, PackagePin, StorePruneResult, StoreUsage } from '../../shared/store.ts';
import { compileToolFilter, offeredCount } from '../../shared/tool-filter.ts';
import type { z } from 'zod';
import { CallActivity } from './activity/call-activity.ts';
import type { CoreEvents } from './core-events.ts';
import { systemClock, type Clock } from './clock.ts';
import { formatProblem, readServersFile, type ConfigProblem } from './config/servers-file.ts';
import { writeSchemaFile } from './config/schema-file.ts';
import { watchFile } from './config/watch.ts';
import { describeError, StaleApprovalError, StaleToolChangeError, UserError } from './errors.ts';
import { serverDataDir, type HomePaths } from './home.ts';
import { CommandChangedError, prepareLaunch } from './launch-plan.ts';
import { ListStore } from './lists/list-store.ts';
import type { ServerLists } from './lists/server-lists.ts';
import type { SignInOpener } from './oauth/open-browser.ts';
import { makeHomePrivate, makePrivateDir } from './fs/private-home.ts';
import type { SignInService, SignInServiceOptions } from './oauth/sign-in-service.ts';
import type { SandboxPolicy } from './sandbox/policy.ts';
import type { Resolve } from './sandbox/network-gate.ts';
import { Sandboxes, type Program } from './sandbox/sandboxes.ts';
import { serverPolicy } from './sandbox/server-policy.ts';
import { sandboxSupportFor, type SandboxSupport } from './sandbox/support.ts';
import { describeAccess, summarizeAccess } from './sandbox/words.ts';
import { SIGN_IN_KEYCHAIN_SERVICE } from './oauth/sign-in-store.ts';
import { OsKeychain, type Keychain } from './secrets/keychain.ts';
import { listReferences } from './secrets/references.ts';
import { serverEntry, type ServerEntry } from './server-entry.ts';
import { RuntimeChangedError } from './store/npm-package.ts';
import { PackageApprovals } from './store/package-approvals.ts';
import { PackageService, type StoredLaunch } from './store/package-service.ts';
import { PackageStore, StoreChangedError } from './store/package-store.ts';
import { UpdateChecks } from './store/update-checks.ts';
import { describeBaseEnvironment } from './supervisor/base-env.ts';
import { Supervisor } from './supervisor/supervisor.ts';
import type { DesiredServer, LaunchPlan, SupervisorTimings } from './supervisor/types.ts';
import type { UpstreamPeer } from './supervisor/upstream-link.ts';
import { AppStateStore } from './trust/app-state.ts';
import { configHash } from './trust/fingerprint.ts';
import { recordSource } from './trust/source-record.ts';
import { describeLaunch, describeReferences } from './trust/command-line.ts';
import type { CommandLookup } from './trust/resolve-command.ts';
import { startBlockers } from './trust/start-blockers.ts';
import { ToolPins, type ServerSurface, type ToolGate } from './trust/tool-pins.ts';
import { compareNames } from './text-order.ts';
import { inOrder } from './store/in-order.ts';

/** How many servers `outdated` checks at a time: each runs npm (or pip, or a container tool). */
const OUTDATED_AT_ONCE = 4;

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
  /** name lookups of sandboxed servers' network proxies (default: the OS resolver; tests map names) */
  networkLookup?: Resolve;
  /**
   * Each editor's settings file (the editors' registry, which sits above the core): Switchboard writes
   * bridge tokens there, so every sandbox hides them whatever it grants.
   */
  tokenFiles?: readonly string[];
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
  /** each server's lists from its last run, so idle servers answer list requests (home cache) */
  readonly #lists: ListStore;
  readonly #pins: ToolPins;
  /** each server's tool gate, for the tools it was computed from (recomputed when they change) */
  readonly #gates = new Map<string, { tools: readonly Tool[]; approvedAt: number; gate: ToolGate }>();
  /** the change id last announced per server (toolChange events fire when it differs) */
  readonly #announced = new Map<string, string | null>();
  /** editors' tool calls through the bridge, per server, tool and editor (the last hour) */
  readonly activity: CallActivity;
  /**
   * OAuth for remote servers (their connections' providers, the sign-ins people start), loaded at its
   * first use (a remote server starting, a sign-in): a serve of local servers never carries the SDK's
   * auth client and our sign-in code (docs/decisions.md, "What serve loads only when it is used").
   */
  #signIns: Promise<SignInService> | undefined;
  readonly #signInOptions: SignInServiceOptions;
  /** the package store (`<home>/store`) and the packages offered for approval */
  readonly packages: PackageService;
  readonly #packageTrust: PackageApprovals;
  /** newer releases of approved packages: checked when asked, and daily once started */
  readonly updates: UpdateChecks;
  /**
   * The bridge, set once when it is made (before start()): it takes each server connection's
   * messages for editors and answers the servers' requests to their client.
   */
  upstreamPeer: UpstreamPeer | undefined;
  /** servers' OS sandboxes and their network proxies (made at start) */
  #sandboxes: Sandboxes | undefined;
  /** each entry's sandbox as shown (status, approval), computed once per entry */
  readonly #policies = new WeakMap<ServerEntry, SandboxPolicy>();
  readonly #networkLookup: Resolve | undefined;
  readonly #tokenFiles: readonly string[];

  constructor(options: CoreOptions) {
    this.home = options.home;
    // Before anything is written there: the home is this user's alone (fs/private-home.ts).
    makeHomePrivate(options.home, options.platform ?? process.platform);
    this.#keychain = options.keychain;
    this.#env = options.env ?? process.env;
    this.#platform = options.platform ?? process.platform;
    this.#clock = options.clock ?? systemClock;
    this.#timings = options.timings ?? {};
    this.#commandPath = options.commandPath ?? this.#env.PATH;
    this.#watch = options.watch ?? false;
    this.#networkLookup = options.networkLookup;
    this.#tokenFiles = options.tokenFiles ?? [];
    this.state = new AppStateStore(options.home.stateFile);
    this.#lists = new ListStore(join(options.home.cache, 'lists'), this.#clock);
    this.#pins = new ToolPins(options.home.pins);
    this.activity = new CallActivity(this.#clock);
    this.packages = new PackageService(new PackageStore(options.home.store), this.#env, this.#platform);
    this.#packageTrust = new PackageApprovals(this.packages);
    this.updates = new UpdateChecks({
      clock: this.#clock,
      file: join(options.home.cache, 'updates.json'),
      outdated: () => this.outdated(),
      pinnedLock: (name) => this.#pinnedLock(name),
      packages: () =>
        [...this.#entries.keys()].filter((name) => {
          const kind = this.#entries.get(name)?.launch.package?.kind;
          return kind !== undefined && kind !== 'mcpb' && this.#pinnedLock(name) !== undefined;
        }).length,
      daily: () => this.state.updateChecks(),
      changed: () => this.events.emit('updates'),
    });
    this.#signInOptions = {
      keychain: options.signInKeychain ?? new OsKeychain({ service: SIGN_IN_KEYCHAIN_SERVICE }),
      clock: this.#clock,
      clientMetadataUrl: () => this.state.clientMetadataUrl(),
      open: options.signInOpener,
      onDone: (outcome) => void this.#signInDone(outcome),
    };
  }

  #signInService(): Promise<SignInService> {
    this.#signIns ??= import('./oauth/sign-in-service.ts').then(
      ({ SignInService }) => new SignInService(this.#signInOptions),
    );
    return this.#signIns;
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
    // The pins of approved package runs; an unreadable state.json pins nothing (every trust decision
    // then says what is wrong with it).
    let approvals: ReturnType<AppStateStore['read']>['approvals'] = {};
    try {
      approvals = this.state.read().approvals;
    } catch {
      approvals = {};
    }
    this.#entries = new Map(
      [...result.servers].map(([name, config]) => [
        name,
        serverEntry(name, config, this.#lookup, approvals[name]?.config, this.home.store),
      ]),
    );
    // A server removed from a valid file loses its approval: adding it back asks again. A missing or
    // empty file forgets nothing (more likely a mistake or a save in progress than a wish).
    if (result.text.trim() !== '') {
      const forgotten = this.state.forgetAllExcept(new Set(this.#entries.keys()));
      for (const name of forgotten) this.#forgetServer(name);
      // Removing a server removes its install from the store (unless another server uses it).
      if (forgotten.length > 0) this.#removeUnusedInstalls();
    }
  }

  /** What Switchboard kept about a server that left servers.json: its lists, pin and calls. */
  #forgetServer(name: string): void {
    this.#lists.forget(name);
    this.#pins.forget(name);
    this.#gates.delete(name);
    this.#announced.delete(name);
    this.activity.forget(name);
    this.#packageTrust.forget(name);
  }

  /** The package pins of every approval on record (what the store must keep). */
  #approvedPins(): Map<string, PackagePin> {
    const pins = new Map<string, PackagePin>();
    for (const [name, approval] of Object.entries(this.state.read().approvals))
      if (approval.config.package) pins.set(name, approval.config.package);
    return pins;
  }

  /** Removes installs no approval uses any more (a removed server, a version an update replaced). */
  #removeUnusedInstalls(): void {
    try {
      this.packages.store.removeUnused([...this.#approvedPins().values()]);
    } catch {
      // A busy or vanished folder: `switchboard store prune` tries again.
    }
  }

  async start(): Promise<void> {
    if (this.#supervisor) return;
    makePrivateDir(this.home.root);
    this.#sandboxes = new Sandboxes({ support: this.sandboxSupport(), resolve: this.#networkLookup });
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
    this.#supervisor.on('tools', (name, tools) => {
      this.#toolsChanged(name);
      this.events.emit('tools', name, tools);
    });
    this.#supervisor.on('lists', (name, fingerprint, lists) => {
      this.#lists.put(name, fingerprint, lists);
      this.#gates.delete(name); // its prompts (pinned too) may be new
      this.#toolsChanged(name);
      this.events.emit('lists', name);
    });
    this.#supervisor.on('notification', (name, n) => this.events.emit('notification', name, n));
    await this.#supervisor.reapOrphans();
    this.load();
    // Watch first, then start servers: start() (and so "bridge ready") does not wait behind spawning
    // a first wave of servers that then compete with it for the CPU; servers come up right after.
    if (this.#watch) this.#watcher = await watchFile(this.home.serversFile, () => this.reload());
    this.#apply();
    this.updates.start();
    // Tools held back in an earlier run are still held: their servers say so (after "ready").
    setImmediate(() => {
      for (const name of this.#entries.keys()) this.#toolsChanged(name);
    });
  }

  /** Re-reads servers.json and applies it: only servers whose fingerprint changed restart. */
  reload(): void {
    const before = new Set(this.#entries.keys());
    this.load();
    for (const name of before) if (!this.#entries.has(name)) this.events.emit('removed', name);
    this.#apply();
    this.events.emit('config', this.status());
  }

  /**
   * Records where a server's current config came from, to show on its approval: here, and in
   * state.json bound to the entry servers.json has now, for a restart or another process.
   */
  noteSource(name: string, source: ServerSource): void {
    this.#sources.set(name, source);
    recordSource(this.home, name, source, this.state);
  }

  /** In this process's memory, else as another process recorded it for this config, else a hand edit. */
  sourceOf(name: string): ServerSource {
    const remembered = this.#sources.get(name);
    if (remembered) return remembered;
    const entry = this.#entries.get(name);
    return (entry && this.state.sourceOf(name, configHash(entry.config))) ?? 'hand-edit';
  }

  forgetSource(name: string): void {
    this.#sources.delete(name);
  }

  /**
   * Shown to people (CLI, UI, tray): one problem a line. Each problem is escaped on its own (it may
   * quote the file's text), and the line breaks between them are ours, so they stay line breaks.
   */
  configError(): string | null {
    const file = basename(this.home.serversFile);
    return this.#problems.length
      ? this.#problems.map((p) => displayText(formatProblem(p, file))).join('\n')
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
  review(name: string, options: { fresh?: boolean } = {}): ApprovalPreview {
    const entry = this.#current(name);
    if (entry.refusal) throw new UserError(`server "${name}" cannot be approved: ${entry.refusal}`);
    const pkg = this.#packageTrust.view(entry, this.state.approval(name), options.fresh === true);
    return {
      name,
      state: this.#withTrust(name)?.state ?? 'pending-approval',
      transport: entry.launch.transport,
      source: this.sourceOf(name),
      fingerprint: pkg.fingerprint ?? entry.fingerprint,
      lines: this.#launchLines(entry),
      // Env and arguments go to what runs from the store (node), not to the npx that was written.
      references: describeReferences(
        pkg.program ? { ...entry.launch, command: pkg.program, realCommand: undefined } : entry.launch,
      ),
      // What would run: the offered package's node, if it is to run from the store.
      access: this.#accessOf(entry, pkg.program),
      package: pkg.package,
      packageNote: pkg.packageNote,
      // Asking the keychain is async: preview() and the approvals route fill this in.
      willNotStart: [],
    };
  }

  /** The exact launch lines, with the folder of its own a local server without `cwd` runs in. */
  #launchLines(entry: ServerEntry): string[] {
    return describeLaunch({ ...entry.launch, package: undefined }, this.ownFolder(entry.name));
  }

  /** A server's own folder (data/<name>): where it runs when its entry gives no `cwd`. */
  ownFolder(name: string): string {
    return serverDataDir(this.home, name, this.#platform);
  }

  /** What this machine offers to sandbox local servers with (looked at once). */
  sandboxSupport(): SandboxSupport {
    return sandboxSupportFor(this.#platform, this.#commandPath);
  }

  /** A local server's access in its sandbox, in plain words (empty for a remote server). */
  access(name: string): string[] {
    return this.#accessOf(this.#entry(name));
  }

  #accessOf(entry: ServerEntry, program?: string): string[] {
    const policy = this.#policyOf(entry, program !== undefined, undefined, program);
    return policy ? [...describeAccess(policy), describeBaseEnvironment(this.#env, this.#platform)] : [];
  }

  /**
   * The sandbox policy of a local server (shown: computed once per entry). `runs`: the program a
   * start runs instead of its command (a stored package's node).
   */
  #policyOf(entry: ServerEntry, fresh = false, stored?: string, runs?: string): SandboxPolicy | undefined {
    if (isRemote(entry.config)) return undefined;
    const known = fresh ? undefined : this.#policies.get(entry);
    if (known) return known;
    const policy = serverPolicy(
      entry.name,
      entry.config,
      entry.launch,
      {
        support: this.sandboxSupport(),
        home: this.home,
        env: this.#env,
        platform: this.#platform,
        tokenFiles: this.#tokenFiles,
      },
      stored,
      runs === undefined ? undefined : [runs],
    );
    if (!fresh) this.#policies.set(entry, policy);
    return policy;
  }

  /**
   * review(), after resolving the server's package at its registry when it runs one (npx, uvx, docker
   * run) and no resolution for its current config is at hand. `fresh`: resolve again even for an
   * approved server (an update: the newest release its servers.json allows, with the diff).
   */
  async preview(name: string, options: { fresh?: boolean } = {}): Promise<ApprovalPreview> {
    this.#catchUp();
    const entry = this.#current(name);
    if (this.#packageTrust.needsResolution(entry, options.fresh === true))
      await this.#packageTrust.resolve(
        entry,
        this.#lookup(isRemote(entry.config) ? undefined : entry.config.cwd),
      );
    const shown = this.review(name, options);
    return {
      ...shown,
      willNotStart: await startBlockers(this.#current(name), this.#keychain, this.#platform),
    };
  }

  /**
   * What approving the server allows, without waiting on a registry: review() when its package is
   * resolved (or it runs none); otherwise its resolution starts in the background, with an `approval`
   * event once it is in or failed, and this says so. A failed resolution is not retried by itself
   * (preview() tries again), so a list that asks again does not hammer an unreachable registry.
   */
  reviewNow(name: string): { preview: ApprovalPreview } | { resolving: true } | { error: string } {
    this.#catchUp();
    const entry = this.#current(name);
    this.#packageTrust.resolveLocal(entry);
    if (this.#packageTrust.needsResolution(entry, false)) {
      const failure = this.#packageTrust.failure(entry);
      if (failure !== undefined) return { error: failure };
      if (!this.#packageTrust.resolving(entry)) {
        const done = () => this.events.emit('approval', name);
        const cwd = isRemote(entry.config) ? undefined : entry.config.cwd;
        this.#packageTrust.resolve(entry, this.#lookup(cwd)).then(done, done);
      }
      return { resolving: true };
    }
    try {
      return { preview: this.review(name) };
    } catch (err) {
      if (err instanceof UserError) return { error: describeError(err) };
      throw err;
    }
  }

  /**
   * Approved package-run servers whose registry has a newer release (of the package, or within its
   * dependencies' ranges), checked now; each becomes what `update NAME` offers.
   */
  async outdated(
    names?: readonly string[],
    progress?: (done: number, total: number, server: string) => void,
  ): Promise<OutdatedEntry[]> {
    this.#catchUp();
    const entries = [...this.#entries.values()].filter(
      (entry) =>
        (!names || names.includes(entry.name)) &&
        this.state.decision(entry.name, entry.fingerprint) === 'approved',
    );
    // Side by side (each is mostly a wait on npm and the registry), a few at a time, in their order.
    let done = 0;
    const found = await inOrder(entries, OUTDATED_AT_ONCE, async (entry) => {
      const cwd = isRemote(entry.config) ? undefined : entry.config.cwd;
      const result = await this.#packageTrust.outdated(entry, this.#lookup(cwd));
      progress?.(++done, entries.length, entry.name);
      return result;
    });
    return found.filter((f): f is OutdatedEntry => f !== undefined);
  }

  /** The lock of the approved package the server runs now (undefined: none, or not approved). */
  #pinnedLock(name: string): string | undefined {
    const entry = this.#entries.get(name);
    if (!entry || this.state.decision(name, entry.fingerprint) !== 'approved') return undefined;
    return entry.launch.package?.lock;
  }

  /** The store's disk use, per install, with the servers that start from each. */
  storeUsage(): StoreUsage {
    return this.packages.store.usage(this.#approvedPins());
  }

  /** Removes every install, lockfile and leftover no approval uses. */
  pruneStore(): StorePruneResult {
    return this.packages.store.prune([...this.#approvedPins().values()]);
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
    // A package run approves the resolution it was shown (exact versions), never the bare command.
    const pinned = this.#packageTrust.accept(entry, fingerprint);
    if (pinned) {
      this.state.approve(name, fingerprint, pinned, source, this.#clock.now());
      this.#entries.set(name, this.#entryOf(entry.name, entry.config));
      this.#gates.delete(name);
      this.#apply();
      this.#removeUnusedInstalls();
      return {
        name,
        fingerprint,
        launch: describeLaunch({ ...pinned, package: undefined }, this.ownFolder(name)),
      };
    }
    if (entry.fingerprint !== fingerprint) throw new StaleApprovalError(name);
    if (entry.packageRun.run && !entry.launch.package)
      throw new UserError(`server "${name}" runs a package that has not been resolved for approval yet`, {
        hint: `review it with: switchboard approve ${name}`,
      });
    this.state.approve(name, entry.fingerprint, entry.launch, source, this.#clock.now());
    this.#gates.delete(name); // the next tool list is this approval's pin
    this.#apply();
    return { name, fingerprint: entry.fingerprint, launch: this.#launchLines(entry) };
  }

  /** Keeps the server from running until its config changes. */
  deny(name: string): void {
    const entry = this.#entry(name);
    this.state.deny(name, entry.fingerprint, this.#clock.now());
    this.#gates.delete(name);
    this.#apply();
  }

  async startServer(name: string): Promise<void> {
    this.#requireRunnable(name);
    const supervisor = this.#requireSupervisor();
    this.state.setStopped(name, undefined);
    await supervisor.start(name);
  }

  /** Stops the server until the person starts it again: kept in state.json, so a restart keeps it. */
  async stopServer(name: string): Promise<void> {
    this.#entry(name);
    const supervisor = this.#requireSupervisor();
    if (supervisor.runner(name)) this.state.setStopped(name, this.#clock.now());
    await supervisor.stop(name);
  }

  async restartServer(name: string): Promise<void> {
    this.#requireRunnable(name);
    const supervisor = this.#requireSupervisor();
    this.state.setStopped(name, undefined);
    await supervisor.restart(name);
  }

  // ─── lazy servers: lists and idle timeouts ──────────────────────────────────────────────────

  /**
   * What the server said about itself on its last run under its current config (initialize answer and
   * lists), whether or not it runs now; undefined when it has not run since it was approved.
   */
  lists(name: string): ServerLists | undefined {
    const entry = this.#entries.get(name);
    return entry ? this.#lists.get(name, entry.fingerprint) : undefined;
  }

  /** The idle timeout of servers that set none (seconds; 0: always running). */
  idleTimeoutDefault(): number {
    return this.state.settings().idleTimeout ?? DEFAULT_IDLE_TIMEOUT_S;
  }

  /** Changes it (undefined: back to the built-in default); running servers follow at once. */
  setIdleTimeoutDefault(seconds: number | undefined): void {
    this.state.setIdleTimeout(seconds);
    this.#apply();
  }

  // ─── pinning (instructions, tools, prompts) ──────────────────────────────────────────────────

  /**
   * What editors get of the server against its pin (trust/tool-pins.ts): its tools and prompts that
   * match it, and its instructions (the pinned ones while they differ); undefined while its tools are
   * not known or it is not approved. The first sight after an approval becomes its pin. Called on
   * every tool call: a hit is the tools lookup it always was.
   */
  toolGate(name: string): ToolGate | undefined {
    const tools = this.#currentTools(name);
    const entry = this.#entries.get(name);
    if (!tools || !entry) return undefined;
    const cached = this.#gates.get(name);
    if (cached?.tools === tools) return cached.gate;
    const approval = this.state.approval(name);
    if (!approval || approval.fingerprint !== entry.fingerprint) return undefined;
    const gate = this.#pins.gate(
      name,
      approval,
      this.#surface(name, tools),
      this.#clock.now(),
      (hash) => this.state.setPinsHash(name, hash),
      (text) => this.#serverNote(name, text),
    );
    this.#gates.set(name, { tools, approvedAt: approval.approvedAt, gate });
    return gate;
  }

  /** What the server pinned and the change waiting for a decision (`switchboard tools NAME`). */
  toolReview(name: string): ToolReview {
    const entry = this.#entry(name);
    const status = this.#withTrust(name);
    const gate = this.toolGate(name);
    const tools = this.#currentTools(name) ?? [];
    const prompts = this.lists(name)?.prompts ?? [];
    const known = gate !== undefined && entry !== undefined;
    const offered = compileToolFilter(entry.config.tools);
    const instructions = !gate
      ? 'none'
      : (gate.instructionsHeld ?? (gate.instructions === undefined ? 'none' : 'pinned'));
    return {
      server: name,
      state: status?.state ?? 'pending-approval',
      known,
      tools: gate
        ? tools.map((t) => ({
            name: displayText(t.name),
            pin: gate.held.get(t.name) ?? 'pinned',
            excluded: !offered(t.name),
          }))
        : [],
      prompts: gate
        ? prompts.map((p) => ({ name: displayText(p.name), pin: gate.prompts.held.get(p.name) ?? 'pinned' }))
        : [],
      instructions,
      change: gate?.change ?? null,
    };
  }

  /** Every server whose instructions, tools or prompts wait for a decision, with what changed. */
  toolChanges(): ToolChange[] {
    const changes: ToolChange[] = [];
    for (const name of this.#entries.keys()) {
      const change = this.toolGate(name)?.change;
      if (change) changes.push(change);
    }
    return changes;
  }

  /**
   * Accepts the change that was shown (`change`, from toolReview or the approvals list): what the
   * server says now becomes its pin and editors get it. One that changed again since it was shown
   * is refused (StaleToolChangeError).
   */
  acceptTools(name: string, change: string): void {
    this.#entry(name);
    const tools = this.#currentTools(name);
    const approval = this.state.approval(name);
    const entry = this.#entries.get(name);
    if (!tools || !approval || approval.fingerprint !== entry?.fingerprint)
      throw new UserError(`the tools of "${name}" are not known yet`, {
        hint: 'it lists them once it has run since it was approved',
      });
    const accepted = this.#pins.accept(
      name,
      approval,
      this.#surface(name, tools),
      change,
      this.#clock.now(),
      (hash) => this.state.setPinsHash(name, hash),
    );
    if (!accepted) throw new StaleToolChangeError(name);
    this.#gates.delete(name);
    this.#toolsChanged(name);
  }

  /** The tools as the server lists them now: live while it runs, else from its last run. */
  #currentTools(name: string): readonly Tool[] | undefined {
    const runner = this.#supervisor?.runner(name);
    if (runner?.state === 'running' && runner.toolsKnown) return runner.tools;
    return this.lists(name)?.tools;
  }

  /**
   * What the server says that reaches a model, with these tools (see #currentTools): its instructions
   * from this run's initialize while it runs, else from its last run; its prompts from its last
   * complete lists (the ones editors are answered from).
   */
  #surface(name: string, tools: readonly Tool[]): ServerSurface {
    const runner = this.#supervisor?.runner(name);
    const lists = this.lists(name);
    const live = runner?.state === 'running' && runner.toolsKnown && runner.tools === tools;
    return {
      tools,
      instructions: live ? runner.client?.getInstructions() : lists?.instructions,
      prompts: lists?.prompts,
      templates: lists?.resourceTemplates,
    };
  }

  /** A line in the server's log; with no serve running (a CLI command on the files), on stderr. */
  #serverNote(name: string, text: string): void {
    if (this.#supervisor) this.#supervisor.note(name, text);
    else console.error(`switchboard: "${name}": ${text}`);
  }

  /** The server's pinned surface may have changed: pins on first sight, and says so if what is held changed. */
  #toolsChanged(name: string): void {
    const change = this.toolGate(name)?.change?.change ?? null;
    if ((this.#announced.get(name) ?? null) === change) return;
    this.#announced.set(name, change);
    const status = this.#withTrust(name);
    if (status) this.events.emit('status', status);
    this.events.emit('toolChange', name);
  }

  /**
   * Every secret the keychain holds or a server references, by name, with where each is used (never a
   * value). A keychain that cannot be read (locked, no Secret Service) is said in `keychainError`.
   */
  async secrets(): Promise<SecretsResponse> {
    let stored: string[] = [];
    let keychainError: string | null = null;
    try {
      stored = await this.#keychain.list();
    } catch (err) {
      if (!(err instanceof UserError)) throw err;
      keychainError = describeError(err);
    }
    const byName = new Map<string, SecretInfo>();
    for (const name of stored) byName.set(name, { name, stored: true, usedBy: [] });
    for (const entry of this.#entries.values()) {
      for (const ref of listReferences(entry.config)) {
        if (ref.kind !== 'secret') continue;
        let info = byName.get(ref.name);
        if (!info) byName.set(ref.name, (info = { name: ref.name, stored: false, usedBy: [] }));
        info.usedBy.push({ server: entry.name, field: ref.field, key: ref.key });
      }
    }
    if (keychainError) for (const info of byName.values()) info.stored = false;
    return { secrets: [...byName.values()].sort((a, b) => compareNames(a.name, b.name)), keychainError };
  }

  /** The configured servers whose config references the keychain secret `secret`. */
  secretUsers(secret: string): string[] {
    return [...this.#entries.values()]
      .filter((e) => listReferences(e.config).some((r) => r.kind === 'secret' && r.name === secret))
      .map((e) => e.name);
  }

  /**
   * After a secret was stored: restarts the servers that use it and want to run (running, starting,
   * backing off, in a crash loop or waiting in error — e.g. for this very secret), so they pick it up.
   * Returns the names restarted; one that cannot restart keeps its state and its own error.
   */
  async restartSecretUsers(secret: string): Promise<string[]> {
    if (!this.running) return [];
    const users = new Set(this.secretUsers(secret));
    const restartable = new Set(['running', 'starting', 'backoff', 'crash-loop', 'error']);
    const restarted: string[] = [];
    for (const status of this.status().servers) {
      if (!users.has(status.name) || !restartable.has(status.state)) continue;
      try {
        await this.restartServer(status.name);
        restarted.push(status.name);
      } catch {
        // It stays in its state with its own error; the secret is stored either way.
      }
    }
    return restarted;
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
    const plan = await this.#remotePlan(name);
    return (await this.#signInService()).start(name, plan, request);
  }

  /** Forgets a remote server's sign-in (tokens and client); it then waits for a new one. */
  async signOut(name: string): Promise<boolean> {
    const entry = this.#entry(name);
    if (!isRemote(entry.config)) throw new UserError(`"${name}" is a local server: it has no sign-in`);
    const had = await (await this.#signInService()).forget(name);
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
    return (await this.#signInService()).info(name, url);
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
      data: this.home.data,
      // Computed again at each start: what its arguments name may have appeared on disk since.
      sandbox: async (entry: ServerEntry, program: Program, stored?: string) => {
        const policy = this.#policyOf(entry, true, stored, program.command);
        if (!policy || !this.#sandboxes) return { program };
        return this.#sandboxes.wrap(program, policy);
      },
    };
  }

  /** Stops every server (no orphans) and the file watcher. */
  async shutdown(): Promise<void> {
    if (this.#supervisor) this.events.emit('stopping', this.#clock.now());
    this.updates.stop();
    await (await this.#signIns)?.closeAll();
    await this.#watcher?.close();
    this.#watcher = undefined;
    const supervisor = this.#supervisor;
    this.#supervisor = undefined;
    await supervisor?.shutdown();
    await this.#sandboxes?.dispose();
  }

  #apply(): void {
    if (!this.#supervisor) return;
    const desired: DesiredServer[] = [];
    const idleDefault = this.idleTimeoutDefault();
    const stopped = this.state.stopped();
    for (const entry of this.#entries.values()) {
      if (!entry.config.enabled || entry.refusal) continue;
      if (this.state.decision(entry.name, entry.fingerprint) !== 'approved') continue;
      if (this.#packageTrust.blocked(entry)) continue;
      desired.push({
        name: entry.name,
        fingerprint: entry.fingerprint,
        transport: isRemote(entry.config) ? 'http' : 'stdio',
        idleTimeoutMs: (entry.config.idleTimeout ?? idleDefault) * 1000,
        listsKnown: this.#lists.has(entry.name, entry.fingerprint),
        stopped: stopped.has(entry.name),
        prepare: async (note) => {
          const plan = await this.#storedLaunch(entry, note)
            .then((stored) => prepareLaunch(entry, this.#launchDeps(), stored))
            .catch((err: unknown) => {
              // Another program than the approved one would run (PATH changed, a symlink retargeted):
              // the server goes back to waiting for approval, showing the program it would run now.
              if (err instanceof CommandChangedError || err instanceof RuntimeChangedError)
                setImmediate(() => this.#recheckCommands());
              // Its install changed on disk: it waits for a new approval, which installs it afresh.
              if (err instanceof StoreChangedError) {
                this.#packageTrust.markChanged(entry.name, err.message);
                setImmediate(() => this.#apply());
              }
              throw err;
            });
          if (plan.transport !== 'http') return plan;
          const auth = (await this.#signInService()).authFor(entry.name, plan);
          return auth ? { ...plan, auth } : plan;
        },
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

  /** A package-run server's install in the store (installed first when absent, verified when there). */
  async #storedLaunch(entry: ServerEntry, note?: (text: string) => void): Promise<StoredLaunch | undefined> {
    const pin = entry.launch.package;
    const run = entry.packageRun.run;
    if (!pin || !run || isRemote(entry.config)) return undefined;
    return this.packages.launch(pin, run, this.#lookup(entry.config.cwd), note ?? (() => {}));
  }

  /** The entry for a server's config, keeping the package its approval pinned. */
  #entryOf(name: string, config: ServerEntry['config']): ServerEntry {
    return serverEntry(name, config, this.#lookup, this.state.approval(name)?.config, this.home.store);
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
    const now = this.#entryOf(entry.name, entry.config);
    return now.fingerprint === entry.fingerprint ? undefined : now;
  }

  /** A server's status as a person should see it: trust and config decide before the supervisor does. */
  #withTrust(name: string): ServerStatus | undefined {
    const entry = this.#entries.get(name);
    if (!entry) return undefined;
    const policy = this.#policyOf(entry);
    const access = policy ? { access: summarizeAccess(policy) } : {};
    const base: ServerStatus = {
      ...access,
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
      ...(isRemote(entry.config) ? {} : { folder: entry.config.cwd ?? this.ownFolder(name) }),
    };
    if (!entry.config.enabled) return { ...base, state: 'disabled' };
    if (entry.refusal) return { ...base, state: 'error', lastError: displayText(entry.refusal) };
    const decision = this.state.decision(name, entry.fingerprint);
    if (decision === 'denied') return { ...base, state: 'denied' };
    if (decision === 'pending') return { ...base, state: 'pending-approval' };
    const blocked = this.#packageTrust.blocked(entry);
    if (blocked) return { ...base, state: 'pending-approval', lastError: displayText(blocked) };
    const live = this.#supervisor?.statusOf(name);
    if (!live) return base;
    const gate = this.#gates.get(name)?.gate;
    const held = gate?.held.size ?? 0;
    const promptsHeld = gate?.prompts.held.size ?? 0;
    // An idle server's tools are those of its last run.
    const listed =
      live.toolCount ?? (live.state === 'idle' ? (this.lists(name)?.tools.length ?? null) : null);
    // Counted as editors get them: what its "tools" filter turns off is not.
    const tools = entry.config.tools && listed !== null ? this.#currentTools(name) : undefined;
    return {
      ...live,
      ...(base.folder === undefined ? {} : { folder: base.folder }),
      ...access,
      // lastError is shown to people and may quote a command or a server's own words.
      lastError: live.lastError === null ? null : displayText(live.lastError),
      ...(live.sandboxRefused ? { sandboxRefused: displayText(live.sandboxRefused) } : {}),
      fingerprint: entry.fingerprint,
      toolCount: tools
        ? offeredCount(
            tools.map((t) => t.name),
            entry.config.tools,
          )
        : listed,
      ...(held > 0 ? { toolsHeld: held } : {}),
      ...(promptsHeld > 0 ? { promptsHeld } : {}),
      ...(gate?.instructionsHeld ? { instructionsHeld: true } : {}),
    };
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
    this.#entry(name); // "no server named …", before any state is looked at
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
