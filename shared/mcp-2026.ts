/**
 * The MCP 2026-07-28 wire's fixed names, shared by the bridge (editors' side), the supervisor
 * (servers' side) and the stdio relay: the revision, the `_meta` envelope's keys, and the
 * `Mcp-Name` header's field per method with the spec's encoding of a header value.
 */

/** The revision a request names in its `_meta` to be answered in the 2026 era. */
export const MODERN_VERSION = '2026-07-28';

export const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
export const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
export const SUBSCRIPTION_ID_KEY = 'io.modelcontextprotocol/subscriptionId';

/** Which body field the Mcp-Name header mirrors, per method (Streamable HTTP, standard headers). */
export const MCP_NAME_FIELD: ReadonlyMap<string, string> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
]);

/** An HTTP field value as the spec writes it: plain when safe ASCII, else `=?base64?…?=`. */
export function encodeHeaderValue(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value) && value.trim() === value) return value;
  let binary = '';
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

/**
 * A header value read back: plain as it is, the `=?base64?<utf-8 as base64>?=` form decoded.
 * Undefined when the wrapped form does not decode.
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!value.startsWith('=?base64?') || !value.endsWith('?=')) return value;
  const b64 = value.slice('=?base64?'.length, -'?='.length);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) return undefined;
  try {
    const bytes = Uint8Array.from(atob(b64), (char) => char.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
