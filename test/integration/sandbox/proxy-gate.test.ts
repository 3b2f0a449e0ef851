import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NetworkGate,
  refusalWords,
  type GateRules,
  type Resolve,
} from '../../../electron/core/sandbox/network-gate.ts';
import { startProxy, type Listening } from '../../../electron/core/sandbox/network-proxy.ts';
import { editorToken } from '../../helpers/bridge.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { askProxy, getThrough, tunnelTo } from '../../helpers/proxy-probe.ts';

// The sandbox's real proxy (startProxy) asking a real NetworkGate, against real listeners on this
// computer's loopback and Switchboard's own bridge: every spelling of "this computer" that issue 32
// found getting through is asked for, the way a sandboxed server would, as raw proxy requests.

/** A listener on this computer that counts what reached it. */
interface Local {
  server: Server;
  port: number;
  hits: string[];
}

async function listen(host: string): Promise<Local> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method ?? ''} ${req.url ?? ''} (Host ${req.headers.host ?? ''})`);
    res.end(`this computer at ${host}\n`);
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  return { server, port: (server.address() as { port: number }).port, hits };
}

const setup = useHeadless();
let v4: Local;
let v6: Local;
const proxies: Listening[] = [];
const refusals: string[] = [];

async function proxyFor(rules: GateRules, resolve?: Resolve): Promise<number> {
  const gate = new NetworkGate(rules, resolve);
  const proxy = await startProxy({ port: 0, host: '127.0.0.1' }, gate, (refusal, add) =>
    refusals.push(refusalWords(refusal, add)),
  );
  proxies.push(proxy);
  return Number(proxy.address);
}

beforeAll(async () => {
  v4 = await listen('127.0.0.1');
  v6 = await listen('::1');
  await setup.start();
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  v4.server.close();
  v6.server.close();
});

describe('the sandbox proxy under the default policy ("the internet, nothing on this computer")', () => {
  it('refuses every spelling of this computer, and nothing reaches the listeners', async () => {
    const proxy = await proxyFor({ kind: 'internet' });
    const attacks = [
      getThrough(`http://[::ffff:127.0.0.1]:${v4.port}/`),
      getThrough(`http://[0:0:0:0:0:ffff:7f00:1]:${v4.port}/`),
      getThrough(`http://0.0.0.0:${v4.port}/`),
      getThrough(`http://[::]:${v6.port}/`),
      getThrough(`http://[0::1]:${v6.port}/`),
      getThrough(`http://127.1:${v4.port}/`),
      tunnelTo(`[::ffff:7f00:1]:${v4.port}`),
      tunnelTo(`[::ffff:127.0.0.1]:${v4.port}`),
      tunnelTo(`[0::1]:${v6.port}`),
      tunnelTo(`[0:0:0:0:0:0:0:1]:${v6.port}`),
      tunnelTo(`0.0.0.0:${v4.port}`),
      tunnelTo(`[::]:${v6.port}`),
      tunnelTo(`127.0.0.1:${v4.port}`),
      tunnelTo(`localhost:${v4.port}`),
    ];
    for (const attack of attacks) {
      const answer = await askProxy(proxy, attack);
      expect(answer.status, attack.split('\r\n')[0]).toBe(403);
      expect(answer.text).toMatch(/sandbox refused connecting to \S+ on this computer/);
    }
    expect([...v4.hits, ...v6.hits]).toEqual([]);
  });

  it('keeps Switchboard’s own bridge out of reach, whatever Host the request claims', async () => {
    const proxy = await proxyFor({ kind: 'internet' });
    const port = setup.headless.port;
    const token = editorToken(setup.headless.tokens);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    const post = (host: string) =>
      `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
    // The same request to the bridge directly is answered: what is refused below is the way there.
    const direct = await askDirect(port, post(`127.0.0.1:${port}`));
    expect(direct).toMatch(/^HTTP\/1\.1 200/);
    for (const target of [`[::ffff:7f00:1]:${port}`, `[0::1]:${port}`, `0.0.0.0:${port}`]) {
      const tunnelled = await askProxy(
        proxy,
        `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n${post(`127.0.0.1:${port}`)}`,
      );
      expect(tunnelled.status, target).toBe(403);
      expect(tunnelled.text).not.toContain('jsonrpc');
      const forwarded = await askProxy(
        proxy,
        post(`127.0.0.1:${port}`).replace('POST /mcp', `POST http://${target}/mcp`),
      );
      expect(forwarded.status, target).toBe(403);
      expect(forwarded.text).not.toContain('jsonrpc');
    }
  });
});

