import type { AppState } from '../../../shared/schema/state.ts';

/**
 * The names whose trust decisions stay when servers.json is missing or empty (which forgets nothing
 * of the person's own: more likely a mistake than a wish) but project servers left: every name the
 * state holds except those.
 */
export function keptWithout(state: AppState, departed: ReadonlySet<string>): Set<string> {
  const names = [
    ...Object.keys(state.approvals),
    ...Object.keys(state.denials),
    ...Object.keys(state.sources),
    ...Object.keys(state.stopped ?? {}),
  ];
  return new Set(names.filter((name) => !departed.has(name)));
}
