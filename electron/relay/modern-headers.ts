// The Streamable HTTP headers a 2026-07-28 request carries, derived from its body: the stdio relay's
// editor sends only lines, and the bridge refuses a 2026 request without them (-32020). Dependency
// free (loaded by the relay, see relay.ts).
import { encodeHeaderValue, MCP_NAME_FIELD, PROTOCOL_VERSION_KEY } from '../../shared/mcp-2026.ts';

/**
 * `MCP-Protocol-Version`, `Mcp-Method` and (where the method names something) `Mcp-Name` for one
 * request line whose `_meta` names its revision; undefined for anything else (2025 traffic, a
 * notification, a response, a batch), which goes with the headers it always had.
 */
export function modernHeaders(message: unknown): Record<string, string> | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
  if (id === undefined || typeof method !== 'string') return undefined;
  if (typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  const version =
    typeof meta === 'object' && meta !== null
      ? (meta as Record<string, unknown>)[PROTOCOL_VERSION_KEY]
      : undefined;
  if (typeof version !== 'string') return undefined;
  const headers: Record<string, string> = { 'mcp-protocol-version': version, 'mcp-method': method };
  const field = MCP_NAME_FIELD.get(method);
  const named = field === undefined ? undefined : (params as Record<string, unknown>)[field];
  if (typeof named === 'string') headers['mcp-name'] = encodeHeaderValue(named);
  return headers;
}
