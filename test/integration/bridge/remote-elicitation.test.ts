import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureHttp, type Running } from '../../conformance/endpoints.ts';
import { textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';

// A remote (url) server asks the editor for elicitation during a tool call, through the bridge: a
// real SDK client with an elicitation handler answers, and the answer reaches the server (its tool
// result quotes it). Two remotes, both the conformance fixture over Streamable HTTP: one sends its
// request on the call's stream; one first lets go of that stream while it waits (SEP-1699 polling),
// so the request comes on the GET that resumes it. Issue 36 item 1: the second was refused as
// "no editor's request to … is in flight".

const setup = useHeadless();
const fixtures: Running[] = [];

beforeAll(async () => {
  const plain = await startFixtureHttp();
  fixtures.push(plain);
  const polling = await startFixtureHttp({ poll: true });
  fixtures.push(polling);
  setup.t.writeServers({
    mcpServers: { 'remote-plain': { url: plain.url }, 'remote-poll': { url: polling.url } },
  });
  await setup.start();
  await setup.approveRunning(['remote-plain', 'remote-poll'], 30_000);
}, 60_000);

afterAll(async () => {
  await Promise.all(fixtures.map((f) => f.stop()));
});

/** A real SDK client as an editor that accepts every elicitation with a name, remembering what it was asked. */
async function editor(path: string): Promise<{ client: Client; asked: string[] }> {
  const client = new Client(
    { name: 'elicit-editor', version: '1.0.0' },
    { capabilities: { elicitation: {} } },
  );
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { username: 'ada', email: 'ada@example.org' } };
  });
  const token = setup.headless.tokens.ensure('elicit-editor');
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${setup.base}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  setup.clients.push(client);
  return { client, asked };
}

describe('a remote server asks the editor during a tool call', () => {
  for (const server of ['remote-plain', 'remote-poll']) {
    it(`${server}: the editor is asked, and its answer goes back to the server`, async () => {
      const { client, asked } = await editor(`/mcp/${server}`);
      const result = await client.callTool({
        name: 'test_elicitation',
        arguments: { message: 'Who are you?' },
      });
      expect(textOf(result)).toBe(
        'User response: action=accept, content={"username":"ada","email":"ada@example.org"}',
      );
      expect(result.isError).toBeFalsy();
      expect(asked).toEqual(['Who are you?']);
    }, 30_000);
  }

  it('through the aggregate /mcp too, the request naming the server', async () => {
    const { client, asked } = await editor('/mcp');
    const { tools } = await client.listTools();
    const name = tools
      .map((t) => t.name)
      .find((n) => n.includes('remote-poll') && n.includes('test_elicitation'));
    expect(name).toBeDefined();
    const result = await client.callTool({ name: name ?? '', arguments: { message: 'And now?' } });
    expect(textOf(result)).toContain('action=accept');
    expect(asked).toEqual(['[server remote-poll] And now?']);
  }, 30_000);
});
