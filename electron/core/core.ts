import { EventEmitter } from 'node:events';
import type { ApprovalPreview } from '../../shared/api.ts';
import { join } from 'node:path';
import { CallActivity } from './activity/call-activity.ts';
import { systemClock, type Clock } from './clock.ts';
import type { CoreEvents } from './core-events.ts';
import { makeHomePrivate } from './fs/private-home.ts';
import type { HomePaths } from './home.ts';
import type { LaunchDeps } from './launch-plan.ts';
import { ListStore } from './lists/list-store.ts';
import type { SignInOpener } from './oauth/open-browser.ts';
import { SIGN_IN_KEYCHAIN_SERVICE } from './oauth/sign-in-store.ts';
import type { Resolve } from './sandbox/network-gate.ts';
import { OsKeychain, type Keychain } from './secrets/keychain.ts';
import { Approvals } from './services/approvals.ts';
import { Lifecycle } from './services/lifecycle.ts';
import { SandboxService } from './services/sandbox-service.ts';
import { SecretsService } from './services/secrets-service.ts';
import { ServerConfig, type ProjectServers } from './services/server-config.ts';
import { ServerLogs } from './services/server-logs.ts';
import { ServerStatuses } from './services/server-status.ts';
import { SignIns } from './services/sign-ins.ts';
import { StoreService } from './services/store-service.ts';
import { ToolPinsService } from './services/tool-pins-service.ts';
import { PackageApprovals } from './store/package-approvals.ts';
import { PackageService } from './store/package-service.ts';
import { PackageStore } from './store/package-store.ts';
import { UpdateChecks } from './store/update-checks.ts';
import type { SupervisorTimings } from './supervisor/types.ts';
import { AppStateStore } from './trust/app-state.ts';
import { ToolPins } from './trust/tool-pins.ts';

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
  /** repositories' servers beside servers.json's, and where each came from (projects/project-service.ts) */
  projects?: ProjectServers & { originOf(name: string, config: object): ApprovalPreview['origin'] };
}

/**
 * Switchboard's headless heart, as a composition root: it makes one service per concern and wires
 * them to each other; it decides nothing itself. The Electron shell, `switchboard serve` and the CLI
 * hand each part only the services it uses (docs/development.md, "The services").
 *
 * `servers.load()` alone reads the files (what the CLI does when no instance runs);
 * `lifecycle.start()` also runs the approved servers and follows edits of servers.json.
 */
export class Core {
  readonly events = new EventEmitter<CoreEvents>();
  readonly home: HomePaths;
  /** state.json: approvals, denials, settings, editors */
  readonly state: AppStateStore;
  /** editors' tool calls through the bridge, per server, tool and editor (the last hour) */
  readonly activity: CallActivity;
  /** the package store (`<home>/store`) and the packages offered for approval */
  readonly packages: PackageService;
  /** newer releases of approved packages: checked when asked, and daily once started */
  readonly updates: UpdateChecks;
  /** servers.json's entries, problems, command lookups and where each config came from */
  readonly servers: ServerConfig;
  readonly sandbox: SandboxService;
  /** the store as approved servers use it: installs, disk use, pruning, outdated */
  readonly store: StoreService;
  /** what approving allows, approving and denying exactly that */
  readonly approvals: Approvals;
  /** instructions, tools and prompts against their pins */
  readonly tools: ToolPinsService;
  readonly secrets: SecretsService;
  readonly signIns: SignIns;
  /** the supervisor: running the approved servers, start/stop/restart, lists, idle timeouts */
  readonly lifecycle: Lifecycle;
  readonly status: ServerStatuses;
  readonly logs: ServerLogs;

