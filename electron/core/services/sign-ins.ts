import type { EventEmitter } from 'node:events';
import { isRemote } from '../../../shared/schema/servers.ts';
import type { SignInInfo, SignInOutcome, SignInRequest, SignInStart } from '../../../shared/sign-in.ts';
import type { ServerStatus } from '../../../shared/status.ts';
import type { CoreEvents } from '../core-events.ts';
import { UserError } from '../errors.ts';
import { prepareLaunch, type LaunchDeps } from '../launch-plan.ts';
import type { SignInService, SignInServiceOptions } from '../oauth/sign-in-service.ts';
import type { ServerEntry } from '../server-entry.ts';
import type { Supervisor } from '../supervisor/supervisor.ts';
import type { LaunchPlan } from '../supervisor/types.ts';

type RemotePlan = Extract<LaunchPlan, { transport: 'http' }>;

export interface SignInsOptions {
  /** the sign-in service's options but what is done when a sign-in ends (that is this service's) */
  service: Omit<SignInServiceOptions, 'onDone'>;
  launch: LaunchDeps;
  events: Pick<EventEmitter<CoreEvents>, 'emit'>;
  servers: { entry(name: string): ServerEntry };
  statuses: { of(name: string): ServerStatus | undefined };
  live: { supervisor(): Pick<Supervisor, 'statusOf' | 'restart'> | undefined };
}

/**
 * Sign-in to remote servers (OAuth). The SDK's auth client and our sign-in code load at their first
 * use (a remote server starting, a sign-in): a serve of local servers never carries them
 * (docs/decisions/performance-choices.md, "What serve loads only when it is used").
 */
export class SignIns {
  readonly #o: SignInsOptions;
  #service: Promise<SignInService> | undefined;

  constructor(options: SignInsOptions) {
    this.#o = options;
  }

  #signInService(): Promise<SignInService> {
    this.#service ??= import('../oauth/sign-in-service.ts').then(
      ({ SignInService }) =>
        new SignInService({ ...this.#o.service, onDone: (outcome) => void this.#signInDone(outcome) }),
    );
    return this.#service;
  }

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
    const entry = this.#o.servers.entry(name);
    if (!isRemote(entry.config)) throw new UserError(`"${name}" is a local server: it has no sign-in`);
    const had = await (await this.#signInService()).forget(name);
    const supervisor = this.#o.live.supervisor();
    const state = supervisor?.statusOf(name)?.state;
    if (state && state !== 'stopped') await supervisor?.restart(name);
    return had;
  }

  /** What Switchboard holds of a remote server's sign-in (never the tokens). */
  async signInInfo(name: string): Promise<SignInInfo> {
    const entry = this.#o.servers.entry(name);
    // Its URL may hold a ${secret:…} that cannot be read now: then nothing can be said about it.
    const url = isRemote(entry.config)
      ? await this.#launchPlan(entry).then(
          (plan) => plan.url,
          () => undefined,
        )
      : undefined;
    return (await this.#signInService()).info(name, url);
  }

  /** The auth a remote server's connection uses (its tokens, refreshed), if it has any. */
  async authFor(name: string, plan: RemotePlan): Promise<ReturnType<SignInService['authFor']>> {
    return (await this.#signInService()).authFor(name, plan);
  }

  /** Ends the sign-ins in progress (their loopback redirects), if any was ever started. */
  async closeAll(): Promise<void> {
    await (await this.#service)?.closeAll();
  }

  async #signInDone(outcome: SignInOutcome): Promise<void> {
    if (outcome.result === 'signed-in') {
      // Its connection picks the new tokens up from a fresh start.
      const supervisor = this.#o.live.supervisor();
      const state = supervisor?.statusOf(outcome.name)?.state;
      if (state && state !== 'stopped') await supervisor?.restart(outcome.name).catch(() => {});
    }
    this.#o.events.emit('signIn', outcome);
  }

  /** The resolved launch of an approved, enabled remote server, for signing in to it. */
  async #remotePlan(name: string): Promise<RemotePlan> {
    const entry = this.#o.servers.entry(name);
    if (!isRemote(entry.config))
      throw new UserError(`"${name}" is a local server: only remote (url) servers sign in`);
    const status = this.#o.statuses.of(name);
    if (status?.state === 'pending-approval' || status?.state === 'denied') {
      throw new UserError(`"${name}" is not approved, and signing in connects to it`, {
        hint: `approve it first (switchboard approve ${name})`,
      });
    }
    if (status?.state === 'disabled')
      throw new UserError(`"${name}" is disabled`, { hint: 'set "enabled": true in servers.json first' });
    return this.#launchPlan(entry);
  }

  async #launchPlan(entry: ServerEntry): Promise<RemotePlan> {
    const plan = await prepareLaunch(entry, this.#o.launch);
    if (plan.transport !== 'http') throw new Error(`"${entry.name}" is not a remote server`);
    return plan;
  }
}
