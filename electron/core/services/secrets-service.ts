import type { StatusReport } from '../../../shared/status.ts';
import type { SecretInfo, SecretsResponse } from '../../../shared/ui-api.ts';
import { describeError, UserError } from '../errors.ts';
import type { Keychain } from '../secrets/keychain.ts';
import { listReferences } from '../secrets/references.ts';
import type { ServerEntry } from '../server-entry.ts';
import { compareNames } from '../text-order.ts';

export interface SecretsServiceOptions {
  keychain: Keychain;
  servers: { entries(): ReadonlyMap<string, ServerEntry> };
  /** the running servers, to restart those that use a secret just stored (absent: nothing runs here) */
  live?: {
    readonly running: boolean;
    restartServer(name: string): Promise<void>;
  };
  statuses?: { report(): Pick<StatusReport, 'servers'> };
}

/** The keychain's secrets as servers use them: which exist, which server uses which, and restarts after a change. */
export class SecretsService {
  readonly #o: SecretsServiceOptions;

  constructor(options: SecretsServiceOptions) {
    this.#o = options;
  }

  /**
   * Every secret the keychain holds or a server references, by name, with where each is used (never a
   * value). A keychain that cannot be read (locked, no Secret Service) is said in `keychainError`.
   */
  async list(): Promise<SecretsResponse> {
    let stored: string[] = [];
    let keychainError: string | null = null;
    try {
      stored = await this.#o.keychain.list();
    } catch (err) {
      if (!(err instanceof UserError)) throw err;
      keychainError = describeError(err);
    }
    const byName = new Map<string, SecretInfo>();
    for (const name of stored) byName.set(name, { name, stored: true, usedBy: [] });
    for (const entry of this.#o.servers.entries().values()) {
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
  users(secret: string): string[] {
    return [...this.#o.servers.entries().values()]
      .filter((e) => listReferences(e.config).some((r) => r.kind === 'secret' && r.name === secret))
      .map((e) => e.name);
  }

  /**
   * After a secret was stored: restarts the servers that use it and want to run (running, starting,
   * backing off, in a crash loop or waiting in error — e.g. for this very secret), so they pick it up.
   * Returns the names restarted; one that cannot restart keeps its state and its own error.
   */
  async restartUsers(secret: string): Promise<string[]> {
    const { live, statuses } = this.#o;
    if (!live?.running || !statuses) return [];
    const users = new Set(this.users(secret));
    const restartable = new Set(['running', 'starting', 'backoff', 'crash-loop', 'error']);
    const restarted: string[] = [];
    for (const status of statuses.report().servers) {
      if (!users.has(status.name) || !restartable.has(status.state)) continue;
      try {
        await live.restartServer(status.name);
        restarted.push(status.name);
      } catch {
        // It stays in its state with its own error; the secret is stored either way.
      }
    }
    return restarted;
  }
}
