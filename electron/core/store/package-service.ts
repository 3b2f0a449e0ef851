import { mkdirSync } from 'node:fs';
import { displayText } from '../../../shared/display-text.ts';
import { isRemote, type ServerConfig } from '../../../shared/schema/servers.ts';
import type { PackagePin, PackageReview, StoredPackage } from '../../../shared/store.ts';
import { UserError } from '../errors.ts';
import { shellQuote } from '../trust/command-line.ts';
import type { CommandLookup } from '../trust/resolve-command.ts';
import type { Candidate } from './candidate.ts';
import { bundleCandidate, bundleLaunch } from './mcpb-bundle.ts';
import { NpmBatchChild } from './npm-batch-child.ts';
import { lockInProcess } from './npm-in-process.ts';
import {
  npmLaunch,
  npmPackagesOf,
  npmPinStillNewest,
  resolveNpmCandidate,
  type NpmContext,
} from './npm-package.ts';
import { NpmRegistryView } from './npm-registry-view.ts';
import type { LockWriter } from './npm-resolve.ts';
import { ociLaunch, resolveOciCandidate } from './oci-package.ts';
import { pypiLaunch, pypiPackagesOf, resolvePypiCandidate } from './pypi-package.ts';
import { packageChanges } from './package-diff.ts';
import { packageRunOf, type PackageRun, type PackageRunResult } from './package-run.ts';
import type { PackageStore } from './package-store.ts';

/** How a stored package starts: the program, its arguments, and the install it runs from. */
export interface StoredLaunch {
  /** undefined: the command servers.json names (a bundle's own) */
  command: string | undefined;
  args: string[];
  /** the install's folder (read-only for the server; the sandbox keeps it so) */
  folder: string | undefined;
  /** folders to put first on the server's PATH (the install's own bin folder, as npx does) */
  pathPrefix: string[];
}

/**
 * How npm lockfiles are resolved: `in-process`, the person's npm's resolver loaded into this process
 * once (short-lived processes only: the CLI; npm's modules stay, ~46 MB of RSS); `batch-child`, the
 * same resolver in one short-lived child per batch of locks (serve: its memory leaves with the child);
 * `npm`, an `npm install --package-lock-only` process per server (what the other two fall back to).
 */
export type NpmResolver = 'in-process' | 'batch-child' | 'npm';

function lockWriter(resolver: NpmResolver): LockWriter | undefined {
  if (resolver === 'in-process') return (dir, program) => lockInProcess(dir, program);
  if (resolver === 'batch-child') {
    const child = new NpmBatchChild();
    return (dir, program, timeoutMs) => child.write(dir, program, timeoutMs);
  }
  return undefined;
}

/**
 * The package store as the core uses it: reads a server's command line as a package run, resolves it
 * for an approval, keeps what was approved, and starts servers from their installs.
 */
export class PackageService {
  readonly store: PackageStore;
  readonly #env: NodeJS.ProcessEnv;
  readonly #platform: NodeJS.Platform;
  readonly #npmRegistry = new NpmRegistryView();
  readonly #writeLock: LockWriter | undefined;
  readonly #loadsNpm: boolean;

  /** `resolver`: how npm lockfiles are resolved (NpmResolver; default an npm process per server) */
  constructor(
    store: PackageStore,
    env: NodeJS.ProcessEnv,
    platform: NodeJS.Platform = process.platform,
    options: { resolver?: NpmResolver } = {},
  ) {
    this.store = store;
    this.#env = env;
    this.#platform = platform;
    this.#writeLock = lockWriter(options.resolver ?? 'npm');
    this.#loadsNpm = options.resolver === 'in-process';
  }

  runOf(config: ServerConfig): PackageRunResult {
    if (isRemote(config)) return {};
    return packageRunOf(config.command, config.args);
  }

