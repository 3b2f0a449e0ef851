import { isRemote } from '../../../shared/schema/servers.ts';
import type { OutdatedEntry, PackagePin, StorePruneResult, StoreUsage } from '../../../shared/store.ts';
import type { ServerEntry } from '../server-entry.ts';
import { inOrder } from '../store/in-order.ts';
import type { PackageApprovals } from '../store/package-approvals.ts';
import type { PackageService, StoredLaunch } from '../store/package-service.ts';
import type { PackageStore } from '../store/package-store.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import type { CommandLookup } from '../trust/resolve-command.ts';

/** How many servers `outdated` checks at a time: each runs npm (or pip, or a container tool). */
const OUTDATED_AT_ONCE = 4;

export interface StoreServiceOptions {
  state: Pick<AppStateStore, 'read' | 'decision'>;
  packages: {
    readonly store: Pick<PackageStore, 'prune' | 'removeUnused' | 'usage'>;
    launch: PackageService['launch'];
  };
  packageTrust: Pick<PackageApprovals, 'outdated'>;
  servers: {
    entries(): ReadonlyMap<string, ServerEntry>;
    catchUp(): void;
    lookupFor(entry: ServerEntry): CommandLookup;
  };
}

/** The package pins of every approval on record (what the store must keep). */
export function approvedPins(state: Pick<AppStateStore, 'read'>): Map<string, PackagePin> {
  const pins = new Map<string, PackagePin>();
  for (const [name, approval] of Object.entries(state.read().approvals))
    if (approval.config.package) pins.set(name, approval.config.package);
  return pins;
}

/** Removes installs no approval uses any more (a removed server, a version an update replaced). */
export function removeUnusedInstalls(
  store: Pick<PackageStore, 'removeUnused'>,
  state: Pick<AppStateStore, 'read'>,
): void {
  try {
    store.removeUnused([...approvedPins(state).values()]);
  } catch {
    // A busy or vanished folder: `switchboard store prune` tries again.
  }
}

/**
 * The package store as the approved servers use it: their installs (installed at a start), disk use
 * and pruning against the approvals on record, and newer releases of what they pinned.
 */
export class StoreService {
  readonly #o: StoreServiceOptions;

  constructor(options: StoreServiceOptions) {
    this.#o = options;
  }

  #approvedPins(): Map<string, PackagePin> {
    return approvedPins(this.#o.state);
  }

  /** Removes installs no approval uses any more (a removed server, a version an update replaced). */
  removeUnusedInstalls(): void {
    removeUnusedInstalls(this.#o.packages.store, this.#o.state);
  }

  /** The store's disk use, per install, with the servers that start from each. */
  storeUsage(): StoreUsage {
    return this.#o.packages.store.usage(this.#approvedPins());
  }

  /** Removes every install, lockfile and leftover no approval uses. */
  pruneStore(): StorePruneResult {
    return this.#o.packages.store.prune([...this.#approvedPins().values()]);
  }

  /** A package-run server's install in the store (installed first when absent, verified when there). */
  async storedLaunch(entry: ServerEntry, note?: (text: string) => void): Promise<StoredLaunch | undefined> {
    const pin = entry.launch.package;
    const run = entry.packageRun.run;
    if (!pin || !run || isRemote(entry.config)) return undefined;
    return this.#o.packages.launch(pin, run, this.#o.servers.lookupFor(entry), note ?? (() => {}));
  }

  /**
   * Approved package-run servers whose registry has a newer release (of the package, or within its
   * dependencies' ranges), checked now; each becomes what `update NAME` offers.
   */
  async outdated(
    names?: readonly string[],
    progress?: (done: number, total: number, server: string) => void,
  ): Promise<OutdatedEntry[]> {
    this.#o.servers.catchUp();
    const entries = [...this.#o.servers.entries().values()].filter(
      (entry) =>
        (!names || names.includes(entry.name)) &&
        this.#o.state.decision(entry.name, entry.fingerprint) === 'approved',
    );
    // Side by side (each is mostly a wait on npm and the registry), a few at a time, in their order.
    let done = 0;
    const found = await inOrder(entries, OUTDATED_AT_ONCE, async (entry) => {
      const result = await this.#o.packageTrust.outdated(entry, this.#o.servers.lookupFor(entry));
      progress?.(++done, entries.length, entry.name);
      return result;
    });
    return found.filter((f): f is OutdatedEntry => f !== undefined);
  }

  /** The lock of the approved package the server runs now (undefined: none, or not approved). */
  pinnedLock(name: string): string | undefined {
    const entry = this.#o.servers.entries().get(name);
    if (!entry || this.#o.state.decision(name, entry.fingerprint) !== 'approved') return undefined;
    return entry.launch.package?.lock;
  }

  /** How many approved servers run a package an update check can look at (not a bundle). */
  checkablePackages(): number {
    return [...this.#o.servers.entries().values()].filter((entry) => {
      const kind = entry.launch.package?.kind;
      return kind !== undefined && kind !== 'mcpb' && this.pinnedLock(entry.name) !== undefined;
    }).length;
  }
}
