import type { Core } from '../core.ts';
import type { SyncServer } from './engine.ts';

/** The servers editors get: enabled, not refused (literal secret), and approved as configured now. */
export function syncServers(core: Core): SyncServer[] {
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
