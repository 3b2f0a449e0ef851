import { displayText } from '../../../shared/display-text.ts';
import type { ServerConfig } from '../../../shared/schema/servers.ts';
import type { Approval, LaunchConfig } from '../../../shared/schema/state.ts';
import type { OutdatedEntry, PackagePin, PackageReview, StoredPackage } from '../../../shared/store.ts';
import { describeError, UserError } from '../errors.ts';
import { fingerprintOf } from '../trust/fingerprint.ts';
import type { CommandLookup } from '../trust/resolve-command.ts';
import { withScripts, type Candidate } from './candidate.ts';
import type { PackageRun, PackageRunResult } from './package-run.ts';
import type { PackageService } from './package-service.ts';

/**
 * What package approvals read of a configured server (server-entry.ts `ServerEntry` is one): declared
 * here, so that the store does not import the entries, which sit above it.
 */
export interface PackageEntry {
  name: string;
  config: ServerConfig;
  launch: LaunchConfig;
  fingerprint: string;
  /** set when the config itself is refused (a literal secret) */
  refusal: string | undefined;
  packageRun: PackageRunResult;
  /** the launch config without its package pin: what servers.json alone decides */
  configFingerprint: string;
}

/** A resolution waiting for a decision, bound to the servers.json config it was made for. */
interface Offer {
  configFingerprint: string;
  candidate: Candidate;
  /** approves it with install scripts off */
  fingerprint: string;
  /** approves it with the tree's install scripts running (null: it has none) */
  scriptsFingerprint: string | null;
  /** the approved pin itself, offered again because its install changed on disk */
  reinstall: boolean;
}

/** What the approval of a package-run server shows beyond its command line. */
export interface PackageView {
  package: PackageReview | null;
  /** why a package run is not pinned (it runs as written) */
  packageNote: string | null;
  /** the fingerprint that approves what is shown (overrides the entry's when there is an offer) */
  fingerprint: string | undefined;
  /** the program that gets the server's env when it runs from the store (node, its venv's script) */
  program?: string | undefined;
}

/**
 * The store's side of trust: resolutions offered for approval, what approving one pins, and which
 * approved servers may not start from the store as they are (never pinned, or changed on disk).
 * Knows entries and approvals only as values passed in; the core owns both.
 */
export class PackageApprovals {
  readonly #service: PackageService;
  readonly #offers = new Map<string, Offer>();
  readonly #resolving = new Map<string, Promise<void>>();
  /** the last resolution that failed, per server: for which config, and why (as said, not escaped) */
  readonly #failed = new Map<string, { configFingerprint: string; error: string }>();
  /** approved servers whose install changed on disk, with what changed */
  readonly #changed = new Map<string, string>();

  constructor(service: PackageService) {
    this.#service = service;
  }

  /**
   * Why an approved entry may not start as it is, or undefined: a package run with no pin (approved
   * before the store, or imported) or an install that changed on disk.
   */
  blocked(entry: PackageEntry): string | undefined {
    if (!entry.packageRun.run) return undefined;
    const changed = this.#changed.get(entry.name);
    if (changed) return changed;
    if (!entry.launch.package)
      return `its package is not pinned yet: approve it to install exactly one version in Switchboard's store (switchboard approve ${entry.name})`;
    return undefined;
  }

  /** The install of an approved server changed on disk: it waits for a new approval. */
  markChanged(name: string, why: string): void {
    this.#changed.set(name, why);
  }

  forget(name: string): void {
    this.#offers.delete(name);
    this.#changed.delete(name);
    this.#failed.delete(name);
  }

  /** Why the last resolution of the entry's current config failed, if it did. */
  failure(entry: PackageEntry): string | undefined {
    const failed = this.#failed.get(entry.name);
    return failed?.configFingerprint === entry.configFingerprint ? failed.error : undefined;
  }

  /** Whether the entry's current config is being resolved now. */
  resolving(entry: PackageEntry): boolean {
    return this.#resolving.has(`${entry.name}\0${entry.configFingerprint}`);
  }

