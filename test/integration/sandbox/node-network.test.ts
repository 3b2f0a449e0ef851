import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxUnavailable } from '../../helpers/sandbox.ts';

// A sandboxed server reaches an allowed host through Switchboard's proxy over HTTP and HTTPS whatever
// it runs on: real Nodes 18, 20, 22, 24.4 (before Node's own proxy support) and the project's 24,
// each with fetch, http.get, https.get, an Agent of its own, axios and a request in absolute form to
// the proxy (`GET https://…`, what older axios releases send), and Python's urllib and aiohttp. Real
// bubblewrap, socat and proxy; the "internet" host is an address in a network namespace made here
// (node-network-driver.ts), listed with its name: nothing leaves that namespace. (The default
// policy, "any host on the internet", takes the same path; the gate refuses this namespace's own
// address by default, so the host is listed.)
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const nodes = join(repo, 'test/node-versions/node_modules');
const root = process.getuid?.() === 0;
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const why =
  sandboxUnavailable() ??
  (!root
    ? 'needs root to make a network namespace with an interface (unshare -n, ip)'
    : !has('unshare') || !has('ip') || !has('openssl')
      ? 'needs unshare, ip and openssl'
      : undefined);
if (why) console.log(`sandboxed network on other runtimes skipped: ${why}`);

const older = { 'node 18': 'node18', 'node 22': 'node22', 'node 24.4': 'node24-4' };
const installed = Object.values(older).every((d) => existsSync(join(nodes, d, 'bin', 'node')));
if (!installed) console.log('older Nodes not installed: run  bash test/node-versions/install.sh');
// aiohttp follows the proxy only through the sandbox's sitecustomize (Debian: python3-aiohttp)
const aiohttp = spawnSync('/usr/bin/python3', ['-c', 'import aiohttp']).status === 0;
const machineNode = spawnSync('/usr/bin/node', ['--version'], { encoding: 'utf8' }).stdout?.trim();
const NODE_CLIENT = join(repo, 'test/fixtures/net-client.cjs');
const candidates: [string, string, string][] = [
  // Node 20 on this machine (Debian's own is 18)
  [`node ${machineNode} (/usr/bin/node)`, '/usr/bin/node', NODE_CLIENT],
  ['node 24 (the project’s)', process.execPath, NODE_CLIENT],
  ['python 3 (urllib, aiohttp)', '/usr/bin/python3', join(repo, 'test/fixtures/net-client.py')],
  ...Object.entries(older).map(([label, d]): [string, string, string] => [
    label,
    join(nodes, d, 'bin', 'node'),
    NODE_CLIENT,
  ]),
];
const REFUSED = 'the host not in its network list';
const runtimes: Record<string, { command: string; script: string; network?: string[] }> = Object.fromEntries(
  candidates
    .filter(([, command]) => existsSync(command))
    .map(([label, command, script]) => [label, { command, script }]),
);
// the oldest Node here, its network list naming another host
runtimes[REFUSED] = {
  command:
    [join(nodes, 'node18', 'bin', 'node'), '/usr/bin/node'].find((n) => existsSync(n)) ?? process.execPath,
  script: NODE_CLIENT,
  network: ['other.example.test'],
};

let dir: string;
beforeAll(() => {
  if (why) return;
  dir = mkdtempSync(join(tmpdir(), 'sb-node-net-ca-'));
  // a CA certificate is public: readable to a server that runs as nobody (serve as root, CI)
  chmodSync(dir, 0o755);
  const made = spawnSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
      ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      ...['-subj', '/CN=api.example.test', '-addext', 'subjectAltName=DNS:api.example.test'],
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`openssl could not make a test certificate: ${made.stderr}`);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.runIf(!installed && process.env.SWITCHBOARD_REQUIRE_NODES === '1')('older Nodes', () => {
  it('are installed', () => {
    throw new Error('the older Nodes are not installed: run  bash test/node-versions/install.sh');
  });
});

describe.skipIf(why !== undefined)('a sandboxed server reaches an allowed host through the proxy', () => {
  it('on every runtime, with every client, over HTTP and HTTPS', () => {
    const address = '10.77.0.1';
    const input = { address, cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem'), runtimes };
    const setUp = ['ip link set lo up', `ip addr add ${address}/32 dev lo`, 'exec "$0" "$@"'].join(' && ');
    const driver = join(repo, 'test/integration/sandbox/node-network-driver.ts');
    const result = spawnSync(
      'unshare',
      ['-n', 'sh', '-c', setUp, process.execPath, driver, JSON.stringify(input)],
      {
        encoding: 'utf8',
        timeout: 240_000,
        env: { ...process.env, PATH: process.env.PATH ?? '/usr/bin:/bin' },
      },
    );
    if (result.status !== 0) throw new Error(`driver failed (${result.status}): ${result.stderr}`);
    const {
      skipped,
      [REFUSED]: refused,
      ...out
    } = JSON.parse(result.stdout) as Record<string, Record<string, string>> & {
      skipped?: string;
      [REFUSED]?: { said: Record<string, string>; refusals: string[] };
    };
    if (skipped) return console.log(`skipped: ${skipped}`);
    // Not in its list: every client is refused by the proxy, and the refusal is told with its fix;
    // its own loopback stays its own.
    const asked = Object.entries(refused?.said ?? {});
    const remote = asked.filter(([key]) => key.includes('api.example.test'));
    expect(remote).toHaveLength(11);
    expect(remote.filter(([, said]) => said.startsWith('200'))).toEqual([]);
    expect(asked.filter(([key]) => key.includes('127.0.0.1')).map(([, said]) => said.slice(0, 10))).toEqual([
      '200 hello ',
      '200 hello ',
      '200 hello ',
    ]);
    expect(refused?.refusals).toEqual([
      expect.stringMatching(
        /^sandbox refused connecting to api\.example\.test:\d+: it is not in its network list: add "api\.example\.test" to sandbox\.network$/,
      ),
      expect.stringMatching(
        /^sandbox refused connecting to api\.example\.test:\d+: it is not in its network list: add "api\.example\.test" to sandbox\.network$/,
      ),
    ]);
    for (const [label, said] of Object.entries(out)) {
      const python = label.startsWith('python');
      const clients = python
        ? ['urllib', ...(aiohttp ? ['aiohttp'] : [])]
        : ['fetch', 'http.get', 'https.get', 'own Agent', 'axios', 'absolute-form'];
      // every client asked both hosts (https.get only the https one)
      const keys = Object.keys(said).map((k) => k.replace(/:\d+\/$/, ''));
      expect(keys.sort(), label).toEqual(
        clients
          .flatMap((c) =>
            ['http', 'https']
              .filter((s) => c !== 'https.get' || s === 'https')
              .map((s) => `${c} ${s}://api.example.test`),
          )
          // and a server of its own on the sandbox's loopback
          .concat(python ? [] : ['fetch', 'http.get', 'own Agent'].map((c) => `${c} http://127.0.0.1`))
          .sort(),
      );
      const expected: Record<string, string> = {};
      for (const key of Object.keys(said)) {
        const url = key.slice(key.lastIndexOf(' ') + 1);
        const { host, protocol } = new URL(url);
        expected[key] = `200 hello ${host} over ${protocol.slice(0, -1)}`;
      }
      expect(said, label).toEqual(expected);
    }
    expect([...Object.keys(out), REFUSED].sort()).toEqual(Object.keys(runtimes).sort());
  }, 300_000);
});