describe('the sandbox proxy with a network list', () => {
  it('reaches a listed port on this computer, in any spelling of its address, and only that port', async () => {
    const proxy = await proxyFor({ kind: 'list', entries: [`127.0.0.1:${v4.port}`, `[::1]:${v6.port}`] });
    v4.hits.length = 0;
    v6.hits.length = 0;
    for (const asked of [
      getThrough(`http://127.0.0.1:${v4.port}/a`),
      tunnelTo(`127.0.0.1:${v4.port}`),
      // the same addresses, spelled otherwise: an IPv4-mapped one is judged as the IPv4 it carries
      tunnelTo(`[::ffff:7f00:1]:${v4.port}`),
      getThrough(`http://[0:0:0:0:0:0:0:1]:${v6.port}/b`),
    ]) {
      const answer = await askProxy(proxy, asked);
      expect(answer.status, asked.split('\r\n')[0]).toBe(200);
      expect(answer.text).toContain('this computer at');
    }
    expect(v4.hits).toHaveLength(3);
    expect(v6.hits).toEqual([`GET /b (Host [::1]:${v6.port})`]);
    // another address, or another port, of this computer stays refused
    expect((await askProxy(proxy, tunnelTo(`127.0.0.1:${v6.port}`))).status).toBe(403);
    expect((await askProxy(proxy, tunnelTo(`[::1]:${v4.port}`))).status).toBe(403);
    expect((await askProxy(proxy, tunnelTo(`0.0.0.0:${v4.port}`))).status).toBe(403);
  });

  it('sends a forwarded request where the gate checked, whatever its Host header says', async () => {
    const proxy = await proxyFor({ kind: 'list', entries: [`localhost:${v4.port}`] });
    v4.hits.length = 0;
    v6.hits.length = 0;
    const answer = await askProxy(proxy, getThrough(`http://localhost:${v4.port}/x`, `[::1]:${v6.port}`));
    expect(answer.status).toBe(200);
    expect(v4.hits).toEqual([`GET /x (Host localhost:${v4.port})`]);
    expect(v6.hits).toEqual([]);
  });
});

describe('the sandbox proxy when this computer cannot resolve a name', () => {
  it('says so, and does not ask to add a host the policy already allows', async () => {
    // The machine's resolver answering "no such name", as when it is offline (no query leaves it).
    const offline: Resolve = async (host) => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    };
    const proxy = await proxyFor({ kind: 'list', entries: ['context7.com'] }, offline);
    refusals.length = 0;
    const answer = await askProxy(proxy, tunnelTo('context7.com:443'));
    expect(answer.status).toBe(502);
    expect(answer.text).toContain('Switchboard: could not resolve context7.com: ENOTFOUND');
    expect(answer.text).not.toContain('add "');
    expect(refusals).toEqual([
      'could not resolve context7.com: ENOTFOUND: this computer’s DNS knows no such name (a typo, or no DNS while offline?); the sandbox did not refuse it',
    ]);
  });
});

/** One raw request to a port on 127.0.0.1 without the proxy. */
async function askDirect(port: number, request: string): Promise<string> {
  return (await askProxy(port, request)).text;
}

// This computer's own non-loopback address: made in a private network namespace (no traffic can
// leave it), with a public-looking address on its loopback interface so only the "own address"
// rule can refuse it.
const canUnshare = spawnSync('unshare', ['-rn', 'true']).status === 0;

describe.skipIf(!canUnshare)('the machine’s own address', () => {
  it('is refused like loopback, though the listener there answers directly', () => {
    const run = spawnSync(
      'unshare',
      [
        '-rn',
        'sh',
        '-c',
        'ip link set lo up && ip addr add 11.22.33.44/32 dev lo && ip -6 addr add 2a00:1:2::7/128 dev lo nodad && exec "$0" "$1"',
        process.execPath,
        'test/integration/sandbox/own-address-driver.ts',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(run.stderr).toBe('');
    const seen = JSON.parse(run.stdout) as Record<string, number>;
    expect(seen).toEqual({
      'direct 11.22.33.44': 200,
      'direct [2a00:1:2::7]': 200,
      'GET http://11.22.33.44': 403,
      'CONNECT 11.22.33.44': 403,
      'CONNECT [::ffff:11.22.33.44]': 403,
      'GET http://[2a00:1:2::7]': 403,
      'CONNECT [2a00:1:2::7]': 403,
      'reached through the default policy': 0,
      'listed CONNECT 11.22.33.44': 200,
    });
  });
});
