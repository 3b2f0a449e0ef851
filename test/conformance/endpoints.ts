// The endpoints the conformance suite runs against: our fixture server (test/fixtures/
// conformance-server.mjs) directly over HTTP, behind a headless Switchboard as a `url` entry and as a
// stdio entry, and behind supergateway (a peer bridge, for comparison).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { MemoryKeychain } from '../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../electron/headless/serve.ts';
import { editorToken } from '../helpers/bridge.ts';
import { fixtureServer, NODE, waitFor } from '../helpers/servers.ts';
import { tempHome } from '../helpers/temp-home.ts';

const require = createRequire(import.meta.url);
const FIXTURE = fileURLToPath(new URL('../fixtures/conformance-server.mjs', import.meta.url));

export interface Running {
  url: string;
  stop(): Promise<void>;
}

/** Resolves once the child has exited (at once if it already has). */
function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * The fixture in http mode on a free port; resolves with the URL it prints once listening. `poll`:
 * it closes a call's stream before asking its client anything (the client resumes it with GET).
 */
export function startFixtureHttp(options: { poll?: boolean } = {}): Promise<Running> {
  const args = [FIXTURE, 'http', '--port', '0', ...(options.poll ? ['--poll'] : [])];
  const child = spawn(NODE, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const url = /^(http:\/\/\S+)\n/.exec(stdout)?.[1];
      if (!url) return;
      resolve({
        url,
        stop: async () => {
          child.kill('SIGTERM');
          await exited(child);
        },
      });
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      reject(new Error(`${FIXTURE} http exited (${code}) before listening:\n${stderr}`)),
    );
  });
}

export interface SwitchboardUnderTest {
  headless: Headless;
  /** an editor token for the bridge */
  token: string;
  /** the bridge's endpoint for one server: http://127.0.0.1:<port>/mcp/<name> */
  url(server: string): string;
  stop(): Promise<void>;
}

/**
 * A headless Switchboard in a temp home with two approved servers, both the fixture: `conf-stdio`
 * (a stdio entry running it) and `conf-http` (a `url` entry for the fixture at fixtureUrl). The
 * keychain is in memory: neither entry references a secret.
 */
export async function startSwitchboard(fixtureUrl: string): Promise<SwitchboardUnderTest> {
  const t = tempHome();
  t.writeServers({
    mcpServers: {
      'conf-stdio': fixtureServer('conformance-server.mjs', 'stdio'),
      'conf-http': { url: fixtureUrl },
    },
  });
  const headless = await startHeadless({
    home: t.home,
    keychain: new MemoryKeychain(),
    env: t.env,
    port: 0,
    editorSync: false,
  });
  const stop = async () => {
    await headless.stop();
    t.cleanup();
  };
  try {
    for (const name of ['conf-stdio', 'conf-http'])
      headless.core.approvals.approve(name, headless.core.approvals.review(name).fingerprint);
    await waitFor(
      () => {
        const servers = headless.core.status.report().servers;
        return servers.length === 2 && servers.every((s) => s.state === 'running' && s.toolCount);
      },
      30_000,
      'conf-stdio and conf-http running',
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    headless,
    token: editorToken(headless.tokens, 'conformance'),
    url: (server) => `http://127.0.0.1:${headless.port}/mcp/${server}`,
    stop,
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A word for a shell command line (supergateway runs its --stdio command with a shell). */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * supergateway 4 serving the fixture (stdio) as Streamable HTTP, `--stateful`: one fixture process
 * per session, kept for the session. It runs in a process group of its own, so stopping it also
 * ends the fixture processes it started.
 */
export async function startSupergateway(): Promise<Running> {
  const port = await freePort();
  const child = spawn(
    NODE,
    [
      require.resolve('supergateway/dist/index.js'),
      ...['--stdio', [NODE, FIXTURE, 'stdio'].map(shellWord).join(' ')],
      ...['--outputTransport', 'streamableHttp', '--stateful', '--port', String(port)],
      // its default level logs every message; /healthz tells when it is listening
      ...['--logLevel', 'none', '--healthEndpoint', '/healthz'],
    ],
    { stdio: 'ignore', detached: true },
  );
  const stop = async () => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    await exited(child);
  };
  try {
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        ),
      15_000,
      `supergateway listening on port ${port}`,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `http://127.0.0.1:${port}/mcp`, stop };
}