  async resolve(run: PackageRun, lookup: CommandLookup): Promise<Candidate> {
    switch (run.kind) {
      case 'npm':
        return resolveNpmCandidate(run, this.#npm(lookup));
      case 'pypi':
        return resolvePypiCandidate(run, {
          store: this.store,
          env: this.#env,
          lookup,
          platform: this.#platform,
        });
      case 'oci':
        return resolveOciCandidate(run, { env: this.#env, lookup, staging: this.#stagingDir() });
      case 'mcpb':
        return bundleCandidate(run, this.store);
    }
  }

  /** A bundle's candidate: read from the store, at once. */
  resolveBundle(run: Extract<PackageRun, { kind: 'mcpb' }>): Candidate {
    return bundleCandidate(run, this.store);
  }

  /**
   * True when the approved pin is surely what resolving `run` now would give (only npm is judged
   * this way, without running npm); false means "resolve to know".
   */
  async stillNewest(pin: PackagePin, run: PackageRun, lookup: CommandLookup): Promise<boolean> {
    if (pin.kind !== 'npm' || run.kind !== 'npm') return false;
    return npmPinStillNewest(pin, run, this.#npm(lookup)).catch(() => false);
  }

  /** Keeps the approved lockfile, so the install can be made (again) from exactly it. */
  commit(candidate: Candidate): void {
    if (candidate.lockText !== '') this.store.saveLock(candidate.pin.lock, candidate.lockText);
  }

  /** The packages of an approved pin's tree, when its lockfile is kept. */
  /**
   * What approving `candidate` (as `pin`) changes against the approved `previous`: packages added,
   * removed or at another version, and another program running it. `update` and `outdated` both judge
   * by this, so they agree: a lockfile that differs only in what npm records beside the versions
   * (its root entry's range as written, `resolved` URLs of another registry address, fields a newer
   * npm adds) is no update.
   */
  changesSince(previous: PackagePin, candidate: Candidate, pin: PackagePin = candidate.pin): string[] {
    const before = this.packagesOf(previous);
    const changes = before
      ? packageChanges(before, candidate.packages)
      : [`${displayText(previous.name)} ${displayText(previous.version)} → ${displayText(pin.version)}`];
    if (previous.runtime !== pin.runtime || previous.runtimeReal !== pin.runtimeReal)
      changes.push(
        `runs with ${displayText(pin.runtimeReal ?? pin.runtime ?? '')} (was ${displayText(previous.runtimeReal ?? previous.runtime ?? '')})`,
      );
    return changes;
  }

  packagesOf(pin: PackagePin): StoredPackage[] | undefined {
    if (pin.kind === 'npm') return npmPackagesOf(pin, this.store);
    if (pin.kind === 'pypi') return pypiPackagesOf(pin, this.store);
    if (pin.kind === 'oci' || pin.kind === 'mcpb')
      return [{ name: pin.name, version: pin.version || pin.lock, installScript: false }];
    return undefined;
  }

  /** What npm resolution needs: this store, its npm registry view, npm in process when serve allows. */
  #npm(lookup: CommandLookup): NpmContext & { registry: NpmRegistryView; store: PackageStore } {
    return {
      store: this.store,
      env: this.#env,
      lookup,
      registry: this.#npmRegistry,
      writeLock: this.#writeLock,
      loadsNpm: this.#loadsNpm,
    };
  }

  /** An existing folder for tools that need a working folder (never the user's). */
  #stagingDir(): string {
    mkdirSync(this.store.staging, { recursive: true, mode: 0o700 });
    return this.store.staging;
  }

  async launch(
    pin: PackagePin,
    run: PackageRun,
    lookup: CommandLookup,
    note: (text: string) => void,
  ): Promise<StoredLaunch> {
    if (pin.kind === 'npm' && run.kind === 'npm') {
      const launch = await npmLaunch(pin, run.args, { store: this.store, env: this.#env, lookup }, note);
      return {
        command: launch.command,
        args: launch.args,
        folder: launch.folder,
        pathPrefix: [launch.binDir],
      };
    }
    if (pin.kind === 'pypi' && run.kind === 'pypi') {
      const ctx = { store: this.store, env: this.#env, lookup, platform: this.#platform };
      const launch = await pypiLaunch(pin, run.args, ctx, note);
      return { command: launch.command, args: launch.args, folder: launch.folder, pathPrefix: [] };
    }
    if (pin.kind === 'oci' && run.kind === 'oci') {
      const launch = ociLaunch(pin, run, { lookup });
      return { command: launch.command, args: launch.args, folder: undefined, pathPrefix: [] };
    }
    if (pin.kind === 'mcpb' && run.kind === 'mcpb') {
      // The command line is the bundle's own (servers.json), run once its files check out.
      const folder = await bundleLaunch(pin, this.store);
      return { command: undefined, args: run.args, folder, pathPrefix: [] };
    }
    throw new UserError(`a ${pin.kind} package cannot start a "${run.kind}" command line: approve it again`);
  }

  /** What the approval shows of a candidate (`pin`: with or without its install scripts). */
  review(
    candidate: Candidate,
    pin: PackagePin,
    previous: PackagePin | undefined,
    scriptsFingerprint: string | null,
  ): PackageReview {
    const scripts = candidate.packages.filter((p) => p.installScript).map((p) => `${p.name}@${p.version}`);
    const scriptsRun = (pin.scripts?.length ?? 0) > 0;
    const own = candidate.packages.filter((p) => p.name === pin.name && p.version === pin.version).length;
    const dependencies = Math.max(0, candidate.packages.length - Math.max(own, pin.kind === 'npm' ? 1 : 0));
    const date = candidate.publishedAt ? ` (published ${candidate.publishedAt.slice(0, 10)})` : '';
    const lines = [
      `package: ${displayText(pin.name)} ${displayText(pin.version)}${date} from ${KIND_NAMES[pin.kind]}`,
      `dependencies: ${dependencies}`,
      `install scripts: ${scripts.length === 0 ? 'none' : `${scripts.map(displayText).join(', ')} (${scriptsRun ? 'they run' : 'they stay off'})`}`,
      `runs from the store: ${candidate.runs.map((w) => displayText(shellQuote(w))).join(' ')}`,
      `pinned: ${displayText(pin.lock)}`,
    ];
    const notes = [...candidate.notes];
    if (candidate.latest && candidate.latest !== pin.version)
      notes.push(
        `the newest release is ${displayText(candidate.latest)}; servers.json asks for ${displayText(pin.version)}`,
      );
    if (scripts.length > 0 && !scriptsRun)
      notes.push(
        'install scripts stay off unless you approve them too; the server may need them (native builds)',
      );
    let changes: string[] | null = null;
    if (previous) {
      changes = this.changesSince(previous, candidate, pin);
      if (changes.length === 0) changes.push('nothing: the same packages as approved');
    }
    return {
      kind: pin.kind,
      name: displayText(pin.name),
      version: displayText(pin.version),
      publishedAt: candidate.publishedAt,
      dependencies,
      installScripts: scripts.map(displayText),
      scriptsRun,
      lines,
      changes,
      notes,
      scriptsFingerprint,
    };
  }
}

const KIND_NAMES: Record<PackagePin['kind'], string> = {
  npm: 'the npm registry',
  pypi: 'the Python Package Index',
  oci: 'its image registry',
  mcpb: 'an MCP bundle',
};
