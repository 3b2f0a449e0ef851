import type { OwnershipContext } from './types.ts';

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** http://127.0.0.1:<port>/mcp/<server>: the URL a managed entry gives an editor. */
export function bridgeUrl(port: number, server: string): string {
  return `http://127.0.0.1:${port}/mcp/${encodeURIComponent(server)}`;
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
  if (!ownership.ports.has(port)) return false;
  return url.pathname === '/mcp' || url.pathname.startsWith('/mcp/');
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