  /** Whether a review of the entry needs a resolution first (none offered for its current config). */
  needsResolution(entry: PackageEntry, fresh: boolean): boolean {
    if (!entry.packageRun.run || entry.refusal) return false;
    if (
      this.#changed.has(entry.name) &&
      entry.launch.package &&
      this.#service.packagesOf(entry.launch.package)
    )
      return false;
    if (fresh) return true;
    if (entry.launch.package && !this.#changed.has(entry.name)) return false;
    const offer = this.#offers.get(entry.name);
    return !offer || offer.configFingerprint !== entry.configFingerprint;
  }

  /**
   * A bundle's "resolution" is reading what the store already holds (no registry, nothing to wait
   * for): done here at once, so its approval never shows as resolving. Other kinds are left alone.
   */
  resolveLocal(entry: PackageEntry): void {
    const run = entry.packageRun.run;
    if (run?.kind !== 'mcpb' || !this.needsResolution(entry, false) || this.failure(entry) !== undefined)
      return;
    try {
      this.#failed.delete(entry.name);
      this.#offer(entry, this.#service.resolveBundle(run), false);
    } catch (err) {
      this.#failed.set(entry.name, { configFingerprint: entry.configFingerprint, error: describeError(err) });
    }
  }

  /** Resolves the entry's package (the registry, now) and offers it for approval. */
  async resolve(entry: PackageEntry, lookup: CommandLookup): Promise<void> {
    const run = entry.packageRun.run;
    if (!run) return;
    const key = `${entry.name}\0${entry.configFingerprint}`;
    const pending = this.#resolving.get(key);
    if (pending) return pending;
    const work = (async () => {
      try {
        const candidate = await this.#service.resolve(run, lookup);
        this.#failed.delete(entry.name);
        this.#offer(entry, candidate, false);
      } catch (err) {
        this.#failed.set(entry.name, {
          configFingerprint: entry.configFingerprint,
          error: describeError(err),
        });
        throw err;
      }
    })().finally(() => this.#resolving.delete(key));
    this.#resolving.set(key, work);
    return work;
  }

