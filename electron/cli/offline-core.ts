import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { systemClock } from '../core/clock.ts';
import type { CoreEvents } from '../core/core-events.ts';
import { ListStore } from '../core/lists/list-store.ts';
import { ProjectService } from '../core/projects/project-service.ts';
import { Approvals } from '../core/services/approvals.ts';
import { SandboxService } from '../core/services/sandbox-service.ts';
import { SecretsService } from '../core/services/secrets-service.ts';
import { ServerConfig } from '../core/services/server-config.ts';
import { ServerStatuses } from '../core/services/server-status.ts';
import type { SignIns } from '../core/services/sign-ins.ts';
import { removeUnusedInstalls, StoreService } from '../core/services/store-service.ts';
import { ToolPinsService } from '../core/services/tool-pins-service.ts';
import { OsKeychain } from '../core/secrets/keychain.ts';
import { PackageApprovals } from '../core/store/package-approvals.ts';
import { PackageService } from '../core/store/package-service.ts';
import { PackageStore } from '../core/store/package-store.ts';
import { AppStateStore } from '../core/trust/app-state.ts';
import { ToolPins } from '../core/trust/tool-pins.ts';
import type { CliContext } from './context.ts';

/*
 * The core's services over the files alone, for commands run while no `switchboard serve` is
 * running: a composition root that builds, per command, only what it touches (never the supervisor,
 * the update checks, or sign-in unless the command signs in). What `serve` finds of the machine at its
 * start (the login PATH, the editors' settings files) comes with the context (`cli/machine.ts`), as data.
 * The home is already private: `main` makes it so before any command runs, as serve does at its start.
 */

/** state.json alone (editor settings, approvals, the bridge port). */
export function offlineState(ctx: Pick<CliContext, 'home'>): { state: AppStateStore } {
  return { state: new AppStateStore(ctx.home.stateFile) };
}

/**
 * servers.json read into entries, with state.json, and the projects' servers beside them: without
 * those, load() would forget their approvals as removed servers.
 */
export async function offlineServers(
  ctx: Pick<CliContext, 'home' | 'env' | 'commandPath'>,
  projects = new ProjectService(ctx.home.root),
): Promise<{ state: AppStateStore; servers: ServerConfig; projects: ProjectService }> {
  const commandPath = await ctx.commandPath();
  const state = new AppStateStore(ctx.home.stateFile);
  const { home } = ctx;
  const servers = new ServerConfig({
    home,
    state,
    commandPath,
    pathExt: ctx.env.PATHEXT,
    platform: process.platform,
    projects,
    hooks: {
      // What was kept on disk for a server that left servers.json: its lists, pins and install.
      forgotten: (names) => {
        const lists = new ListStore(join(home.cache, 'lists'), systemClock);
        const pins = new ToolPins(home.pins);
        for (const name of names) {
          lists.forget(name);
          pins.forget(name);
        }
        removeUnusedInstalls(new PackageStore(home.store), state);
      },
    },
  });
  servers.load();
  return { state, servers, projects };
}

/** The servers, and what their status and approval read: the packages offered, their sandboxes. */
async function trustParts(
  ctx: Pick<CliContext, 'home' | 'env' | 'commandPath' | 'tokenFiles'>,
  given?: ProjectService,
) {
  const { state, servers, projects } = await offlineServers(ctx, given);
  const packages = new PackageService(new PackageStore(ctx.home.store), ctx.env, process.platform, {
    // a CLI process is short-lived: npm may be loaded into it to resolve (serve uses a batch child)
    resolver: 'in-process',
  });
  const packageTrust = new PackageApprovals(packages);
  const sandbox = new SandboxService({
    home: ctx.home,
    env: ctx.env,
    platform: process.platform,
    commandPath: servers.commandLookup().path,
    tokenFiles: await ctx.tokenFiles(),
    servers,
  });
  const status = new ServerStatuses({ state, servers, packageTrust, sandbox });
  return { state, servers, projects, packages, packageTrust, sandbox, status };
}

