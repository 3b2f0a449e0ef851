import { useSyncExternalStore } from 'react';
import { href, parseRoute, type Route } from './lib/route.ts';

export { href, parseRoute };
export type { Route, ServerTab } from './lib/route.ts';

/** Moves to a route (a hash change: no reload, and the back button works). */
export function navigate(route: Route): void {
  window.location.hash = href(route);
}

function subscribe(listener: () => void): () => void {
  window.addEventListener('hashchange', listener);
  return () => window.removeEventListener('hashchange', listener);
}

export function useHash(): string {
  return useSyncExternalStore(subscribe, () => window.location.hash);
}

export function useRoute(): Route {
  return parseRoute(useHash());
}
