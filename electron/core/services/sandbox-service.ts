import { isRemote } from '../../../shared/schema/servers.ts';
import type { HomePaths } from '../home.ts';
import type { Resolve } from '../sandbox/network-gate.ts';
import type { SandboxPolicy } from '../sandbox/policy.ts';
import { Sandboxes, type Program } from '../sandbox/sandboxes.ts';
import { serverPolicy } from '../sandbox/server-policy.ts';
import { sandboxSupportFor, type SandboxSupport } from '../sandbox/support.ts';
import { describeAccess } from '../sandbox/words.ts';
import type { ServerEntry } from '../server-entry.ts';
import { describeBaseEnvironment } from '../supervisor/base-env.ts';
import type { SandboxRun } from '../supervisor/types.ts';

export interface SandboxServiceOptions {
  home: HomePaths;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  commandPath: string | undefined;
  /** each editor's settings file: every sandbox hides the bridge tokens written there */
  tokenFiles: readonly string[];
  /** name lookups of sandboxed servers' network proxies (default: the OS resolver) */
  networkLookup?: Resolve | undefined;
  servers: { entry(name: string): ServerEntry };
}

/**
 * Local servers' OS sandboxes: what this machine offers, each entry's policy and its words (shown on
 * status and approval), and, once started, the sandboxes servers run in with their network proxies.
 */
export class SandboxService {
  readonly #options: SandboxServiceOptions;
  /** servers' OS sandboxes and their network proxies (made at start) */
  #sandboxes: Sandboxes | undefined;
  /** each entry's sandbox as shown (status, approval), computed once per entry */
  readonly #policies = new WeakMap<ServerEntry, SandboxPolicy>();

  constructor(options: SandboxServiceOptions) {
    this.#options = options;
  }

  /** What this machine offers to sandbox local servers with (looked at once). */
  support(): SandboxSupport {
    return sandboxSupportFor(this.#options.platform, this.#options.commandPath);
  }

  /** A local server's access in its sandbox, in plain words (empty for a remote server). */
  access(name: string): string[] {
    return this.accessOf(this.#options.servers.entry(name));
  }

  /** An entry's access in plain words; `program`: what runs instead of its command (a stored package's node). */
  accessOf(entry: ServerEntry, program?: string): string[] {
    const policy = this.policyOf(entry, program !== undefined, undefined, program);
    return policy
      ? [...describeAccess(policy), describeBaseEnvironment(this.#options.env, this.#options.platform)]
      : [];
  }

  /**
   * The sandbox policy of a local server (shown: computed once per entry). `runs`: the program a
   * start runs instead of its command (a stored package's node).
   */
  policyOf(entry: ServerEntry, fresh = false, stored?: string, runs?: string): SandboxPolicy | undefined {
    if (isRemote(entry.config)) return undefined;
    const known = fresh ? undefined : this.#policies.get(entry);
    if (known) return known;
    const { home, env, platform } = this.#options;
    const policy = serverPolicy(
      entry.name,
      entry.config,
      entry.launch,
      { support: this.support(), home, env, platform, tokenFiles: this.#options.tokenFiles },
      stored,
      runs === undefined ? undefined : [runs],
    );
    if (!fresh) this.#policies.set(entry, policy);
    return policy;
  }

  /** Makes the sandboxes servers run in (at start). */
  start(): void {
    this.#sandboxes ??= new Sandboxes({ support: this.support(), resolve: this.#options.networkLookup });
  }

  /** A start of the entry's program in its sandbox, computed again at each start: what its arguments name may have appeared on disk since. */
  async wrap(
    entry: ServerEntry,
    program: Program,
    stored?: string,
  ): Promise<{ program: Program; run?: SandboxRun }> {
    const policy = this.policyOf(entry, true, stored, program.command);
    if (!policy || !this.#sandboxes) return { program };
    return this.#sandboxes.wrap(program, policy);
  }

  async dispose(): Promise<void> {
    const sandboxes = this.#sandboxes;
    this.#sandboxes = undefined;
    await sandboxes?.dispose();
  }
}
