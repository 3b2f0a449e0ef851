import type { EditorAdapter, OwnershipContext } from './types.ts';

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** http://127.0.0.1:<port>/mcp/<server>: the URL a managed entry gives an editor. */
export function bridgeUrl(port: number, server: string): string {
  return `http://127.0.0.1:${port}/mcp/${encodeURIComponent(server)}`;
}

/** http://127.0.0.1:<port>/mcp: the aggregate endpoint, the one entry of an editor in discovery mode. */
export function aggregateUrl(port: number): string {
  return `http://127.0.0.1:${port}/mcp`;
}

/** Does this URL point at this bridge (loopback, one of its ports, an /mcp endpoint)? */
export function isBridgeUrl(value: unknown, ownership: OwnershipContext): boolean {
  if (typeof value !== 'string') return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' || !LOCAL_HOSTS.has(url.hostname)) return false;
  const port = Number(url.port || 80);
  if (ownership.ports !== 'any' && !ownership.ports.has(port)) return false;
  return url.pathname === '/mcp' || url.pathname.startsWith('/mcp/');
}

/**
 * Is this entry of an editor's file Switchboard's? Only if Switchboard wrote it: its name is in the
 * record of what Switchboard wrote there (state.json), and it still points at a bridge of this home
 * (on any port: a port or token changed by hand is drift, put back). An entry Switchboard did not
 * write is the user's, even one that points at the bridge (written by hand, say to take the token
 * from an environment variable): never changed or removed, and a server of its name is a clash. A
 * recorded name whose entry now runs something else entirely (another URL, a command) was taken
 * over by the user: theirs too. A file an older Switchboard wrote before the record keeps the old
 * rule (pointing at this bridge, on a port it used) until its next sync records the names.
 */
export function ownsEntry(
  adapter: EditorAdapter,
  ownership: OwnershipContext,
  name: string,
  entry: unknown,
): boolean {
  if (ownership.written === undefined) return adapter.pointsAtBridge(entry, ownership);
  return ownership.written.has(name) && adapter.pointsAtBridge(entry, { ...ownership, ports: 'any' });
}

/** A JSON object of string values (env, headers), or undefined when it is something else. */
export function stringRecord(value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') return undefined;
    out[k] = v;
  }
  return out;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
