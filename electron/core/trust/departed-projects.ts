import type { AppState } from '../../../shared/schema/state.ts';
import { serverNamesIn } from './app-state.ts';

/**
 * The names whose trust decisions stay when servers.json is missing or empty (which forgets nothing
 * of the person's own: more likely a mistake than a wish) but project servers left: every name the
 * state holds except those.
 */
export function keptWithout(state: AppState, departed: ReadonlySet<string>): Set<string> {
  return new Set([...serverNamesIn(state)].filter((name) => !departed.has(name)));
}