  #offer(entry: PackageEntry, candidate: Candidate, reinstall: boolean): Offer {
    const base: LaunchConfig = { ...entry.launch, package: undefined };
    const scriptsPin = withScripts(candidate);
    const offer: Offer = {
      configFingerprint: entry.configFingerprint,
      candidate,
      fingerprint: fingerprintOf({ ...base, package: candidate.pin }),
      scriptsFingerprint: scriptsPin ? fingerprintOf({ ...base, package: scriptsPin }) : null,
      reinstall,
    };
    this.#offers.set(entry.name, offer);
    return offer;
  }

  /** The offer for the entry's current config, or the approved pin again for a changed install. */
  #currentOffer(entry: PackageEntry): Offer | undefined {
    const changed = this.#changed.get(entry.name);
    const pin = entry.launch.package;
    if (changed && pin) {
      const packages = this.#service.packagesOf(pin);
      if (packages) {
        const run = entry.packageRun.run;
        if (!run) return undefined;
        const again =
          pin.kind === 'mcpb'
            ? 'approving removes it; install the .mcpb again to run it'
            : `approving installs the approved ${pin.name}@${pin.version} afresh from its lockfile`;
        const candidate = this.#pinned(run, { ...pin, scripts: undefined }, packages, [
          `${changed}; ${again}`,
        ]);
        const offer = this.#offer(entry, candidate, true);
        // The same pin as approved: its own fingerprint (with its scripts choice) approves it again.
        if (pin.scripts?.length) offer.scriptsFingerprint = entry.fingerprint;
        else offer.fingerprint = entry.fingerprint;
        return offer;
      }
    }
    const offer = this.#offers.get(entry.name);
    return offer && offer.configFingerprint === entry.configFingerprint ? offer : undefined;
  }

  /** An approved pin shown again (nothing resolved: what it was approved as). */
  #pinned(run: PackageRun, pin: PackagePin, packages: StoredPackage[], notes: string[]): Candidate {
    const folder = this.#service.store.folderOf(pin);
    return { run, pin, lockText: '', packages, publishedAt: null, latest: null, runs: [], folder, notes };
  }

  /** What the approval shows of the entry's package (and the fingerprint that approves it). */
  view(entry: PackageEntry, approval: Approval | undefined, fresh = false): PackageView {
    const result = entry.packageRun;
    if (result.unsupported)
      return {
        package: null,
        packageNote: `not pinned: ${displayText(result.unsupported)}; it runs as written, and each start may fetch a different release`,
        fingerprint: undefined,
      };
    if (!result.run) return { package: null, packageNote: null, fingerprint: undefined };
    // An approved, unchanged pin is shown as approved unless an update was asked for.
    const approvedAsIs = entry.launch.package !== undefined && !this.#changed.has(entry.name) && !fresh;
    const offer = approvedAsIs ? undefined : this.#currentOffer(entry);
    const previous = approval?.config.package;
    if (offer) {
      const pin =
        offer.reinstall && entry.launch.package?.scripts?.length ? entry.launch.package : offer.candidate.pin;
      return {
        package: this.#service.review(
          offer.candidate,
          pin,
          previous,
          offer.reinstall ? null : offer.scriptsFingerprint,
        ),
        packageNote: null,
        fingerprint: offer.fingerprint,
        program: offer.candidate.runs[0],
      };
    }
    const pin = entry.launch.package;
    if (pin) {
      // Approved and unchanged: what it was approved as.
      const candidate = this.#pinned(result.run, pin, this.#service.packagesOf(pin) ?? [], []);
      return {
        package: this.#service.review(candidate, pin, undefined, null),
        packageNote: null,
        fingerprint: undefined,
      };
    }
    throw new UserError(`the package of "${entry.name}" has not been resolved yet`, {
      hint: `review it with: switchboard approve ${entry.name}`,
    });
  }

  /**
   * The launch config approving `fingerprint` pins, when it approves an offer for the entry; its
   * lockfile is then kept in the store (and a changed install removed, to be installed afresh).
   */
  accept(entry: PackageEntry, fingerprint: string): LaunchConfig | undefined {
    const offer = this.#currentOffer(entry);
    if (!offer) return undefined;
    let pin: PackagePin | undefined;
    if (fingerprint === offer.fingerprint) pin = offer.candidate.pin;
    else if (fingerprint === offer.scriptsFingerprint)
      pin = offer.reinstall ? entry.launch.package : withScripts(offer.candidate);
    if (!pin) return undefined;
    if (offer.reinstall) this.#service.store.discard(pin);
    else this.#service.commit(offer.candidate);
    this.#offers.delete(entry.name);
    this.#changed.delete(entry.name);
    return { ...entry.launch, package: pin };
  }

  /** A newer release of an approved server's package or of its dependencies, checked at the registry. */
  async outdated(entry: PackageEntry, lookup: CommandLookup): Promise<OutdatedEntry | undefined> {
    const pin = entry.launch.package;
    const run = entry.packageRun.run;
    if (!pin || !run) return undefined;
    const base = {
      server: entry.name,
      kind: pin.kind,
      package: displayText(pin.name),
      current: displayText(pin.version),
    };
    try {
      // Most days nothing is newer: the registry's packuments say so without running npm.
      if (await this.#service.stillNewest(pin, run, lookup)) return undefined;
      const candidate = await this.#service.resolve(run, lookup);
      this.#offer(entry, candidate, false);
      // What `update NAME` would change (the same judgement), not whether the lockfile's bytes differ.
      const changes = candidate.pin.lock === pin.lock ? [] : this.#service.changesSince(pin, candidate);
      if (changes.length === 0 && (candidate.latest ?? pin.version) === pin.version) return undefined;
      return {
        ...base,
        wanted: displayText(candidate.pin.version),
        latest: candidate.latest === null ? null : displayText(candidate.latest),
        changes,
        error: null,
      };
    } catch (err) {
      return { ...base, wanted: null, latest: null, changes: [], error: displayText(describeError(err)) };
    }
  }
}
