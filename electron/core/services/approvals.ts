import type { EventEmitter } from 'node:events';
import type { ApprovalPreview, ApprovalResult } from '../../../shared/api.ts';
import type { ServerStatus } from '../../../shared/status.ts';
import type { Clock } from '../clock.ts';
import type { CoreEvents } from '../core-events.ts';
import { describeError, StaleApprovalError, UserError } from '../errors.ts';
import type { Keychain } from '../secrets/keychain.ts';
import type { ServerEntry } from '../server-entry.ts';
import type { PackageApprovals } from '../store/package-approvals.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import { describeLaunch, describeReferences } from '../trust/command-line.ts';
import type { CommandLookup } from '../trust/resolve-command.ts';
import { startBlockers } from '../trust/start-blockers.ts';
import type { ServerSource } from './server-config.ts';
import type { ServerOrigin } from '../../../shared/schema/state.ts';

export interface ApprovalsOptions {
  state: Pick<AppStateStore, 'approval' | 'approve' | 'deny'>;
  clock: Clock;
  keychain: Keychain;
  platform: NodeJS.Platform;
  events: Pick<EventEmitter<CoreEvents>, 'emit'>;
  servers: {
    catchUp(): void;
    current(name: string): ServerEntry;
    entry(name: string): ServerEntry;
    entryOf(name: string, config: ServerEntry['config']): ServerEntry;
    set(entry: ServerEntry): void;
    sourceOf(name: string): ServerSource;
    originOf(name: string): ServerOrigin;
    ownFolder(name: string): string;
    lookupFor(entry: ServerEntry): CommandLookup;
  };
  packageTrust: Pick<
    PackageApprovals,
    'view' | 'needsResolution' | 'resolve' | 'failure' | 'resolving' | 'accept' | 'resolveLocal'
  >;
  sandbox: { accessOf(entry: ServerEntry, program?: string): string[] };
  statuses: { of(name: string): ServerStatus | undefined };
  /** installs no approval uses any more are removed after an approval replaced one */
  store: { removeUnusedInstalls(): void };
  /** a decision was recorded: the server's pin is computed afresh and the supervisor follows it */
  decided(name: string): void;
  /** which repository file said a project's server (projects/project-service.ts); none: the person's own */
  origin?: ((name: string, config: object) => ApprovalPreview['origin']) | undefined;
}

/**
 * Trust: what approving a server would allow (its exact launch, package, sandbox and references),
 * and approving or denying exactly what was shown.
 */
export class Approvals {
  readonly #o: ApprovalsOptions;

  constructor(options: ApprovalsOptions) {
    this.#o = options;
  }

  /**
   * What approving the server would allow now, as a person is to be shown it: the exact launch lines,
   * the secrets and env it passes on, and the fingerprint an approval of exactly this must carry.
   */
  review(name: string, options: { fresh?: boolean } = {}): ApprovalPreview {
    const entry = this.#o.servers.current(name);
    if (entry.refusal) throw new UserError(`server "${name}" cannot be approved: ${entry.refusal}`);
    const pkg = this.#o.packageTrust.view(entry, this.#o.state.approval(name), options.fresh === true);
    return {
      name,
      state: this.#o.statuses.of(name)?.state ?? 'pending-approval',
      transport: entry.launch.transport,
      ...this.#o.servers.originOf(name),
      fingerprint: pkg.fingerprint ?? entry.fingerprint,
      lines: this.#launchLines(entry),
      // Env and arguments go to what runs from the store (node), not to the npx that was written.
      references: describeReferences(
        pkg.program ? { ...entry.launch, command: pkg.program, realCommand: undefined } : entry.launch,
      ),
      // What would run: the offered package's node, if it is to run from the store.
      access: this.#o.sandbox.accessOf(entry, pkg.program),
      package: pkg.package,
      packageNote: pkg.packageNote,
      // Asking the keychain is async: preview() and the approvals route fill this in.
      willNotStart: [],
      origin: this.#o.origin?.(name, entry.config),
    };
  }

