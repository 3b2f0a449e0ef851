import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { MODERN, modernMeta, postModern, type ModernRequest } from '../../helpers/modern-era.ts';
import { everythingServer, NODE, startListening } from '../../helpers/servers.ts';

/**
 * The edge rules of MCP 2026-07-28 Streamable HTTP on the editors' side (issue 34; what the official
 * conformance suite's `server-stateless` scenario checks), and the stdio relay carrying a 2026 client.
 * Behind the bridge: server-everything over stdio (2025 only) and a 2026-only remote server (the SDK
 * v2 server, test/fixtures/modern-server.mjs) as a url entry.
 */

const setup = useHeadless();
const META = modernMeta('edge-probe');
const RELAY = fileURLToPath(new URL('../../../electron/relay/main.mjs', import.meta.url));

let remote: ChildProcess | undefined;
let token: string;

beforeAll(async () => {
  const modern = await startListening('modern-server.mjs', '0');
  remote = modern.child;
  const port = modern.port;
  setup.t.writeServers({
    mcpServers: { everything: everythingServer(), modern: { url: `http://127.0.0.1:${port}/mcp` } },
  });
  await setup.start({ editorSync: false });
  await setup.approveRunning(['everything', 'modern'], 45_000);
  token = setup.headless.tokens.ensure('test-editor');
  // the relay's editor (claude-desktop) reads its token from the home
  setup.headless.tokens.ensure('claude-desktop');
}, 60_000);

afterAll(() => {
  remote?.kill();
});

/** One raw POST as a 2026 client sends it, with the test editor's token (see postModern). */
const post = (path: string, body: ModernRequest, headers?: Record<string, string>) =>
  postModern(`${setup.base}${path}`, token, body, headers);

describe('2026-07-28 edge rules (Streamable HTTP)', () => {
  it.each(['/mcp/everything', '/mcp'])(
    'on %s refuses a request whose header says 2026-07-28 but whose body has no envelope (400, -32602)',
    async (path) => {
      for (const params of [{}, { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } }]) {
        const res = await post(path, { id: 101, method: 'server/discover', params });
        expect(res.status).toBe(400);
        expect(res.json).toMatchObject({ id: 101, error: { code: -32602 } });
      }
    },
  );

  it.each(['/mcp/everything', '/mcp'])(
    'on %s answers methods 2026-07-28 removed, and unknown ones, with 404 and -32601',
    async (path) => {
      for (const method of [
        'initialize',
        'ping',
        'logging/setLevel',
        'resources/subscribe',
        'resources/unsubscribe',
        'unknown/method',
      ]) {
        const res = await post(path, {
          id: 500,
          method,
          params: { uri: 'demo://resource/static/document/1', _meta: META },
        });
        expect([method, res.status]).toEqual([method, 404]);
        expect(res.json).toMatchObject({ id: 500, error: { code: -32601 } });
      }
    },
  );

  it('refuses a body revision its MCP-Protocol-Version header does not name with -32020, not -32022', async () => {
    const res = await post('/mcp/everything', {
      id: 302,
      method: 'server/discover',
      params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' } },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ id: 302, error: { code: -32020 } });
  });

  it("passes a 2026 server's missing-capability refusal (-32021) to the editor with HTTP 400", async () => {
    // `confirm` elicits; this editor declared no elicitation, so the server refuses the call itself.
    const res = await post('/mcp/modern', {
      id: 401,
      method: 'tools/call',
      params: { name: 'confirm', arguments: { action: 'x' }, _meta: META },
    });
    expect(res.json).toMatchObject({ id: 401, error: { code: -32021 } });
    expect(res.status).toBe(400);
  });
});

describe('the stdio relay carries both eras', () => {
  const relay = { command: NODE, args: [RELAY, '--server', 'everything'] };
  const env = () => ({ PATH: process.env.PATH ?? '', SWITCHBOARD_HOME: setup.t.home.root });

  it('gives the SDK v2 client over stdio 2026-07-28, and its tool calls work', async () => {
    const client = new ModernClient(
      { name: 'sdk-v2-stdio', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(new ModernStdioTransport({ ...relay, env: env() }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      const echo = await client.callTool({ name: 'echo', arguments: { message: 'über stdio' } });
      expect(textOf(echo)).toBe('Echo: über stdio');
    } finally {
      await client.close();
    }
  });

  it('still gives the SDK v1 client 2025-11-25', async () => {
    const client = new Client({ name: 'sdk-v1-stdio', version: '1.0.0' });
    const transport = new StdioClientTransport({ ...relay, env: env() });
    // The v1 client keeps the version it agreed on to itself: read it off initialize's answer (the
    // client chains a handler set before connect).
    let agreed: unknown;
    transport.onmessage = (message: JSONRPCMessage) => {
      agreed ??= (message as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    };
    await client.connect(transport);
    try {
      expect(agreed).toBe('2025-11-25');
      const echo = await client.callTool({ name: 'echo', arguments: { message: 'legacy' } });
      expect(textOf(echo)).toBe('Echo: legacy');
    } finally {
      await client.close();
    }
  });
});