  constructor(options: CoreOptions) {
    const home = (this.home = options.home);
    const platform = options.platform ?? process.platform;
    // Before anything is written there: the home is this user's alone (fs/private-home.ts).
    makeHomePrivate(home, platform);
    const env = options.env ?? process.env;
    const clock = options.clock ?? systemClock;
    const commandPath = options.commandPath ?? env.PATH;
    const keychain = options.keychain;
    const events = this.events;
    const state = (this.state = new AppStateStore(home.stateFile));
    const lists = new ListStore(join(home.cache, 'lists'), clock);
    this.activity = new CallActivity(clock);
    this.packages = new PackageService(new PackageStore(home.store), env, platform, {
      resolver: 'batch-child',
    });
    const packageTrust = new PackageApprovals(this.packages);
    // What runs (made at start), for the services that read it: late-bound, the lifecycle comes last.
    const live = {
      supervisor: () => this.lifecycle.supervisor(),
      lists: (n: string) => this.lifecycle.lists(n),
    };

    const servers = (this.servers = new ServerConfig({
      home,
      state,
      commandPath,
      pathExt: env.PATHEXT,
      platform,
      projects: options.projects,
      hooks: {
        forgotten: (names) => {
          for (const name of names) {
            lists.forget(name);
            this.tools.forget(name);
            this.activity.forget(name);
            packageTrust.forget(name);
          }
          // Removing a server removes its install from the store (unless another server uses it).
          this.store.removeUnusedInstalls();
        },
        changed: () => this.lifecycle.apply(),
        reread: () => (this.lifecycle.running ? this.lifecycle.reload() : servers.load()),
      },
    }));
    const sandbox = (this.sandbox = new SandboxService({
      home,
      env,
      platform,
      commandPath,
      tokenFiles: options.tokenFiles ?? [],
      networkLookup: options.networkLookup,
      servers,
    }));
    const store = (this.store = new StoreService({ state, packages: this.packages, packageTrust, servers }));
    this.updates = new UpdateChecks({
      clock,
      file: join(home.cache, 'updates.json'),
      outdated: () => store.outdated(),
      pinnedLock: (name) => store.pinnedLock(name),
      packages: () => store.checkablePackages(),
      daily: () => state.updateChecks(),
      changed: () => events.emit('updates'),
    });
    const tools = {
      cachedGate: (n: string) => this.tools.cachedGate(n),
      currentTools: (n: string) => this.tools.currentTools(n),
    };
    const status = (this.status = new ServerStatuses({ state, servers, packageTrust, sandbox, live, tools }));
    this.tools = new ToolPinsService({
      state,
      clock,
      pins: new ToolPins(home.pins),
      events,
      servers,
      statuses: status,
      live,
    });
    this.approvals = new Approvals({
      state,
      clock,
      keychain,
      platform,
      events,
      servers,
      packageTrust,
      sandbox,
      statuses: status,
      store,
      decided: (name) => {
        this.tools.invalidate(name);
        this.lifecycle.apply();
      },
      origin: (name, config) => options.projects?.originOf(name, config),
    });
    const launch: LaunchDeps = {
      keychain,
      env,
      commandPath,
      platform,
      home: home.root,
      data: home.data,
      sandbox: (entry, program, stored) => sandbox.wrap(entry, program, stored),
    };
    this.signIns = new SignIns({
      service: {
        keychain: options.signInKeychain ?? new OsKeychain({ service: SIGN_IN_KEYCHAIN_SERVICE }),
        clock,
        clientMetadataUrl: () => state.clientMetadataUrl(),
        open: options.signInOpener,
      },
      launch,
      events,
      servers,
      statuses: status,
      live,
    });
    this.lifecycle = new Lifecycle({
      home,
      clock,
      timings: options.timings ?? {},
      watch: options.watch ?? false,
      state,
      events,
      lists,
      launch,
      servers,
      statuses: status,
      packageTrust,
      store,
      sandbox,
      tools: this.tools,
      signIns: this.signIns,
      updates: this.updates,
    });
    this.secrets = new SecretsService({ keychain, servers, live: this.lifecycle, statuses: status });
    this.logs = new ServerLogs(servers, live);
  }
}
