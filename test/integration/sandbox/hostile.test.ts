import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Core } from '../../../electron/core/core.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';
import { approveUntilRunning, hostileAttempts } from '../../helpers/real-sandbox.ts';
import { sandboxUnavailable } from '../../helpers/sandbox.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// A hostile server (test/fixtures/hostile-server.mjs) under the default sandbox and with the access
// declared, run by a real Core: real bubblewrap, real socat, real files in a temp HOME.
const skip = sandboxUnavailable() !== undefined;

let t: TempHome;
let core: Core | undefined;
let loopback: Server;
let port: number;
let api: HttpServer;
let apiPort: number;

/** This machine's address on a network (not loopback): stands in for a remote API's address. */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

beforeAll(async () => {
  loopback = createServer((s) => s.end('hello from this computer\n'));
  await new Promise<void>((r) => loopback.listen(0, '127.0.0.1', r));
  port = (loopback.address() as { port: number }).port;
  api = createHttpServer((req, res) => res.end(`api says hi to ${req.headers.host ?? ''}\n`));
  await new Promise<void>((r) => api.listen(0, '0.0.0.0', r));
  apiPort = (api.address() as { port: number }).port;
});
afterAll(async () => {
  loopback.close();
  api.close();
});

beforeEach(() => {
  t = tempHome();
  const home = t.env.HOME ?? '';
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), '-----BEGIN OPENSSH PRIVATE KEY-----\nplanted\n');
  mkdirSync(join(home, '.aws'), { recursive: true });
  writeFileSync(join(home, '.aws', 'credentials'), '[default]\naws_secret_access_key = planted\n');
  writeFileSync(join(home, '.bashrc'), '# the person’s own\n');
  mkdirSync(join(t.home.tokens, 'editors'), { recursive: true });
  writeFileSync(join(t.home.tokens, 'control'), 'planted-control-token');
});
afterEach(async () => {
  await core?.lifecycle.shutdown();
  core = undefined;
  t.cleanup();
});

async function run(sandbox: unknown, extraEnv: Record<string, string> = {}) {
  t.writeServers({
    mcpServers: {
      hostile: {
        ...fixtureServer('hostile-server.mjs'),
        // SWITCHBOARD_HOME named on purpose: servers no longer inherit it, and a hostile one would guess it
        env: {
          TARGET_PID: String(process.pid),
          TARGET_PORT: String(port),
          SWITCHBOARD_HOME: t.env.SWITCHBOARD_HOME ?? '',
          ...extraEnv,
        },
        ...(sandbox === undefined ? {} : { sandbox }),
      },
    },
  });
  // A Core started again in the same home shows the earlier run's log first (its history): this
  // run's lines are those since it started.
  const since = Date.now();
  core = new Core({
    home: t.home,
    keychain: new MemoryKeychain(),
    env: t.env,
    // the stand-in remote API's name, as a resolver outside the sandbox would answer it
    networkLookup: async (host) => (host === 'api.example.test' && outside ? [outside] : []),
  });
  await core.lifecycle.start();
  const c = core;
  await approveUntilRunning(c, 'hostile');
  const fromCall = await hostileAttempts(c);
  // Its stderr is read apart from its answer: wait for every attempt's line (what the sandbox refused
  // is noted at once after the line that shows it).
  const lines = () =>
    c.logs
      .lines('hostile')
      .filter((l) => l.ts >= since)
      .map((l) => l.text);
  await waitFor(
    () => lines().filter((l) => l.includes('(from a tool call)')).length === Object.keys(fromCall).length,
    10_000,
    'every attempt in the log',
  );
  return { fromCall, log: lines(), core: c };
}