/** `status`, `projects`: each server's status as the files say (`projects`: those of these projects). */
export async function offlineStatus(
  ctx: Pick<CliContext, 'home' | 'env' | 'commandPath' | 'tokenFiles'>,
  projects?: ProjectService,
): Promise<{ state: AppStateStore; servers: ServerConfig; status: ServerStatuses }> {
  const { state, servers, status } = await trustParts(ctx, projects);
  return { state, servers, status };
}

/** `approve`, `update`, `deny`: trust decisions on the files. */
export async function offlineApprovals(
  ctx: Pick<CliContext, 'home' | 'env' | 'keychain' | 'commandPath' | 'tokenFiles'>,
): Promise<{ approvals: Approvals }> {
  const { state, servers, projects, packages, packageTrust, sandbox, status } = await trustParts(ctx);
  const approvals = new Approvals({
    state,
    clock: systemClock,
    keychain: ctx.keychain(),
    platform: process.platform,
    events: new EventEmitter<CoreEvents>(),
    servers,
    packageTrust,
    sandbox,
    statuses: status,
    store: new StoreService({ state, packages, packageTrust, servers }),
    decided: () => {}, // nothing runs here to follow it
    origin: (name, config) => projects.originOf(name, config),
  });
  return { approvals };
}

/** `store`: disk use, pruning and newer releases of the approved packages. */
export async function offlineStore(
  ctx: Pick<CliContext, 'home' | 'env' | 'commandPath' | 'tokenFiles'>,
): Promise<{ store: StoreService }> {
  const { state, servers, packages, packageTrust } = await trustParts(ctx);
  return { store: new StoreService({ state, packages, packageTrust, servers }) };
}

/** `tools`, `editor-tools`: what each server pinned, from its last run's lists. */
export async function offlineTools(ctx: Pick<CliContext, 'home' | 'env' | 'commandPath' | 'tokenFiles'>) {
  const { state, servers, status } = await trustParts(ctx);
  const listStore = new ListStore(join(ctx.home.cache, 'lists'), systemClock);
  const lists = (name: string) => {
    const entry = servers.entries().get(name);
    return entry ? listStore.get(name, entry.fingerprint) : undefined;
  };
  const tools = new ToolPinsService({
    state,
    clock: systemClock,
    pins: new ToolPins(ctx.home.pins),
    events: new EventEmitter<CoreEvents>(),
    servers,
    statuses: status,
    live: { supervisor: () => undefined, lists },
  });
  return { state, servers, tools, lists };
}

/** `secret`: the keychain's secrets and which servers use them. */
export async function offlineSecrets(
  ctx: Pick<CliContext, 'home' | 'env' | 'keychain' | 'commandPath'>,
): Promise<{ secrets: SecretsService }> {
  const { servers } = await offlineServers(ctx);
  return { secrets: new SecretsService({ keychain: ctx.keychain(), servers }) };
}

/**
 * `login`, `logout`: sign-in to remote servers, with the event that says when one ended. Loaded here
 * and only here, so that no other command carries sign-in.
 */
export async function offlineSignIns(
  ctx: Pick<CliContext, 'home' | 'env' | 'keychain' | 'commandPath' | 'tokenFiles'>,
): Promise<{ signIns: SignIns; events: EventEmitter<CoreEvents> }> {
  const [{ SignIns }, { SIGN_IN_KEYCHAIN_SERVICE }] = await Promise.all([
    import('../core/services/sign-ins.ts'),
    import('../core/oauth/sign-in-store.ts'),
  ]);
  const { state, servers, status } = await trustParts(ctx);
  const events = new EventEmitter<CoreEvents>();
  const signIns = new SignIns({
    service: {
      keychain: new OsKeychain({ service: SIGN_IN_KEYCHAIN_SERVICE }),
      clock: systemClock,
      clientMetadataUrl: () => state.clientMetadataUrl(),
      open: undefined,
    },
    launch: {
      keychain: ctx.keychain(),
      env: ctx.env,
      commandPath: servers.commandLookup().path,
      platform: process.platform,
      home: ctx.home.root,
      data: ctx.home.data,
    },
    events,
    servers,
    statuses: status,
    live: { supervisor: () => undefined },
  });
  return { signIns, events };
}
