import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { SERVER_META_KEY } from '../../../electron/core/bridge/server-attribution.ts';
import { textOf } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer, startListening, waitFor } from '../../helpers/servers.ts';

/**
 * MRTR on the editors' side (issue 34): a server that speaks 2025 only (test/fixtures/phisher-server.mjs,
 * SDK 1.x, over stdio and over Streamable HTTP) elicits and samples during a call of a 2026-07-28
 * client (the SDK v2 client, whose built-in driver answers input_required with its registered
 * handlers). The call's answer is input_required naming the server; the retry's input reaches the
 * server, and the call ends. A requestState that is forged, altered, another token's or endpoint's,
 * used twice or expired is refused, and its input reaches no server.
 */

const setup = useHeadless();
const MODERN = '2026-07-28';
const INPUT_TIMEOUT_MS = 2_500;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  const web = await startListening('phisher-server.mjs', '--http', '0');
  setup.defer(() => web.child.kill());
  setup.t.writeServers({
    mcpServers: {
      evil: fixtureServer('phisher-server.mjs'),
      evilweb: { url: `http://127.0.0.1:${web.port}/mcp` },
    },
  });
  await setup.start({ editorSync: false, inputTimeoutMs: INPUT_TIMEOUT_MS });
  await setup.approveRunning(['evil', 'evilweb'], 45_000);
  for (const name of ['test-editor', 'other-editor']) tokens[name] = setup.headless.tokens.ensure(name);
}, 60_000);

interface Asked {
  method: string;
  params: Record<string, unknown>;
}

/** The SDK v2 client at 2026-07-28 that answers elicitation and sampling (and roots) as a person might. */
async function modernEditor(path: string): Promise<{ client: ModernClient; asked: Asked[] }> {
  const asked: Asked[] = [];
  const client = new ModernClient(
    { name: 'sdk-v2', version: '1.0.0' },
    {
      versionNegotiation: { mode: 'auto' },
      capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
    },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push({ method: request.method, params: request.params as Record<string, unknown> });
    return { action: 'accept', content: { password: 'hunter2' } };
  });
  client.setRequestHandler('sampling/createMessage', async (request) => {
    asked.push({ method: request.method, params: request.params as Record<string, unknown> });
    return { role: 'assistant', model: 'm', content: { type: 'text', text: 'sampled' } };
  });
  client.setRequestHandler('roots/list', async (request) => {
    asked.push({ method: request.method, params: (request.params ?? {}) as Record<string, unknown> });
    return { roots: [{ uri: 'file:///work/project', name: 'project' }] };
  });
  await client.connect(
    new ModernTransport(new URL(`${setup.base}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${tokens['test-editor']}` } },
    }),
  );
  return { client, asked };
}

const serverOf = (params: Record<string, unknown>) =>
  (params._meta as Record<string, unknown> | undefined)?.[SERVER_META_KEY];

describe('MRTR: a 2025 server asks a 2026-07-28 editor during its call', () => {
  it.each([
    ['/mcp/evil', 'ask', 'evil', false],
    ['/mcp/evilweb', 'ask', 'evilweb', false],
    ['/mcp', 'evil__ask', 'evil', true],
  ])(
    'on %s an elicitation comes as input_required naming its server, and the answer reaches it',
    async (path, tool, server, inWords) => {
      const { client, asked } = await modernEditor(path);
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
        const result = await client.callTool({ name: tool, arguments: { message: 'Your password?' } });
        expect(result.isError).toBeFalsy();
        // The server got the person's answer through the retry.
        expect(JSON.parse(textOf(result))).toEqual({ action: 'accept', content: { password: 'hunter2' } });
        expect(asked).toHaveLength(1);
        const [elicitation] = asked as [Asked];
        expect(elicitation.method).toBe('elicitation/create');
        expect(serverOf(elicitation.params)).toBe(server);
        expect(elicitation.params.message).toBe(
          inWords ? `[server ${server}] Your password?` : 'Your password?',
        );
      } finally {
        await client.close();
      }
    },
    60_000,
  );

  it('loops: an elicitation and then a sampling request in one call are two rounds; roots are not asked', async () => {
    const { client, asked } = await modernEditor('/mcp');
    try {
      const result = await client.callTool({
        name: 'evil__ask-then-sample',
        arguments: { message: 'Go on?' },
      });
      expect(JSON.parse(textOf(result))).toEqual({
        asked: { action: 'accept', content: { password: 'hunter2' } },
        sampled: { type: 'text', text: 'sampled' },
      });
      expect(asked.map((a) => a.method)).toEqual(['elicitation/create', 'sampling/createMessage']);
      const sampling = (asked[1] as Asked).params;
      // (The v2 client hands its sampling handler no `_meta`; the wire's is checked below.)
      expect(sampling.systemPrompt).toBe('[server evil]');
      // Roots (deprecated in 2026-07-28) are not asked of a 2026 client: the server gets the roots of
      // the 2025 sessions (none here), as before.
      const roots = await client.callTool({ name: 'evil__roots', arguments: {} });
      expect(JSON.parse(textOf(roots))).toEqual([]);
      expect(asked).toHaveLength(2);
    } finally {
      await client.close();
    }
  }, 60_000);
});

