import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIMINGS } from '../../../electron/core/supervisor/types.ts';
import { startFixtureHttp, type Running } from '../../conformance/endpoints.ts';
import { exited } from '../../helpers/cli.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { fixtureServer, NODE, waitFor } from '../../helpers/servers.ts';

// Issue 36 item 5: the health ping made a stateless gateway start and end a server every 30 s
// (~2,900 a day while idle). Real supergateway --stateless (a new server per request) in front of a
// small stdio server that counts its starts in a file; a headless Switchboard with the url entry and
// a clock the test drives, so ten ping periods pass without waiting five minutes. A remote with a
// session (the conformance fixture over Streamable HTTP) is still pinged: one that went away while
// idle is found so, and connected anew.

const require = createRequire(import.meta.url);
const setup = useHeadless();
const clock = new ManualClock();
let gateway: ChildProcess | undefined;
let startLog: string;
let stateful: Running | undefined;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const starts = (): number =>
  existsSync(startLog) ? readFileSync(startLog, 'utf8').split('\n').length - 1 : 0;

beforeAll(async () => {
  startLog = join(setup.t.dir, 'starts.log');
  const port = await freePort();
  const { command, args } = fixtureServer('counting-server.mjs');
  gateway = spawn(
    NODE,
    [
      require.resolve('supergateway/dist/index.js'),
      ...['--stdio', [command, ...args].map((w) => `'${w}'`).join(' ')],
      // without --stateful: stateless, a new server for every request
      ...['--outputTransport', 'streamableHttp', '--port', String(port)],
      ...['--logLevel', 'none', '--healthEndpoint', '/healthz'],
    ],
    { stdio: 'ignore', detached: true, env: { ...process.env, START_LOG: startLog } },
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
  stateful = await startFixtureHttp();
  setup.t.writeServers({
    mcpServers: { stateless: { url: `http://127.0.0.1:${port}/mcp` }, stateful: { url: stateful.url } },
  });
  await setup.start({ clock, editorSync: false });
  await setup.approveRunning(['stateless', 'stateful'], 60_000);
}, 90_000);

afterAll(async () => {
  await stateful?.stop();
  if (gateway?.pid !== undefined && gateway.exitCode === null) {
    process.kill(-gateway.pid, 'SIGTERM'); // its process group: the servers it started too
    await exited(gateway);
  }
});

function stateOf(name: string): string | undefined {
  return setup.headless.core.status.report().servers.find((s) => s.name === name)?.state;
}

/** Waits until the count of starts has not moved for `quietMs` (the gateway's children start fast). */
async function settledStarts(quietMs = 1_000): Promise<number> {
  let last = starts();
  let since = Date.now();
  await waitFor(
    () => {
      const now = starts();
      if (now !== last) [last, since] = [now, Date.now()];
      return Date.now() - since >= quietMs;
    },
    30_000,
    'the start count to settle',
  );
  return last;
}

describe('health pings of remote servers while idle', () => {
  it('a stateless remote is not pinged: ten ping periods start its server at most once', async () => {
    const before = await settledStarts();
    expect(before, 'the connection itself started the server').toBeGreaterThan(0);
    for (let i = 0; i < 10; i++) {
      clock.advance(DEFAULT_TIMINGS.pingIntervalMs);
      await settledStarts(300); // a ping, had one been sent, is answered before the next period
    }
    const after = await settledStarts();
    expect(after - before, 'servers the gateway started for ten idle ping periods').toBeLessThanOrEqual(1);
    expect(stateOf('stateless')).toBe('running');
  }, 60_000);

  it('a remote with a session is still pinged: gone while idle, it is found so in three ping periods', async () => {
    expect(stateOf('stateful')).toBe('running');
    await stateful?.stop();
    const log = join(setup.t.home.logs, 'stateful.log');
    for (let missed = 1; missed <= 3; missed++) {
      clock.advance(DEFAULT_TIMINGS.pingIntervalMs);
      await waitFor(
        () => readFileSync(log, 'utf8').includes(`ping missed (${missed}/3)`),
        10_000,
        `ping ${missed} to the stopped remote missed`,
      );
    }
    await waitFor(() => stateOf('stateful') === 'backoff', 10_000, 'the stateful remote in backoff');
  }, 60_000);
});
