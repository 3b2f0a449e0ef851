import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ensureToken } from '../../electron/core/bridge/auth.ts';
import type { HomePaths } from '../../electron/core/home.ts';

/** A bridge token for a test editor. */
export function editorToken(home: HomePaths): string {
  return ensureToken(home.tokens, 'editor');
}

/** A real MCP SDK client over Streamable HTTP, knowing only the URL and a token. */
export async function httpClient(url: string, token: string, name = 'test-editor'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
}
