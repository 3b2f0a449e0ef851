import { spawn } from 'node:child_process';
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { MAX_BODY_BYTES } from '../../../electron/core/bridge/http-util.ts';
import { MAX_BATCH_ANSWER_BYTES } from '../../../electron/core/bridge/post-reply.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { StatusReportSchema } from '../../../shared/status.ts';
import { httpClient, textOf } from '../../helpers/bridge.ts';
import { runCli } from '../../helpers/cli.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { bearer, call, rawExchange, type RawResponse } from '../../helpers/http.ts';
import { everythingServer, fixtureServer, waitFor } from '../../helpers/servers.ts';
import { nodeForOtherUser, OTHER_UID } from '../../helpers/other-user.ts';
import { tempHome } from '../../helpers/temp-home.ts';

// One real headless Switchboard (core + bridge on port 0, temp home) with server-everything approved
// and running, shared by every test here: each test is one of the issue's security requirements.

const setup = useHeadless();
let headless: Headless;
let port: number;
let control: string;
let editor: string;
let consoleError: MockInstance<typeof console.error>;

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'security-test', version: '1' },
  },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

beforeAll(async () => {
  consoleError = vi.spyOn(console, 'error');
  setup.t.writeServers({ mcpServers: { everything: everythingServer() } });
  headless = await setup.start();
  port = headless.port;
  control = headless.tokens.controlToken();
  editor = headless.tokens.create('zed').token;
  await setup.approveRunning(['everything'], 45_000);
});

afterAll(() => {
  consoleError?.mockRestore();
});

function expectUnauthorized(res: RawResponse): void {
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toMatch(/^Bearer\b/);
  // The same body whatever was wrong: nothing tells a caller whether a token exists or is close.
  expect(JSON.parse(res.text)).toEqual({ error: 'unauthorized' });
}

async function statusStillAnswers(): Promise<void> {
  const res = await call(port, 'GET', '/api/status', { headers: bearer(control) });
  expect(res.status).toBe(200);
  const report = StatusReportSchema.parse(JSON.parse(res.text));
  expect(report.servers.find((s) => s.name === 'everything')?.state).toBe('running');
}

