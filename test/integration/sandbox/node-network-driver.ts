// Runs inside a private network namespace that node-network.test.ts made (`unshare -n`), where its
// loopback also holds ADDRESS (not 127/8): the stand-in for a host on the internet, and no traffic
// leaves this namespace. Serves HTTP and HTTPS there, then runs test/fixtures/net-client.* on each
// runtime in a sandbox (real bubblewrap, socat, Switchboard's proxy) whose network list is
// "api.example.test" (resolved by the gate to ADDRESS) and ADDRESS itself: ADDRESS is this
// namespace's own, which the gate refuses unless listed by address
// (docs/decisions/sandbox-network.md), and the
// default policy would refuse it too. Prints { "<runtime>": { "<client> <url>": "<status> <body>" |
// "error: …" } } as JSON on stdout.
//   argv: JSON { address, cert, key, runtimes: { label: { command, script, network? } } }
// A runtime with its own `network` list runs with that one instead: its refusals are printed too.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { sandboxPolicy } from '../../../electron/core/sandbox/policy.ts';
import { Sandboxes } from '../../../electron/core/sandbox/sandboxes.ts';
import { detectSandboxSupport } from '../../../electron/core/sandbox/support.ts';

interface Input {
  address: string;
  cert: string;
  key: string;
  runtimes: Record<string, { command: string; script: string; network?: string[] }>;
}

const NAME = 'api.example.test';
const input = JSON.parse(process.argv[2] ?? '{}') as Input;
const support = detectSandboxSupport({ path: process.env.PATH });
if (support.engine === null || support.networkFilter === null) {
  process.stdout.write(JSON.stringify({ skipped: support.missing || support.networkFilterMissing }));
  process.exit(0);
}
const cert = readFileSync(input.cert, 'utf8');
// The proxy verifies the host's certificate when it makes the TLS connection itself (axios).
setDefaultCACertificates([...getCACertificates('default'), cert]);

const hello = (req: IncomingMessage, res: ServerResponse) =>
  res.end(`hello ${req.headers.host ?? ''} over ${'encrypted' in req.socket ? 'https' : 'http'}\n`);
const plain = createHttpServer(hello);
const secure = createHttpsServer({ cert, key: readFileSync(input.key) }, hello);
const listen = (s: typeof plain | typeof secure) =>
  new Promise<number>((resolve) =>
    s.listen(0, input.address, () => resolve((s.address() as { port: number }).port)),
  );
const urls = [`http://${NAME}:${await listen(plain)}/`, `https://${NAME}:${await listen(secure)}/`];

const base = mkdtempSync(join(tmpdir(), 'sb-node-net-'));
const home = join(base, 'home');
const switchboardHome = join(base, 'switchboard');
mkdirSync(home, { recursive: true });
const sandboxes = new Sandboxes({
  support,
  tempRoot: base,
  // how a resolver on the internet would answer for the stand-in host
  resolve: async (host) => (host === NAME ? [input.address] : []),
});

const out: Record<string, unknown> = {};
for (const [label, runtime] of Object.entries(input.runtimes)) {
  const ownFolder = join(switchboardHome, 'data', 'net');
  const policy = sandboxPolicy({
    name: 'net',
    // the stand-in host through the proxy; the test's CA file readable
    setting: { read: [dirname(input.cert)], network: runtime.network ?? [NAME, input.address] },
    command: runtime.command,
    args: [runtime.script],
    env: {},
    cwd: undefined,
    ownFolder,
    switchboardHome,
    userHome: home,
    support,
  });
  if (!policy.sandboxed || policy.network.kind !== 'list') throw new Error('not the sandbox asked for');
  const env: Record<string, string> = {
    PATH: '/usr/bin:/bin',
    HOME: home,
    TARGETS: JSON.stringify(urls),
    NODE_EXTRA_CA_CERTS: input.cert,
    SSL_CERT_FILE: input.cert,
  };
  const { program, run } = await sandboxes.wrap(
    { command: runtime.command, args: [runtime.script], cwd: ownFolder, env },
    policy,
  );
  const refusals: string[] = [];
  run?.onRefusal((refusal) => refusals.push(refusal.words));
  const child = spawn(program.command, program.args, { cwd: program.cwd, env: program.env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  await run?.release();
  try {
    const said = JSON.parse(stdout) as Record<string, string>;
    out[label] = runtime.network ? { said, refusals } : said;
  } catch {
    out[label] = { failed: `exit ${code}: ${stderr.trim()}`, refusals };
  }
}
await sandboxes.dispose();
plain.close();
secure.close();
rmSync(base, { recursive: true, force: true });
process.stdout.write(JSON.stringify(out));
process.exit(0); // the servers' kept-alive connections
