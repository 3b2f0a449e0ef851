import type { PlannedImport } from './file-plan.ts';

/**
 * The managed entries that stand where a user's entry goes back when imported entries are given back
 * (JSON, TOML and YAML alike): those that replaced an entry import took over, and those next to where
 * an entry was taken out (a neighbour named like an entry import replaced was that user entry, which
 * comes back first). They are dropped first, so the user's entries return to their places.
 */
export function managedInUserPlaces(all: readonly PlannedImport[]): (key: string) => boolean {
  const replacedBy = new Set(all.filter((e) => e.place === 'replaced').map((e) => e.server));
  const users = new Set(
    all.filter((e) => e.entry !== e.server || e.place === 'taken-out').map((e) => e.entry),
  );
  const neighbours = new Set(
    all
      .flatMap((e) => (e.gap ? [e.gap.prev, e.gap.next] : []))
      .filter((k): k is string => k !== null && !users.has(k)),
  );
  return (key) => replacedBy.has(key) || neighbours.has(key);
}