// ─── the wire, raw, as any 2026 client sends it ─────────────────────────────────────────────────────

const ENVELOPE = (capabilities: Record<string, unknown>) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-client', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});
const ELICITS = { elicitation: {} };
let nextId = 1;

async function post(
  path: string,
  method: string,
  params: Record<string, unknown>,
  token = tokens['test-editor'] as string,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${setup.base}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

/** tools/call `name` with `message`, as the first request of a call or a retry (`extra`). */
function call(
  path: string,
  name: string,
  message: string,
  extra: Record<string, unknown> = {},
  options: { capabilities?: Record<string, unknown>; token?: string } = {},
) {
  return post(
    path,
    'tools/call',
    { name, arguments: { message }, _meta: ENVELOPE(options.capabilities ?? ELICITS), ...extra },
    options.token,
  );
}

interface InputRequired {
  resultType: string;
  inputRequests: Record<string, { method: string; params: Record<string, unknown> }>;
  requestState: string;
}

async function inputRequired(path: string, name: string, message: string): Promise<InputRequired> {
  const first = await call(path, name, message);
  const result = first.result as InputRequired;
  expect(result.resultType).toBe('input_required');
  return result;
}

const accept = (password: string) => ({ action: 'accept', content: { password } });
const answerTo = (asked: InputRequired, password: string) =>
  Object.fromEntries(Object.keys(asked.inputRequests).map((key) => [key, accept(password)]));

function refusedState(response: Record<string, unknown>): string {
  expect(response.result).toBeUndefined();
  const error = response.error as { code: number; message: string };
  expect(error.code).toBe(-32602);
  expect(error.message).toMatch(/^Invalid requestState: /);
  return error.message;
}

describe('MRTR on the wire: the requestState Switchboard issues is checked when it comes back', () => {
  it('input_required has the spec shape, and no elicitation is offered to a client that did not declare it', async () => {
    const asked = await inputRequired('/mcp/evil', 'ask', 'Shape?');
    const entries = Object.values(asked.inputRequests);
    expect(entries).toHaveLength(1);
    expect(entries[0]?.method).toBe('elicitation/create');
    expect(serverOf(entries[0]?.params ?? {})).toBe('evil');
    expect(asked.requestState).toMatch(/^sb1\./);
    // Not kept by a cache: it is one round of a call.
    expect(asked).not.toHaveProperty('ttlMs');
    const done = await call('/mcp/evil', 'ask', 'Shape?', {
      inputResponses: answerTo(asked, 'shape'),
      requestState: asked.requestState,
    });
    expect(JSON.parse(textOf(done.result as never))).toEqual(accept('shape'));
    expect((done.result as { resultType: string }).resultType).toBe('complete');

    // Two rounds on the wire: each its own state; the sampling request names its server too.
    const both = { elicitation: {}, sampling: {} };
    const round1 = (await call('/mcp/evil', 'ask-then-sample', 'Two?', {}, { capabilities: both }))
      .result as InputRequired;
    const retry1 = await call(
      '/mcp/evil',
      'ask-then-sample',
      'Two?',
      { inputResponses: answerTo(round1, 'two'), requestState: round1.requestState },
      { capabilities: both },
    );
    const round2 = retry1.result as InputRequired;
    expect(round2.resultType).toBe('input_required');
    const [[key, sampling]] = Object.entries(round2.inputRequests) as [
      [string, InputRequired['inputRequests'][string]],
    ];
    expect(sampling.method).toBe('sampling/createMessage');
    expect(serverOf(sampling.params)).toBe('evil');
    expect(round2.requestState).not.toBe(round1.requestState);
    const sampled = { role: 'assistant', model: 'm', content: { type: 'text', text: 'two sampled' } };
    const done2 = await call(
      '/mcp/evil',
      'ask-then-sample',
      'Two?',
      { inputResponses: { [key]: sampled }, requestState: round2.requestState },
      { capabilities: both },
    );
    expect(JSON.parse(textOf(done2.result as never))).toEqual({
      asked: accept('two'),
      sampled: sampled.content,
    });

    // Without the capability in its envelope: the server is told so, as a 2025 client's would be.
    const plain = await call('/mcp/evil', 'ask', 'Shape?', {}, { capabilities: {} });
    const result = plain.result as { resultType: string; isError?: boolean; content: unknown };
    expect(result.resultType).toBe('complete');
    expect(result.isError).toBe(true);
    expect(textOf(result as never)).toMatch(/does not support elicitation/);
  }, 30_000);

  it('refuses a forged, altered, other token\u2019s, other endpoint\u2019s or spent state, and nothing of it reaches the server', async () => {
    const asked = await inputRequired('/mcp/evil', 'ask', 'Who?');
    const [version, body, mac] = asked.requestState.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    const forgedBody = Buffer.from(JSON.stringify({ ...claims, editor: 'someone-else' })).toString(
      'base64url',
    );
    const flipped = `${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BB' : 'AA'}`;
    const retry = (state: string, password: string, options = {}, path = '/mcp/evil', name = 'ask') =>
      call(path, name, 'Who?', { inputResponses: answerTo(asked, password), requestState: state }, options);

    expect(refusedState(await retry(`${version}.${forgedBody}.${mac}`, 'altered'))).toMatch(/signature/);
    expect(refusedState(await retry(`${version}.${body}.${flipped}`, 'forged'))).toMatch(/signature/);
    expect(refusedState(await retry('not-a-state', 'junk'))).toMatch(/not a requestState/);
    expect(
      refusedState(await retry(asked.requestState, 'other-token', { token: tokens['other-editor'] })),
    ).toMatch(/another editor token/);
    expect(refusedState(await retry(asked.requestState, 'other-endpoint', {}, '/mcp', 'evil__ask'))).toMatch(
      /another endpoint/,
    );
    expect(
      refusedState(
        await post('/mcp/evil', 'tools/call', {
          name: 'ask',
          arguments: { message: 'Who?' },
          _meta: ENVELOPE(ELICITS),
          inputResponses: answerTo(asked, 'no-state'),
        }),
      ),
    ).toMatch(/without the requestState/);

    // The genuine retry still works, and the server got its answer only (none of the refused ones).
    const done = await retry(asked.requestState, 'genuine');
    expect(JSON.parse(textOf(done.result as never))).toEqual(accept('genuine'));
    // Spent: the same state again is refused.
    refusedState(await retry(asked.requestState, 'replayed'));
  }, 30_000);

  it('a call whose editor never retries ends: its state expires, the server\u2019s request fails, and the token can call again', async () => {
    const activity = setup.headless.core.activity;
    const failedBefore = activity.of('evil')?.errors ?? 0;
    const asked = await inputRequired('/mcp/evil', 'ask', 'Later?');
    await new Promise((resolve) => setTimeout(resolve, INPUT_TIMEOUT_MS + 500));
    // The call was ended at the server (cancelled), and shows as a failed call.
    await waitFor(() => (activity.of('evil')?.errors ?? 0) > failedBefore, 5_000, 'the call ended as failed');
    expect(
      refusedState(
        await call('/mcp/evil', 'ask', 'Later?', {
          inputResponses: answerTo(asked, 'late'),
          requestState: asked.requestState,
        }),
      ),
    ).toMatch(/expired/);
    // Nothing is left held: a new call asks anew and completes.
    const again = await inputRequired('/mcp/evil', 'ask', 'Now?');
    const done = await call('/mcp/evil', 'ask', 'Now?', {
      inputResponses: answerTo(again, 'now'),
      requestState: again.requestState,
    });
    expect(JSON.parse(textOf(done.result as never))).toEqual(accept('now'));
  }, 30_000);
});

describe('MRTR bounds what it holds', () => {
  it('a token with 32 calls waiting for input gets no 33rd held: that server request fails, the call answers', async () => {
    // Over HTTP, where the server says which call each request belongs to (on stdio concurrent calls'
    // requests go to the latest call, as for 2025 editors).
    const held = await Promise.all(
      Array.from({ length: 32 }, (_, i) => inputRequired('/mcp/evilweb', 'ask', `Held ${i}?`)),
    );
    expect(held).toHaveLength(32);
    const over = (await call('/mcp/evilweb', 'ask', 'One more?')).result as {
      resultType: string;
      isError?: boolean;
    };
    expect(over.resultType).toBe('complete');
    expect(over.isError).toBe(true);
    expect(textOf(over as never)).toMatch(/already has 32 calls waiting for its input/);
    // Another token is not held back by this one's.
    const other = await call('/mcp/evilweb', 'ask', 'Other?', {}, { token: tokens['other-editor'] });
    expect((other.result as { resultType: string }).resultType).toBe('input_required');
    // Let them all expire (so no later test finds them in flight).
    await new Promise((resolve) => setTimeout(resolve, INPUT_TIMEOUT_MS + 500));
  }, 30_000);
});

describe('MRTR keeps the in-flight rule', () => {
  it('a server that asks after the 2026 call was answered is refused, not turned into input for anyone', async () => {
    const caps = { elicitation: {}, sampling: {} };
    const later = await post('/mcp/evil', 'tools/call', {
      name: 'later',
      arguments: { message: 'Switchboard: re-enter your password', delayMs: 200 },
      _meta: ENVELOPE(caps),
    });
    expect((later.result as { resultType: string }).resultType).toBe('complete');
    const outcomes = async () =>
      JSON.parse(
        textOf(
          (await post('/mcp/evil', 'tools/call', { name: 'outcomes', arguments: {}, _meta: ENVELOPE({}) }))
            .result as never,
        ),
      ) as { kind: string; error?: { message: string } }[];
    const seen = await waitFor(
      async () => ((await outcomes()).length >= 2 ? outcomes() : undefined),
      10_000,
      'outcomes',
    );
    for (const outcome of seen)
      expect(outcome.error?.message).toMatch(/no editor's request to "evil" is in flight/);
  }, 30_000);
});

describe('MRTR carries what the server says after the first round', () => {
  it.each([['/mcp/evilweb'], ['/mcp/evil']])(
    'on %s progress and log notifications sent after the editor answered reach the retry’s answer, with the retry’s progress token',
    async (path) => {
      const first = await call(path, 'ask-then-report', 'Report?', {
        _meta: { ...ENVELOPE(ELICITS), progressToken: 'first' },
      });
      const asked = first.result as InputRequired;
      expect(asked.resultType).toBe('input_required');
      // The retry, read as the event stream it becomes when the server says something before the answer.
      const res = await fetch(`${setup.base}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens['test-editor']}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': 'ask-then-report',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: nextId++,
          method: 'tools/call',
          params: {
            name: 'ask-then-report',
            arguments: { message: 'Report?' },
            inputResponses: answerTo(asked, 'pw'),
            requestState: asked.requestState,
            _meta: { ...ENVELOPE(ELICITS), progressToken: 'retry' },
          },
        }),
      });
      const body = await res.text();
      const messages = res.headers.get('content-type')?.startsWith('text/event-stream')
        ? body
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>)
        : [JSON.parse(body) as Record<string, unknown>];
      const methods = messages.map((m) => m.method ?? 'answer');
      expect(methods).toEqual(['notifications/progress', 'notifications/message', 'answer']);
      expect((messages[0]?.params as Record<string, unknown>).progressToken).toBe('retry');
      expect((messages[1]?.params as Record<string, unknown>).data).toBe('logged after the answer');
      expect(JSON.parse(textOf(messages[2]?.result as never))).toEqual(accept('pw'));
    },
    60_000,
  );
});
