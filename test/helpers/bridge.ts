import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TokenStore } from '../../electron/core/tokens/token-store.ts';

/** A bridge token for a test editor, from the running bridge's own token store. */
export function editorToken(tokens: TokenStore, name = 'test-editor'): string {
  return tokens.ensure(name);
}

/** A real MCP SDK client over Streamable HTTP, knowing only the URL and a token. */
export async function httpClient(url: string, token: string, name = 'test-editor'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** Closes every client of a test's list (one already closed or cut off is fine) and empties the list. */
export async function closeAll(clients: Client[]): Promise<void> {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
}

export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
}
