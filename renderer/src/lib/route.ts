/**
 * Hash routes (#/servers/everything/logs): work the same served over HTTP and loaded from a file in
 * the desktop app, and never send anything to the server.
 */
export type ServerTab = 'config' | 'tools' | 'activity' | 'logs';
export type Route =
  | { view: 'servers' }
  | { view: 'add' }
  | { view: 'server'; name: string; tab: ServerTab }
  /** `server`: the approval to bring into view (desktop notifications and install links open these) */
  | { view: 'approvals'; server?: string }
  | { view: 'editors' }
  | { view: 'secrets' }
  | { view: 'projects' }
  | { view: 'settings' }
  /** the MCP Registry catalog; `server` (a registry name) opens its details, at `version` if given */
  | { view: 'catalog'; server?: string; version?: string };

export function parseRoute(hash: string): Route {
  const parts = hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  const [first, second, third] = parts;
  switch (first) {
    case 'add':
      return { view: 'add' };
    case 'servers':
      if (second) {
        const tab: ServerTab =
          third === 'tools' || third === 'activity' || third === 'logs' ? third : 'config';
        return { view: 'server', name: second, tab };
      }
      return { view: 'servers' };
    case 'approvals':
      return second ? { view: 'approvals', server: second } : { view: 'approvals' };
    case 'editors':
    case 'secrets':
    case 'settings':
    case 'projects':
      return { view: first };
    case 'catalog':
      return second
        ? { view: 'catalog', server: second, ...(third ? { version: third } : {}) }
        : { view: 'catalog' };
    default:
      return { view: 'servers' };
  }
}

export function href(route: Route): string {
  switch (route.view) {
    case 'server':
      return `#/servers/${encodeURIComponent(route.name)}${route.tab === 'config' ? '' : `/${route.tab}`}`;
    case 'approvals':
      return route.server ? `#/approvals/${encodeURIComponent(route.server)}` : '#/approvals';
    case 'catalog':
      return route.server
        ? `#/catalog/${encodeURIComponent(route.server)}${route.version ? `/${encodeURIComponent(route.version)}` : ''}`
        : '#/catalog';
    default:
      return `#/${route.view}`;
  }
}
