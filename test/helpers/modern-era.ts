import type { HeadlessSetup } from './headless.ts';
import { startListening } from './servers.ts';

/** MCP's 2026-07-28 era on the wire, for the tests that speak it to the bridge by hand. */

export const MODERN = '2026-07-28';

/** The `_meta` envelope a 2026 client puts in each request's params, as client `name`. */
export function modernMeta(name: string): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name, version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}

export interface ModernRequest {
  id?: number;
  method: string;
  params?: Record<string, unknown>;
}

/**
 * One raw POST of `body` to `url` as a 2026 client sends it, with `token`: its headers (version,
 * method, name) derived from the body unless `headers` says otherwise. The status and the JSON
 * answer ({} when the body is empty).
 */
export async function postModern(
  url: string,
  token: string,
  body: ModernRequest,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const name = body.params?.name;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': body.method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: body.id ?? 1, method: body.method, params: body.params }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/**
 * The 2026-only fixture server (test/fixtures/modern-server.mjs) as the home's one server, a url
 * entry named "modern"; the core started on it (no editor sync), the server approved and running.
 * Its port, and the test editor's token. The fixture is stopped with the file's teardown.
 */
export async function startModernRemote(setup: HeadlessSetup): Promise<{ port: number; token: string }> {
  const { child, port } = await startListening('modern-server.mjs', '0');
  setup.defer(() => child.kill());
  setup.t.writeServers({ mcpServers: { modern: { url: `http://127.0.0.1:${port}/mcp` } } });
  await setup.start({ editorSync: false });
  await setup.approveRunning(['modern'], 30_000);
  return { port, token: setup.headless.tokens.ensure('test-editor') };
}