describe.skipIf(skip)('a hostile server in the default sandbox', () => {
  it('fails at everything, at start and from a tool call, and its log says what the sandbox refused', async () => {
    const { fromCall, log, core: c } = await run(undefined);
    for (const [name, attempt] of Object.entries(fromCall))
      expect(attempt, name).toMatchObject({ ok: false });
    for (const when of ['at start', 'from a tool call']) {
      for (const name of Object.keys(fromCall))
        expect(log, `${name} ${when}`).toContainEqual(
          expect.stringMatching(new RegExp(`^attempt ${name} \\(${when}\\): refused`)),
        );
    }
    expect(log).toContain(
      'sandbox refused reading ~/.ssh/id_ed25519: it is in ~/.ssh, kept hidden from servers; add exactly what it needs to sandbox.read if you trust it',
    );
    expect(log).toContainEqual(expect.stringMatching(/^sandbox refused reading ~\/\.aws\/credentials/));
    expect(log).toContainEqual(
      expect.stringMatching(new RegExp(`^sandbox refused reading ${t.home.tokens}`)),
    );
    expect(log).toContain(
      `sandbox refused reading /proc/${process.pid}: other programs' processes (their environment, their command lines) are hidden from servers`,
    );
    expect(log).toContain('sandbox refused writing ~/.bashrc: add it to sandbox.write');
    expect(log).toContain(
      `sandbox refused connecting to 127.0.0.1:${port} on this computer: add "127.0.0.1:${port}" to sandbox.network if it should reach it`,
    );
    // nothing changed outside
    expect(readFileSync(join(t.env.HOME ?? '', '.bashrc'), 'utf8')).toBe('# the person’s own\n');
    // status says the last refusal in one line, and what the server may touch
    const status = c.status.report().servers[0];
    expect(status?.sandboxRefused).toMatch(
      /^sandbox refused connecting to 127\.0\.0\.1:\d+ on this computer/,
    );
    // (a checkout under /tmp, CI's, is private there: the fixture's project is then readable too)
    expect(status?.access).toMatch(
      /^sandboxed; writes only its own folder; (?:reads [^;]+; )?network: any host on the internet over HTTP\(S\), through Switchboard's proxy; nothing on this computer; only programs that use HTTPS_PROXY reach it$/,
    );
  });

  it('runs the declared access, and only that: the declared attempts succeed, /proc and the tokens stay hidden', async () => {
    const { fromCall, log } = await run({
      read: ['~/.ssh/id_ed25519', '~/.aws/credentials', t.home.tokens],
      write: ['~/.bashrc'],
      network: [`127.0.0.1:${port}`],
    });
    expect(fromCall).toMatchObject({
      'ssh-key': { ok: true },
      'aws-credentials': { ok: true },
      // sealed: no policy opens Switchboard's tokens (issue 32 item 8)
      'switchboard-tokens': { ok: false },
      bashrc: { ok: true, said: 'appended to ~/.bashrc' },
      'shell-ssh-key': { ok: true },
      'loopback-port': { ok: true, said: `connected to 127.0.0.1:${port}, it said hello from this computer` },
      'serve-environ': { ok: false },
    });
    expect(log).toContainEqual(expect.stringMatching(/^attempt ssh-key \(at start\): ok/));
    expect(readFileSync(join(t.env.HOME ?? '', '.bashrc'), 'utf8')).toContain('evil.example');
  });

  it.skipIf(!outside)(
    'reaches a remote API named in its network list through its proxy, and nothing else',
    async () => {
      const url = `http://api.example.test:${apiPort}/v1`;
      // The stand-in API runs on this computer, whose own addresses a listed name never reaches
      // (its owner could point it anywhere): its address is listed as well.
      const listed = await run(
        { network: ['api.example.test', `${outside}:${apiPort}`] },
        { TARGET_URL: url },
      );
      expect(listed.fromCall['remote-api']).toEqual({
        ok: true,
        said: `fetched ${url}: api says hi to api.example.test:${apiPort}`,
      });
      expect(listed.fromCall['loopback-port']).toMatchObject({ ok: false });
      await core?.lifecycle.shutdown();
      core = undefined;
      const other = await run({ network: ['api.github.com'] }, { TARGET_URL: url });
      // Node's fetch tunnels through the proxy (CONNECT) even for http://: it sees a refused tunnel
      expect(other.fromCall['remote-api']).toMatchObject({ ok: false });
      expect(other.log).toContain(
        `sandbox refused connecting to api.example.test:${apiPort}: it is not in its network list: add "api.example.test" to sandbox.network`,
      );
    },
  );
});
