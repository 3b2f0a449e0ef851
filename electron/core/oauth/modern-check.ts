import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CLIENT_CAPABILITIES_KEY, MODERN_VERSION, PROTOCOL_VERSION_KEY } from '../../../shared/mcp-2026.ts';

/** How long the check waits for server/discover. */
const CHECK_TIMEOUT_MS = 5_000;

/**
 * Whether a remote server takes `bearer` and speaks MCP 2026-07-28: it answers `server/discover` at
 * that revision. A sign-in is checked by connecting with initialize, which a server that speaks only
 * 2026 refuses; this is its check instead (the same probe the supervisor sends, supervisor/modern-wire.ts,
 * here with the sign-in's new token). False on any refusal, error or silence.
 */
export async function takesBearerIn2026(
  url: string,
  headers: Record<string, string>,
  bearer: string | undefined,
  fetch: FetchLike = globalThis.fetch,
): Promise<boolean> {
  if (bearer === undefined) return false;
  const params = { _meta: { [PROTOCOL_VERSION_KEY]: MODERN_VERSION, [CLIENT_CAPABILITIES_KEY]: {} } };
  try {
    const response = await fetch(new URL(url), {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN_VERSION,
        'mcp-method': 'server/discover',
        authorization: `Bearer ${bearer}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'sign-in-check', method: 'server/discover', params }),
      signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
    });
    if (!response.ok) return false;
    const text = await response.text();
    // A JSON body, or the answer as an event's data.
    const json = text.trimStart().startsWith('{') ? text : (/^data: ?(.*)$/m.exec(text)?.[1] ?? '');
    const body = JSON.parse(json) as { result?: { supportedVersions?: unknown } };
    const versions = body.result?.supportedVersions;
    return Array.isArray(versions) && versions.includes(MODERN_VERSION);
  } catch {
    return false;
  }
}