  /** The exact launch lines, with the folder of its own a local server without `cwd` runs in. */
  #launchLines(entry: ServerEntry): string[] {
    return describeLaunch({ ...entry.launch, package: undefined }, this.#o.servers.ownFolder(entry.name));
  }

  /**
   * review(), after resolving the server's package at its registry when it runs one (npx, uvx, docker
   * run) and no resolution for its current config is at hand. `fresh`: resolve again even for an
   * approved server (an update: the newest release its servers.json allows, with the diff).
   */
  async preview(name: string, options: { fresh?: boolean } = {}): Promise<ApprovalPreview> {
    this.#o.servers.catchUp();
    const entry = this.#o.servers.current(name);
    if (this.#o.packageTrust.needsResolution(entry, options.fresh === true))
      await this.#o.packageTrust.resolve(entry, this.#o.servers.lookupFor(entry));
    const shown = this.review(name, options);
    // A project server's values not given yet are asked for by its origin (`needs`), in its words.
    const asked = shown.origin?.needs.map((n) => n.secret);
    return {
      ...shown,
      willNotStart: await startBlockers(
        this.#o.servers.current(name),
        this.#o.keychain,
        this.#o.platform,
        asked,
      ),
    };
  }

  /**
   * What approving the server allows, without waiting on a registry: review() when its package is
   * resolved (or it runs none); otherwise its resolution starts in the background, with an `approval`
   * event once it is in or failed, and this says so. A failed resolution is not retried by itself
   * (preview() tries again), so a list that asks again does not hammer an unreachable registry.
   */
  reviewNow(name: string): { preview: ApprovalPreview } | { resolving: true } | { error: string } {
    this.#o.servers.catchUp();
    const entry = this.#o.servers.current(name);
    const trust = this.#o.packageTrust;
    trust.resolveLocal(entry);
    if (trust.needsResolution(entry, false)) {
      const failure = trust.failure(entry);
      if (failure !== undefined) return { error: failure };
      if (!trust.resolving(entry)) {
        const done = () => this.#o.events.emit('approval', name);
        trust.resolve(entry, this.#o.servers.lookupFor(entry)).then(done, done);
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
   * Approves the server's launch config if it is still the one shown (`fingerprint`, from review()
   * or the approvals list), and starts it if Switchboard is running. A config that changed since it
   * was shown is refused (StaleApprovalError): the person approves what they saw, never what came after.
   */
  approve(name: string, fingerprint: string, source?: ServerSource): ApprovalResult {
    const { servers, state, clock } = this.#o;
    const from = source ?? servers.sourceOf(name);
    servers.catchUp();
    const entry = servers.current(name);
    if (entry.refusal) throw new UserError(`server "${name}" cannot be approved: ${entry.refusal}`);
    // A package run approves the resolution it was shown (exact versions), never the bare command.
    const pinned = this.#o.packageTrust.accept(entry, fingerprint);
    if (pinned) {
      state.approve(name, fingerprint, pinned, from, clock.now());
      servers.set(servers.entryOf(entry.name, entry.config));
      this.#o.decided(name);
      this.#o.store.removeUnusedInstalls();
      return {
        name,
        fingerprint,
        launch: describeLaunch({ ...pinned, package: undefined }, servers.ownFolder(name)),
      };
    }
    if (entry.fingerprint !== fingerprint) throw new StaleApprovalError(name);
    if (entry.packageRun.run && !entry.launch.package)
      throw new UserError(`server "${name}" runs a package that has not been resolved for approval yet`, {
        hint: `review it with: switchboard approve ${name}`,
      });
    state.approve(name, entry.fingerprint, entry.launch, from, clock.now());
    this.#o.decided(name); // the next tool list is this approval's pin
    return { name, fingerprint: entry.fingerprint, launch: this.#launchLines(entry) };
  }

  /** Keeps the server from running until its config changes. */
  deny(name: string): void {
    const entry = this.#o.servers.entry(name);
    this.#o.state.deny(name, entry.fingerprint, this.#o.clock.now());
    this.#o.decided(name);
  }
}