/** An event stream (GET), kept open: what arrives on it, and whether the bridge ended it. */
function openStream(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; data: () => string; ended: () => boolean; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        agent: false,
        headers: { host: `127.0.0.1:${port}`, accept: 'text/event-stream', ...headers },
      },
      (res) => {
        let data = '';
        let ended = false;
        res.setEncoding('utf8');
        res.on('data', (d: string) => (data += d));
        res.on('end', () => (ended = true));
        res.on('close', () => (ended = true));
        res.on('error', () => (ended = true));
        resolve({
          status: res.statusCode ?? 0,
          data: () => data,
          ended: () => ended,
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string): Promise<boolean | string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(2_000, () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

describe('bridge security (real headless Switchboard)', () => {
  it('listens on 127.0.0.1 only', async () => {
    expect(await accepts('127.0.0.1')).toBe(true);
    const others = Object.values(networkInterfaces())
      .flat()
      .flatMap((a) => (a && !a.internal ? [a.address] : []));
    // 127.0.0.2 reaches this machine's loopback too (Linux routes 127/8 there), but not a socket bound
    // to 127.0.0.1 alone; ::1 and the machine's LAN addresses must refuse as well.
    const probes = [...(process.platform === 'linux' ? ['127.0.0.2'] : []), '::1', ...others];
    for (const host of probes) expect(await accepts(host), `connection via ${host}`).not.toBe(true);
  });

  it.runIf(process.platform !== 'win32')(
    "serves the relay's socket to this user only (0600 in a 0700 folder), with a token, never to a page",
    async () => {
      const socketPath = join(setup.t.home.run, 'bridge.sock');
      expect(statSync(socketPath).mode & 0o777).toBe(0o600);
      expect(statSync(setup.t.home.run).mode & 0o777).toBe(0o700);
      const viaSocket = (headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          const req = request(
            { socketPath, path: '/mcp/everything', method: 'POST', headers: { ...MCP_HEADERS, ...headers } },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            },
          );
          req.on('error', reject);
          req.end(INITIALIZE);
        });
      // No browser reaches a Unix socket, so the Host is not checked there; the token still is.
      expect(await viaSocket({ host: 'localhost', ...bearer(editor) })).toBe(200);
      expect(await viaSocket({ host: 'localhost' })).toBe(401);
      expect(await viaSocket({ host: 'localhost', ...bearer(control) })).toBe(401);
      expect(await viaSocket({ host: 'localhost', origin: 'http://evil.com', ...bearer(editor) })).toBe(403);
    },
  );

  it('answers /api without a token with 401 and nothing else', async () => {
    expectUnauthorized(await call(port, 'GET', '/api/status'));
    expectUnauthorized(await call(port, 'POST', '/api/servers/everything/stop'));
    expectUnauthorized(await call(port, 'GET', '/api/tokens'));
  });

  it('answers /api with a wrong token with the same 401', async () => {
    const lookalike = control.slice(0, -1) + (control.endsWith('A') ? 'B' : 'A');
    for (const authorization of [
      `Bearer ${lookalike}`,
      'Bearer x',
      `Basic ${control}`,
      control,
      'Bearer ',
      `Bearer ${control}x`,
    ]) {
      expectUnauthorized(await call(port, 'GET', '/api/status', { headers: { authorization } }));
    }
  });

  it('refuses an editor token on /api (401)', async () => {
    expectUnauthorized(await call(port, 'GET', '/api/status', { headers: bearer(editor) }));
    expectUnauthorized(await call(port, 'GET', '/api/tokens', { headers: bearer(editor) }));
  });

  it('refuses the control token, no token and a revoked token on /mcp (401)', async () => {
    for (const path of ['/mcp', '/mcp/everything']) {
      expectUnauthorized(
        await call(port, 'POST', path, { headers: { ...MCP_HEADERS, ...bearer(control) }, body: INITIALIZE }),
      );
      expectUnauthorized(await call(port, 'POST', path, { headers: MCP_HEADERS, body: INITIALIZE }));
    }
    const ok = await call(port, 'POST', '/mcp/everything', {
      headers: { ...MCP_HEADERS, ...bearer(editor) },
      body: INITIALIZE,
    });
    expect(ok.status).toBe(200);

    const temporary = headless.tokens.create('temporary').token;
    const before = await call(port, 'POST', '/mcp', {
      headers: { ...MCP_HEADERS, ...bearer(temporary) },
      body: INITIALIZE,
    });
    expect(before.status).toBe(200);
    const revoke = await call(port, 'DELETE', '/api/tokens/temporary', { headers: bearer(control) });
    expect(revoke.status).toBe(200);
    expectUnauthorized(
      await call(port, 'POST', '/mcp', {
        headers: { ...MCP_HEADERS, ...bearer(temporary) },
        body: INITIALIZE,
      }),
    );
  });

  it("ends a revoked or deleted editor token's open /mcp streams at once", async () => {
    const revoked = headless.tokens.create('revoked-editor').token;
    const byHand = headless.tokens.create('deleted-editor').token;
    const initialized = await call(port, 'POST', '/mcp/everything', {
      headers: { ...MCP_HEADERS, ...bearer(revoked) },
      body: INITIALIZE,
    });
    const sessionId = String(initialized.headers['mcp-session-id']);
    const streams = [
      // a session's stream, and a sessionless client's (the editor's implicit session), on both endpoints
      await openStream('/mcp/everything', { ...bearer(revoked), 'mcp-session-id': sessionId }),
      await openStream('/mcp', bearer(revoked)),
      await openStream('/mcp/everything', bearer(byHand)),
    ];
    const kept = await openStream('/mcp/everything', bearer(editor));
    for (const stream of [...streams, kept]) expect(stream.status).toBe(200);

    const revoke = await call(port, 'DELETE', '/api/tokens/revoked-editor', { headers: bearer(control) });
    expect(revoke.status).toBe(200);
    await waitFor(() => streams[0]?.ended() && streams[1]?.ended(), 5_000, 'the revoked token streams end');
    // A token file deleted by hand: the running bridge watches tokens/editors/.
    rmSync(join(setup.t.home.tokens, 'editors', 'deleted-editor'));
    await waitFor(() => streams[2]?.ended(), 5_000, "the deleted token's stream ends");
    // Another editor's stream stays open.
    await new Promise((r) => setTimeout(r, 200));
    expect(kept.ended()).toBe(false);
    kept.close();
  });

  it('ends /api/events streams opened with a control token that was replaced', async () => {
    const events = await openStream('/api/events', bearer(control));
    expect(events.status).toBe(200);
    await waitFor(() => events.data().includes('"type":"config"'), 5_000, 'the first event');
    // The control token replaced by hand (e.g. because it leaked): the old one stops working at once.
    const replaced = 'r'.repeat(43);
    writeFileSync(join(setup.t.home.tokens, 'control'), replaced + '\n', { mode: 0o600 });
    await waitFor(() => events.ended(), 5_000, 'the event stream ends');
    expectUnauthorized(await call(port, 'GET', '/api/status', { headers: bearer(control) }));
    control = replaced;
    await statusStillAnswers();
  });

  it('answers bad percent-encoding in an /api path with 400 saying so, never a 500 or a stack trace', async () => {
    const errorsBefore = consoleError.mock.calls.length;
    for (const [method, path] of [
      ['GET', '/api/servers/%ZZ/config'],
      ['GET', '/api/servers/%ZZ/tools'],
      ['DELETE', '/api/servers/%ZZ'],
      ['POST', '/api/servers/%ZZ/enabled'],
      ['POST', '/api/servers/%E0%A4%A/approve'],
      ['GET', '/api/servers/%ZZ/logs'],
      ['PUT', '/api/secrets/%ZZ'],
      ['DELETE', '/api/secrets/%ZZ'],
      ['POST', '/api/editors/%ZZ/restore'],
      ['DELETE', '/api/tokens/%ZZ'],
    ] as const) {
      const res = await call(port, method, path, {
        headers: { ...bearer(control), 'content-type': 'application/json' },
        ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}' }),
      });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(JSON.parse(res.text), `${method} ${path}`).toEqual({
        error: expect.stringContaining('malformed percent-encoding in the URL path') as string,
      });
      expect(res.text).not.toMatch(/URIError|\bat .*:\d+:\d+/);
    }
    expect(consoleError.mock.calls.slice(errorsBefore)).toEqual([]);
  });

  it('answers a foreign Host with 403, even with a valid token', async () => {
    for (const host of [
      'evil.com',
      `evil.com:${port}`,
      `127.0.0.1.evil.com:${port}`,
      `localhost.evil.com:${port}`,
    ]) {
      const res = await call(port, 'GET', '/api/status', { headers: { host, ...bearer(control) } });
      expect(res.status, host).toBe(403);
      expect(JSON.parse(res.text)).toEqual({ error: 'forbidden' });
      const mcp = await call(port, 'POST', '/mcp/everything', {
        headers: { host, ...MCP_HEADERS, ...bearer(editor) },
        body: INITIALIZE,
      });
      expect(mcp.status, host).toBe(403);
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      expect((await call(port, 'GET', '/api/status', { headers: { host, ...bearer(control) } })).status).toBe(
        200,
      );
    }
  });

  it('answers Host 127.0.0.1 on another port with 403', async () => {
    for (const host of [
      `127.0.0.1:${port + 1}`,
      `localhost:${port === 80 ? 81 : 80}`,
      '127.0.0.1',
      'localhost',
    ]) {
      expect(
        (await call(port, 'GET', '/api/status', { headers: { host, ...bearer(control) } })).status,
        host,
      ).toBe(403);
    }
  });

  it("answers an Origin that is not Switchboard's own with 403", async () => {
    for (const origin of [
      'http://evil.com',
      `http://evil.com:${port}`,
      'null',
      `https://127.0.0.1:${port}`,
      `http://127.0.0.1:${port + 1}`,
    ]) {
      const res = await call(port, 'GET', '/api/status', { headers: { origin, ...bearer(control) } });
      expect(res.status, origin).toBe(403);
      const mcp = await call(port, 'POST', '/mcp/everything', {
        headers: { origin, ...MCP_HEADERS, ...bearer(editor) },
        body: INITIALIZE,
      });
      expect(mcp.status, origin).toBe(403);
    }
    const own = await call(port, 'GET', '/api/status', {
      headers: { origin: `http://127.0.0.1:${port}`, ...bearer(control) },
    });
    expect(own.status).toBe(200);
  });

  it('gives a CORS preflight from a foreign origin no Access-Control-Allow-Origin', async () => {
    for (const path of ['/api/status', '/mcp', '/mcp/everything', '/']) {
      const res = await call(port, 'OPTIONS', path, {
        headers: {
          origin: 'http://evil.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      expect(res.status, path).toBe(403);
      expect(res.headers['access-control-allow-origin'], path).toBeUndefined();
      expect(res.headers['access-control-allow-headers'], path).toBeUndefined();
      expect(res.headers['access-control-allow-credentials'], path).toBeUndefined();
    }
    // Nor is any CORS header sent on ordinary answers.
    const ok = await call(port, 'GET', '/api/status', { headers: bearer(control) });
    expect(Object.keys(ok.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('answers a body over the limit with 413 (declared or streamed), and keeps serving', async () => {
    const big = Buffer.alloc(MAX_BODY_BYTES + 1024, 0x20);
    const api = await call(port, 'POST', '/api/tokens', {
      headers: { ...bearer(control), 'content-type': 'application/json' },
      body: big,
    });
    expect(api.status).toBe(413);
    const mcp = await call(port, 'POST', '/mcp/everything', {
      headers: { ...MCP_HEADERS, ...bearer(editor) },
      body: big,
    });
    expect(mcp.status).toBe(413);
    // An MCP client gets a JSON-RPC error it can show, not a bare HTTP status.
    const tooLarge = {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringMatching(/^Request too large: .* at most 4 MiB/) },
    };
    expect(JSON.parse(mcp.text)).toEqual(tooLarge);
    // Chunked: no Content-Length to refuse up front, so the limit applies while reading.
    const chunked = await call(port, 'POST', '/mcp', {
      headers: { ...MCP_HEADERS, ...bearer(editor), 'transfer-encoding': 'chunked' },
      body: big,
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.text)).toEqual(tooLarge);
    // Only an authenticated caller gets its body read at all.
    const anonymous = await call(port, 'POST', '/mcp', { headers: MCP_HEADERS, body: big });
    expect(anonymous.status).toBe(401);
    await statusStillAnswers();
  });

  it('answers malformed JSON on POST endpoints with a clean 400 JSON error, and keeps serving', async () => {
    for (const body of ['{', '{"name": "x"', 'null x', '\u0000\u0001', '']) {
      const api = await call(port, 'POST', '/api/tokens', {
        headers: { ...bearer(control), 'content-type': 'application/json' },
        body,
      });
      expect(api.status, JSON.stringify(body)).toBe(400);
      expect(JSON.parse(api.text)).toEqual({ error: expect.stringMatching(/malformed JSON/) });

      const mcp = await call(port, 'POST', '/mcp/everything', {
        headers: { ...MCP_HEADERS, ...bearer(editor) },
        body,
      });
      expect(mcp.status, JSON.stringify(body)).toBe(400);
      expect(JSON.parse(mcp.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    }
    // Well-formed JSON that is not a valid request: 400 with a reason, or a JSON-RPC error.
    const wrongShape = await call(port, 'POST', '/api/tokens', {
      headers: bearer(control),
      body: '{"name": 42}',
    });
    expect(wrongShape.status).toBe(400);
    expect(JSON.parse(wrongShape.text).error).toMatch(/invalid request/);
    const notRpc = await call(port, 'POST', '/mcp/everything', {
      headers: { ...MCP_HEADERS, ...bearer(editor) },
      body: '{"hello": 1}',
    });
    expect(JSON.parse(notRpc.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    await statusStillAnswers();
  });

  it('survives thousands of random and malformed requests, then still answers correctly', async () => {
    const seed = Number(process.env.SB_FUZZ_SEED ?? 0x5eed);
    const rand = mulberry32(seed);
    const total = Number(process.env.SB_FUZZ_COUNT ?? 5_000);
    // Generated up front, so a seed always gives the same requests whatever the timing.
    const requests = Array.from({ length: total }, (_, i) => fuzzRequest(rand, i));
    const statuses = new Map<number, number>();
    const started = Date.now();
    let next = 0;
    let timeouts = 0;
    const worker = async () => {
      while (next < total) {
        const i = next++;
        const { payload, expectsAnswer } = requests[i] ?? { payload: Buffer.alloc(0), expectsAnswer: false };
        // A truncated body is never answered: the server waits for the rest until the client drops.
        const result = await rawExchange(port, payload, expectsAnswer ? 5_000 : 200);
        if (result.timedOut && expectsAnswer) timeouts++;
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(result.data)?.[1] ?? 0);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (expectsAnswer && !result.timedOut) {
          const what = `request ${i} (seed ${seed}): ${payload.subarray(0, 120).toString('latin1')} → ${result.error ?? 'closed'}`;
          expect(status, what).toBeGreaterThan(0);
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const elapsed = Date.now() - started;
    const summary = [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    console.log(
      `fuzz: ${total} requests in ${elapsed} ms (seed ${seed}); statuses ${summary}; timeouts ${timeouts}`,
    );

    // No bound on `elapsed`: how long 5,000 requests take says how busy the machine is (a bench's
    // question); a request that hangs is what this test is about, and `timeouts` counts those.
    expect(
      // 500 is what an unexpected error becomes; (503 is the deliberate "UI not built" page at /)
      [...statuses.keys()].filter((s) => s >= 500 && s !== 503),
      summary,
    ).toEqual([]);
    expect(timeouts, summary).toBeLessThan(total / 100);
    await statusStillAnswers();
    const init = await call(port, 'POST', '/mcp/everything', {
      headers: { ...MCP_HEADERS, ...bearer(editor) },
      body: INITIALIZE,
    });
    expect(init.status).toBe(200);
    expect(JSON.parse(init.text)).toMatchObject({ id: 1, result: { protocolVersion: '2025-06-18' } });
    // and a real MCP client still gets real answers, through both endpoints
    for (const [path, tool] of [
      ['/mcp/everything', 'echo'],
      ['/mcp', 'everything__echo'],
    ] as const) {
      const client = await httpClient(`http://127.0.0.1:${port}${path}`, editor);
      try {
        const result = await client.callTool({ name: tool, arguments: { message: 'after the fuzz' } });
        expect(textOf(result), path).toBe('Echo: after the fuzz');
      } finally {
        await client.close();
      }
    }
    const unexpected = consoleError.mock.calls.filter((args) => String(args[0]).includes('unexpected'));
    expect(unexpected.map((args) => args.map(String).join(' '))).toEqual([]);
  }, 90_000);
});

describe("the browser UI's credential, against a page on another port of 127.0.0.1", () => {
  /** Cookies the browser keeps for 127.0.0.1: name → value (cookies are not port-scoped). */
  function collectCookies(jar: Map<string, string>, res: RawResponse): void {
    const header = res.headers['set-cookie'];
    for (const cookie of Array.isArray(header) ? header : header ? [header] : []) {
      const [pair = ''] = cookie.split(';');
      const eq = pair.indexOf('=');
      if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }

  /**
   * Another local user's web server on another port of 127.0.0.1: its page redirects once to itself,
   * and it keeps every Cookie header a browser sends it.
   */
  async function attackerPage(): Promise<{ url: string; harvested: string[]; close: () => Promise<void> }> {
    const harvested: string[] = [];
    const server = createServer((req, res) => {
      if (req.headers.cookie) harvested.push(req.headers.cookie);
      if (req.url === '/') res.writeHead(302, { location: '/again' }).end();
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<p>nothing to see</p>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const attackerPort = typeof address === 'object' && address ? address.port : 0;
    return {
      url: `http://127.0.0.1:${attackerPort}/`,
      harvested,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  /** What a browser sends to another port of 127.0.0.1: every cookie it holds for that host. */
  async function visit(url: string, jar: Map<string, string>): Promise<void> {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    let next = new URL(url);
    for (let hop = 0; hop < 3; hop++) {
      const res = await call(Number(next.port), 'GET', next.pathname, {
        headers: { host: next.host, ...(cookie ? { cookie } : {}) },
      });
      const location = res.headers.location;
      if (res.status < 300 || res.status >= 400 || typeof location !== 'string') return;
      next = new URL(location, next);
    }
  }

  it('a person signed in to the UI who opens that page gives it nothing that acts as them', async () => {
    const jar = new Map<string, string>();
    // The person opens the printed sign-in link, and the page does what it does.
    const link = new URL(headless.bridge.sessions.issueLoginLink().url);
    const opened = await call(port, 'GET', link.pathname + link.search);
    collectCookies(jar, opened);
    let session: string | undefined;
    if (opened.status === 200) {
      // The sign-in page trades the code for the session secret it keeps in this origin's storage.
      const exchange = await call(port, 'POST', '/api/ui/session', {
        headers: { 'content-type': 'application/json', origin: `http://127.0.0.1:${port}` },
        body: JSON.stringify({ code: link.searchParams.get('code') }),
      });
      collectCookies(jar, exchange);
      expect(exchange.status, exchange.text).toBe(200);
      session = (JSON.parse(exchange.text) as { session: string }).session;
    }

    // Then a link to the other port, clicked anywhere.
    const attacker = await attackerPage();
    try {
      await visit(attacker.url, jar);
      // Everything that page's owner got, replayed with Switchboard's own Origin (a forged header).
      const stolen = attacker.harvested.at(-1) ?? [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      const as = {
        ...(stolen ? { cookie: stolen } : {}),
        origin: `http://127.0.0.1:${port}`,
        'content-type': 'application/json',
      };
      const add = await call(port, 'POST', '/api/servers', {
        headers: as,
        body: JSON.stringify({ name: 'pwned', config: { command: '/bin/sh', args: ['-c', 'touch /tmp/x'] } }),
      });
      expect(add.status, add.text).toBe(401);
      const approval = await call(port, 'GET', '/api/servers/everything/approval', { headers: as });
      expect(approval.status, approval.text).toBe(401);
      const fingerprint = headless.core.approvals.review('everything').fingerprint;
      const approve = await call(port, 'POST', '/api/servers/everything/approve', {
        headers: as,
        body: JSON.stringify({ fingerprint }),
      });
      expect(approve.status, approve.text).toBe(401);
      expect(headless.core.servers.entries().has('pwned')).toBe(false);
      // (and no cookie of Switchboard's ever reached that page)
      expect(attacker.harvested.join('\n')).not.toContain('switchboard');
    } finally {
      await attacker.close();
    }

    // The person's own page keeps working, with the secret only it holds.
    expect(session).toBeDefined();
    const own = await call(port, 'GET', '/api/status', { headers: bearer(session ?? '') });
    expect(own.status).toBe(200);
  });
});

describe('what one request can make the bridge hold', () => {
  it('a batch of 100 prompts/list to a server with a 2 MB prompt list: a bounded answer, the rest refused by id', async () => {
    const home = tempHome();
    home.writeServers({
      mcpServers: { big: fixtureServer('mini-server.mjs', `--prompt-bytes=${2 * 1024 * 1024}`) },
    });
    const h = await startHeadless({
      home: home.home,
      keychain: new MemoryKeychain(),
      env: home.env,
      port: 0,
    });
    try {
      h.core.approvals.approve('big', h.core.approvals.review('big').fingerprint);
      await waitFor(
        () => h.core.status.report().servers.find((s) => s.name === 'big' && s.state === 'running'),
        30_000,
        'big running',
      );
      const token = h.tokens.create('zed').token;
      const batch = Array.from({ length: 100 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'prompts/list',
      }));
      const res = await call(h.port, 'POST', '/mcp/big', {
        headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-03-26', ...bearer(token) },
        body: JSON.stringify(batch),
      });
      expect(res.status).toBe(200);
      expect(res.text.length).toBeLessThanOrEqual(MAX_BATCH_ANSWER_BYTES + 64 * 1024);
      const answers = JSON.parse(res.text) as { id: number; result?: unknown; error?: { message: string } }[];
      // Every request is answered, by its id: the first few whole, the rest with why and what to do.
      expect(answers.map((a) => a.id).sort((a, b) => a - b)).toEqual(batch.map((m) => m.id));
      const whole = answers.filter((a) => a.result !== undefined);
      expect(whole.length).toBeGreaterThan(0);
      expect(whole.length).toBeLessThan(10);
      for (const a of answers.filter((a) => a.error))
        expect(a.error?.message).toContain('send this request on its own');
      // One at a time, each is answered whole.
      const single = await call(h.port, 'POST', '/mcp/big', {
        headers: { ...MCP_HEADERS, ...bearer(token) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'one', method: 'prompts/list' }),
      });
      expect(JSON.parse(single.text)).toMatchObject({ id: 'one', result: { prompts: [{ name: 'big' }] } });
    } finally {
      await h.stop();
      home.cleanup();
    }
  }, 60_000);
});

describe('switchboard serve on a port another process holds (port squatting)', () => {
  /** Runs `serve --port <port>` in a fresh home; it must refuse at once, in one line, starting nothing. */
  async function serveRefused(port: number): Promise<string> {
    const home = tempHome();
    try {
      const result = await runCli(['serve', '--port', String(port)], home.env);
      expect(result.code, result.stdout + result.stderr).toBe(1);
      expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
      expect(existsSync(home.home.run + '/serve.json')).toBe(false);
      expect(existsSync(home.home.run + '/bridge.sock')).toBe(false);
      return result.stderr.trim();
    } finally {
      home.cleanup();
    }
  }

  it("says it is another of this user's processes, which one, and what to do", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const address = holder.address();
    const held = typeof address === 'object' && address ? address.port : 0;
    try {
      const line = await serveRefused(held);
      expect(line).toContain(`port ${held} on 127.0.0.1 is already in use by another of your processes (`);
      expect(line).toContain(`pid ${process.pid}: `);
      expect(line).toContain('probably an older Switchboard or another app');
      expect(line).toContain('(switchboard serve --port N)');
    } finally {
      holder.close();
    }
  });

  it("refuses, saying why in one line, when another user's process holds the port", async (context) => {
    // Root can be another user: uid 65534 (nobody) listens where Switchboard wants to.
    const other = nodeForOtherUser();
    if (typeof other === 'string') {
      console.log(`skipped: ${other}`);
      context.skip(other);
      return;
    }
    const squatter = spawn(
      other.node,
      [
        '-e',
        `const s = require('node:net').createServer().listen(0, '127.0.0.1', () => console.log(s.address().port))`,
      ],
      { uid: OTHER_UID, gid: OTHER_UID, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      let out = '';
      squatter.stdout.on('data', (d: Buffer) => (out += d.toString()));
      const held = Number(await waitFor(() => /^\d+\n/.exec(out)?.[0], 10_000, 'the squatter listening'));
      const line = await serveRefused(held);
      expect(line).toContain(
        `port ${held} on 127.0.0.1 is held by another user's process (user nobody, uid 65534, pid ${squatter.pid}: `,
      );
      expect(line).toContain('which would receive the tokens editors send to it');
      expect(line).toContain('(switchboard serve --port N)');
    } finally {
      squatter.kill('SIGKILL');
      other.cleanup();
    }
  });
});

// ─── fuzz input ───────────────────────────────────────────────────────────────────────────────────

/** A small seeded PRNG (mulberry32): the same seed gives the same requests. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function fuzzRequest(rand: () => number, i: number): { payload: Buffer; expectsAnswer: boolean } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
  const ascii = (n: number) =>
    Array.from({ length: n }, () => String.fromCharCode(33 + Math.floor(rand() * 94))).join('');
  const kind = rand();

  if (kind < 0.05) return { payload: bytes(1 + Math.floor(rand() * 2048)), expectsAnswer: false }; // garbage (may be an unfinished request)
  if (kind < 0.08) {
    // huge header: over Node's 16 KB header limit (431) or just under it
    const size = pick([8_000, 17_000, 64_000, 200_000]);
    const payload = `GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\nX-Big: ${'a'.repeat(size)}\r\n\r\n`;
    return { payload: Buffer.from(payload), expectsAnswer: true };
  }
  if (kind < 0.11) {
    // malformed request lines and header syntax
    const line = pick([
      `GET\r\n\r\n`,
      `GET / HTTP/9.9\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
      `GET /api/status HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n`,
      `${ascii(10)} ${ascii(20)} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\nContent-Length: -5\r\n\r\n`,
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
      `POST /api/tokens HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\n`,
      `GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\nHost: evil.com\r\n\r\n`,
      `GET /api/status HTTP/1.0\r\n\r\n`,
    ]);
    return { payload: Buffer.from(line, 'latin1'), expectsAnswer: true };
  }

  if (kind < 0.4) {
    // well-formed MCP POSTs with an editor token and random (often invalid) JSON-RPC, to reach the endpoint
    const message =
      rand() < 0.8 ? rpcMessage(rand, pick, i) : [rpcMessage(rand, pick, i), rpcMessage(rand, pick, i + 1)];
    const body = Buffer.from(JSON.stringify(message));
    const head =
      `POST ${pick(['/mcp', '/mcp/everything'])} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${editor}\r\n` +
      `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\n` +
      (rand() < 0.2 ? `Mcp-Session-Id: ${ascii(20)}\r\n` : '') +
      `Content-Length: ${body.length}\r\n\r\n`;
    return { payload: Buffer.concat([Buffer.from(head, 'latin1'), body]), expectsAnswer: true };
  }

  const method = pick([
    'GET',
    'POST',
    'POST',
    'POST',
    'PUT',
    'DELETE',
    'OPTIONS',
    'HEAD',
    'PATCH',
    'TRACE',
    ascii(6).replace(/[^A-Z]/gi, 'X'),
  ]);
  const path = pick([
    '/',
    '/api/status',
    '/api/tokens',
    // (never zed's: a DELETE with the control token would rightly revoke the token the checks below use)
    `/api/tokens/${pick(['fuzz', 'control', '..', '%2e%2e', 'a%2Fb', '%E0%A4%A', ascii(8)])}`,
    // (not everything's actions: a control-token deny or stop would rightly stop the server used below)
    `/api/servers/${pick(['nope', '%00', '%ZZ', ascii(5)])}/${pick(['approve', 'deny', 'start', 'stop', 'restart', 'logs', ascii(4)])}`,
    `/api/servers/everything/logs?limit=${pick(['-1', '1e9', 'x', '5'])}`,
    '/mcp',
    '/mcp/',
    '/mcp/everything',
    '/mcp/everything?x=1',
    `/mcp/${ascii(6)}`,
    '/mcp/%ZZ',
    '/mcp/..%2fapi',
    '//',
    '//evil.com/api/status',
    '*',
    'http://evil.com/api/status',
    `/${encodeURIComponent(bytes(12).toString('latin1'))}`,
  ]).replace(/[\s]/g, '_');
  const streaming = method === 'GET' && (path.startsWith('/api/events') || path.startsWith('/mcp'));
  const auth = pick(['none', 'control', 'editor', 'editor', 'garbage', 'basic']);
  const headers: string[] = [];
  const host =
    rand() < 0.85
      ? `127.0.0.1:${port}`
      : pick(['evil.com', `localhost:${port}`, '', `127.0.0.1:${port + 1}`, ascii(30)]);
  if (host) headers.push(`Host: ${host}`);
  const authHeader =
    auth === 'control'
      ? `Bearer ${control}`
      : auth === 'editor'
        ? `Bearer ${editor}`
        : auth === 'garbage'
          ? `Bearer ${ascii(43)}`
          : auth === 'basic'
            ? `Basic ${ascii(12)}`
            : undefined;
  // A GET that opens an event stream would hold its connection open: send those without a token.
  if (authHeader && !streaming) headers.push(`Authorization: ${authHeader}`);
  if (rand() < 0.15)
    headers.push(`Origin: ${pick(['http://evil.com', `http://127.0.0.1:${port}`, 'null', ascii(10)])}`);
  if (rand() < 0.6)
    headers.push(
      `Content-Type: ${pick(['application/json', 'text/plain', 'application/json; charset=utf-8', ascii(10)])}`,
    );
  if (rand() < 0.5)
    headers.push(
      `Accept: ${pick(['application/json, text/event-stream', 'text/event-stream', '*/*', ascii(10)])}`,
    );
  if (rand() < 0.2) headers.push(`Mcp-Session-Id: ${pick([ascii(36), '', '../../etc'])}`);
  if (rand() < 0.2)
    headers.push(`MCP-Protocol-Version: ${pick(['2025-06-18', '2025-03-26', '1999-01-01', ascii(8)])}`);
  for (let h = Math.floor(rand() * 4); h > 0; h--)
    headers.push(`X-${ascii(6).replace(/[^A-Za-z0-9]/g, 'z')}: ${ascii(Math.floor(rand() * 200))}`);

  let body: Buffer = Buffer.alloc(0);
  const bodyKind = rand();
  if (method !== 'GET' && method !== 'HEAD') {
    if (bodyKind < 0.3) body = Buffer.from(JSON.stringify(rpcMessage(rand, pick, i)));
    else if (bodyKind < 0.4)
      body = Buffer.from(JSON.stringify([rpcMessage(rand, pick, i), rpcMessage(rand, pick, i + 1)]));
    else if (bodyKind < 0.5)
      body = Buffer.from(JSON.stringify({ name: pick(['fuzz', 'control', 'BAD', ascii(40), 42]) }));
    else if (bodyKind < 0.7) body = bytes(Math.floor(rand() * 4096));
    else if (bodyKind < 0.8)
      body = Buffer.from(JSON.stringify(rpcMessage(rand, pick, i)).slice(0, Math.floor(rand() * 40)));
    else if (bodyKind < 0.85) body = Buffer.from('['.repeat(5000));
  }
  const truncated = body.length > 0 && rand() < 0.1;
  headers.push(`Content-Length: ${truncated ? body.length + 1 + Math.floor(rand() * 1000) : body.length}`);
  headers.push('Connection: close');
  const head = `${method} ${path} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`;
  return { payload: Buffer.concat([Buffer.from(head, 'latin1'), body]), expectsAnswer: !truncated };
}

function rpcMessage(rand: () => number, pick: <T>(items: readonly T[]) => T, i: number): unknown {
  const method = pick([
    'initialize',
    'ping',
    'tools/list',
    'tools/call',
    'resources/list',
    'prompts/list',
    'notifications/initialized',
    'notifications/cancelled',
    'logging/setLevel',
    'nope/nope',
    '',
    42,
  ]);
  const id = pick([i, `id-${i}`, null, undefined, { x: 1 }, 1.5, -1]);
  const params = pick([
    undefined,
    {},
    null,
    'string',
    { name: 'echo', arguments: { message: `fuzz ${i}` } },
    { name: 'get-sum', arguments: { a: rand(), b: 'x' } },
    { name: 'everything__echo', arguments: {} },
    {
      protocolVersion: pick(['2025-06-18', 'bogus', 7]),
      capabilities: {},
      clientInfo: { name: 'fuzz', version: '1' },
    },
    { requestId: i - 1, reason: 'fuzz' },
  ]);
  const jsonrpc = pick(['2.0', '2.0', '2.0', '1.0', undefined]);
  return {
    ...(jsonrpc === undefined ? {} : { jsonrpc }),
    ...(id === undefined ? {} : { id }),
    method,
    ...(params === undefined ? {} : { params }),
  };
}
