import type { EditorId } from '../../../shared/editors.ts';
import type { EditorSettings } from '../../../shared/schema/state.ts';
import type { ServerEntry } from '../server-entry.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import { compareNames } from '../text-order.ts';

/** A server every (allowed) editor should have: approved, enabled, and its own `editors` list. */
export interface SyncServer {
  name: string;
  /** from servers.json; undefined = every editor */
  editors?: readonly EditorId[] | undefined;
}

/** What choosing the servers editors get uses of the core: its entries and the approvals. */
export interface SyncServersCore {
  readonly state: Pick<AppStateStore, 'read'>;
  readonly servers: { entries(): ReadonlyMap<string, ServerEntry> };
}

/** The servers editors get: enabled, not refused (literal secret), and approved as configured now. */
export function syncServers(core: SyncServersCore): SyncServer[] {
  const servers: SyncServer[] = [];
  const { approvals } = core.state.read();
  for (const entry of core.servers.entries().values()) {
    if (!entry.config.enabled || entry.refusal) continue;
    if (approvals[entry.name]?.fingerprint !== entry.fingerprint) continue;
    servers.push({ name: entry.name, editors: entry.config.editors });
  }
  return servers.sort((a, b) => compareNames(a.name, b.name));
}

/** A stable text for "the set editors get changed": names and their editor limits. */
export function syncSignature(servers: readonly SyncServer[]): string {
  return JSON.stringify(servers.map((s) => [s.name, s.editors ?? null]));
}

/** The servers an editor gets: its own `editors` lists allow it and its settings do not exclude it. */
export function serversForEditor(
  editor: EditorId,
  servers: readonly SyncServer[],
  settings: EditorSettings,
): string[] {
  const exclude = new Set(settings.exclude);
  return servers
    .filter((s) => (s.editors === undefined || s.editors.includes(editor)) && !exclude.has(s.name))
    .map((s) => s.name)
    .sort();
}

/**
 * An editor's server selection changed (`sync --editor E --exclude S` / `--include S`): those in
 * `exclude` are left out of its file from now on, those in `include` come back.
 */
export function changeExclusions(
  settings: EditorSettings,
  change: { exclude?: readonly string[] | undefined; include?: readonly string[] | undefined },
): void {
  const include = change.include ?? [];
  settings.exclude = [
    ...new Set([...settings.exclude.filter((n) => !include.includes(n)), ...(change.exclude ?? [])]),
  ].sort();
}
