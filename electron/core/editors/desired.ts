import type { ServerEntry } from '../server-entry.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import type { SyncServer } from './engine.ts';

/** What choosing the servers editors get uses of the core: its entries and the approvals. */
export interface SyncServersCore {
  readonly state: Pick<AppStateStore, 'read'>;
  entries(): ReadonlyMap<string, ServerEntry>;
}

/** The servers editors get: enabled, not refused (literal secret), and approved as configured now. */
export function syncServers(core: SyncServersCore): SyncServer[] {
  const servers: SyncServer[] = [];
  const { approvals } = core.state.read();
  for (const entry of core.entries().values()) {
    if (!entry.config.enabled || entry.refusal) continue;
    if (approvals[entry.name]?.fingerprint !== entry.fingerprint) continue;
    servers.push({ name: entry.name, editors: entry.config.editors });
  }
  return servers.sort((a, b) => a.name.localeCompare(b.name));
}

/** A stable text for "the set editors get changed": names and their editor limits. */
export function syncSignature(servers: readonly SyncServer[]): string {
  return JSON.stringify(servers.map((s) => [s.name, s.editors ?? null]));
}
