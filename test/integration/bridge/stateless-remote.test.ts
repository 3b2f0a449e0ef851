import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer, request, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatusReportSchema } from '../../../shared/status.ts';
import { httpClient, textOf } from '../../helpers/bridge.ts';
import { exited, runCli, startServe, stopAll } from '../../helpers/cli.ts';
import { everythingServer, NODE, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

/**
 * A remote server that is stateless: supergateway 4.0.0's Streamable HTTP without `--stateful` starts
 * a new server-everything for every request, and each one announces `tools/list_changed` as it starts
 * (it registers tools once initialized) — also on the answer to Switchboard's own `tools/list`.
 * Listing again for each announcement never ends (1,307 server starts in ten minutes in the issue).
 * Real supergateway, real server-everything, a real serve and a real SDK client; a counting proxy in
 * front of supergateway sees every request Switchboard sends.
 */

const require = createRequire(import.meta.url);
let t: TempHome;
const children: ChildProcess[] = [];
let proxy: Server | undefined;
let gateway: ChildProcess | undefined;
let client: Client | undefined;

beforeEach(() => {
  t = tempHome();
});
afterEach(async () => {
  await client?.close().catch(() => undefined);
  client = undefined;
  await stopAll(children);
  if (gateway?.pid !== undefined && gateway.exitCode === null) {
    process.kill(-gateway.pid, 'SIGTERM'); // its process group: the servers it started too
    await exited(gateway);
  }
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
  t.cleanup();
});

/** supergateway serving server-everything (stdio) as stateless Streamable HTTP; its /mcp URL. */
async function startStatelessGateway(): Promise<string> {
  const port = await freePort();
  const { command, args } = everythingServer();
  gateway = spawn(
    NODE,
    [
      require.resolve('supergateway/dist/index.js'),
      ...['--stdio', [command, ...args].map((w) => `'${w}'`).join(' ')],
      ...['--outputTransport', 'streamableHttp', '--port', String(port)],
      ...['--logLevel', 'none', '--healthEndpoint', '/healthz'],
    ],
    { stdio: 'ignore', detached: true },
  );
  await waitFor(
    () =>
      fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
    30_000,
    'supergateway listening',
  );
  return `http://127.0.0.1:${port}/mcp`;
}

/** A pass-through proxy that counts the JSON-RPC methods POSTed through it. */
async function countingProxy(target: string): Promise<{ url: string; count: (method: string) => number }> {
  const seen: string[] = [];
  const to = new URL(target);
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST') {
        try {
          const parsed = JSON.parse(body.toString('utf8')) as { method?: string } | { method?: string }[];
          for (const m of Array.isArray(parsed) ? parsed : [parsed]) if (m.method) seen.push(m.method);
        } catch {
          // not JSON: passed on as it is
        }
      }
      const forward = request(
        { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy?.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}${to.pathname}`, count: (m) => seen.filter((s) => s === m).length };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('a stateless remote server (supergateway without --stateful)', () => {
  it('is listed once per real reason, not in a loop; editors hear no change that is none; the log says why', async () => {
    const counted = await countingProxy(await startStatelessGateway());
    t.writeServers({ mcpServers: { sg: { url: counted.url } } });
    expect((await runCli(['approve', 'sg', '--yes'], t.env)).code).toBe(0);
    const serve = await startServe(t.env);
    children.push(serve.child);
    await waitFor(
      async () => {
        const report = StatusReportSchema.parse(
          JSON.parse((await runCli(['status', '--json'], t.env)).stdout),
        );
        const sg = report.servers.find((s) => s.name === 'sg');
        return sg?.state === 'running' && (sg.toolCount ?? 0) > 0;
      },
      60_000,
      'sg running with its tools',
    );
    // The new server behind the answer to Switchboard's tools/list announced its tools: said once.
    const log = () => readFileSync(join(t.home.logs, 'sg.log'), 'utf8');
    await waitFor(
      () => log().includes("announced tools/list_changed with the answer to Switchboard's own request"),
      30_000,
      'the log saying what the server does',
    );
    // Once per connection (a slow start may have taken two), not again for its announcements.
    const listedAtStart = counted.count('tools/list');
    expect(listedAtStart).toBe(counted.count('initialize'));

    // Each editor call starts a new server there too, which announces its tools on the call's answer.
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(serve.output())?.[1]);
    const token =
      (await runCli(['token', 'create', 'stateless'], t.env)).stdout.trim().split('\n').at(-1) ?? '';
    client = await httpClient(`http://127.0.0.1:${port}/mcp/sg`, token);
    let toldChanged = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void toldChanged++);
    const calls = 5;
    for (let i = 0; i < calls; i++)
      expect(textOf(await client.callTool({ name: 'echo', arguments: { message: `m${i}` } }))).toContain(
        `m${i}`,
      );
    // At most one list per call (coalesced and spaced out, fewer), never a loop.
    expect(counted.count('tools/list')).toBeLessThanOrEqual(listedAtStart + calls);
    expect(toldChanged).toBe(0);
  });
});
