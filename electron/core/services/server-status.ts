import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { displayText } from '../../../shared/display-text.ts';
import { isRemote } from '../../../shared/schema/servers.ts';
import type { ServerStatus, StatusReport } from '../../../shared/status.ts';
import { offeredCount } from '../../../shared/tool-filter.ts';
import { UserError } from '../errors.ts';
import type { ServerLists } from '../lists/server-lists.ts';
import type { SandboxPolicy } from '../sandbox/policy.ts';
import { summarizeAccess } from '../sandbox/words.ts';
import type { ServerEntry } from '../server-entry.ts';
import type { PackageApprovals } from '../store/package-approvals.ts';
import type { Supervisor } from '../supervisor/supervisor.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import type { ToolGate } from '../trust/tool-pins.ts';

export interface ServerStatusOptions {
  state: Pick<AppStateStore, 'decision'>;
  servers: {
    entries(): ReadonlyMap<string, ServerEntry>;
    entry(name: string): ServerEntry;
    ownFolder(name: string): string;
    configError(): string | null;
  };
  packageTrust: Pick<PackageApprovals, 'blocked'>;
  sandbox: { policyOf(entry: ServerEntry): SandboxPolicy | undefined };
  /** the running supervisor and the lists of servers' last runs (absent: nothing runs here) */
  live?: {
    supervisor(): Pick<Supervisor, 'statusOf'> | undefined;
    lists(name: string): Pick<ServerLists, 'tools'> | undefined;
  };
  /** what each server's pin holds back (absent: nothing runs here, nothing is held) */
  tools?: {
    cachedGate(name: string): ToolGate | undefined;
    currentTools(name: string): readonly Tool[] | undefined;
  };
}

/** Each server's status as a person should see it: trust and config decide before the supervisor does. */
export class ServerStatuses {
  readonly #o: ServerStatusOptions;

  constructor(options: ServerStatusOptions) {
    this.#o = options;
  }

  report(): StatusReport {
    return {
      live: this.#o.live?.supervisor() !== undefined,
      configError: this.#o.servers.configError(),
      servers: [...this.#o.servers.entries().keys()]
        .map((name) => this.of(name))
        .filter((s) => s !== undefined),
    };
  }

  /** One server's status; undefined when it is not configured. */
  of(name: string): ServerStatus | undefined {
    const entry = this.#o.servers.entries().get(name);
    if (!entry) return undefined;
    const policy = this.#o.sandbox.policyOf(entry);
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
      ...(isRemote(entry.config) ? {} : { folder: entry.config.cwd ?? this.#o.servers.ownFolder(name) }),
    };
    if (!entry.config.enabled) return { ...base, state: 'disabled' };
    if (entry.refusal) return { ...base, state: 'error', lastError: displayText(entry.refusal) };
    const decision = this.#o.state.decision(name, entry.fingerprint);
    if (decision === 'denied') return { ...base, state: 'denied' };
    if (decision === 'pending') return { ...base, state: 'pending-approval' };
    const blocked = this.#o.packageTrust.blocked(entry);
    if (blocked) return { ...base, state: 'pending-approval', lastError: displayText(blocked) };
    const live = this.#o.live?.supervisor()?.statusOf(name);
    if (!live) return base;
    const gate = this.#o.tools?.cachedGate(name);
    const held = gate?.held.size ?? 0;
    const promptsHeld = gate?.prompts.held.size ?? 0;
    // An idle server's tools are those of its last run.
    const listed =
      live.toolCount ?? (live.state === 'idle' ? (this.#o.live?.lists(name)?.tools.length ?? null) : null);
    // Counted as editors get them: what its "tools" filter turns off is not.
    const tools = entry.config.tools && listed !== null ? this.#o.tools?.currentTools(name) : undefined;
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

  /** Refuses a start of a server that may not run, saying why and what to do. */
  requireRunnable(name: string): void {
    const entry = this.#o.servers.entry(name); // "no server named …", before any state is looked at
    const status = this.of(name);
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
    if (status?.state === 'error' && entry.refusal) {
      throw new UserError(`server "${name}" cannot start: ${entry.refusal}`);
    }
  }
}
