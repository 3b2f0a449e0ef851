// Stdio relay start-up: spawn `<node> electron/relay/main.mjs --server NAME --editor claude-desktop`
// exactly as Claude Desktop does, write `initialize` on its stdin at once, and time spawn → the first
// answer on its stdout. Budget (design.md): start to first answered request <= 150 ms.
//
//   node bench/relay-startup.ts [--runs N] [--real] [--quick]
//
// Default: the relay talks to a minimal local HTTP stub on the bridge's socket (run/bridge.sock) that
// answers `initialize` the way the bridge's /mcp/<server> does, so the figure is the relay's own cost
// (process start, socket check and token read, one HTTP round trip). --real: through a running bridge (startHeadless in this process) to
// server-everything over /mcp/everything, i.e. end to end.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { resolveHome } from '../electron/core/home.ts';
import {
  benchArgs,
  finish,
  machineInfo,
  medianFigure,
  NODE,
  onCleanup,
  runTimed,
  type Figure,
} from './lib.ts';

const RELAY = fileURLToPath(new URL('../electron/relay/main.mjs', import.meta.url));
const EDITOR = 'claude-desktop';
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'relay-bench', version: '1' },
  },
});

const { values } = parseArgs({
  args: benchArgs(),
  options: {
    runs: { type: 'string', default: '20' },
    real: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
  },
});
const runs = values.quick ? 5 : Number(values.runs);
const loadStart = loadavg();

const dir = mkdtempSync(join(tmpdir(), 'sb-relay-bench-'));
onCleanup(() => rmSync(dir, { recursive: true, force: true }));
const env = { ...process.env, SWITCHBOARD_HOME: join(dir, 'switchboard'), HOME: join(dir, 'user') };
const home = resolveHome(env);
mkdirSync(home.run, { recursive: true, mode: 0o700 });

/** A stand-in for the bridge's /mcp/<server>: checks the token, answers initialize, 202s notifications. */
async function startStub(token: string): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401).end();
    if (req.method !== 'POST') return void res.writeHead(405).end();
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const message = JSON.parse(body) as { id?: number; method: string };
      if (message.id === undefined) return void res.writeHead(202).end();
      const reply = JSON.stringify({
        jsonrpc: '2.0',
        id: message.id,
        result: {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'stub', version: '1' },
        },
      });
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'stub-session' }).end(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(join(home.run, 'bridge.sock'), resolve));
  return server;
}

async function startReal(): Promise<{ server: string; stop: () => Promise<void> }> {
  const { startHeadless } = await import('../electron/headless/serve.ts');
  const { MemoryKeychain } = await import('../electron/core/secrets/keychain.ts');
  const require = createRequire(import.meta.url);
  const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
  writeFileSync(
    home.serversFile,
    JSON.stringify({ mcpServers: { everything: { command: NODE, args: [everything, 'stdio'] } } }),
  );
  const headless = await startHeadless({ home, keychain: new MemoryKeychain(), env, port: 0 });
  headless.core.approvals.approve('everything', headless.core.approvals.review('everything').fingerprint);
  const deadline = Date.now() + 60_000;
  while (headless.core.status.report().servers.find((s) => s.name === 'everything')?.state !== 'running') {
    if (Date.now() > deadline) throw new Error('server-everything did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  headless.tokens.create(EDITOR);
  return { server: 'everything', stop: () => headless.stop() };
}

/** One editor start: spawn the relay, send initialize, resolve with ms until its answer arrived. */
function timeOnce(server: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(NODE, [RELAY, '--server', server, '--editor', EDITOR], {
      env: { ...env, ...extraEnv },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdin.write(INITIALIZE + '\n');
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!out.includes('\n')) return;
      const ms = performance.now() - started;
      child.stdin.end();
      const answer = JSON.parse(out.slice(0, out.indexOf('\n'))) as {
        result?: unknown;
        error?: { message: string };
      };
      if (!answer.result) reject(new Error(`relay answered with an error: ${answer.error?.message}\n${err}`));
      else resolve(ms);
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
  });
}

const notes: string[] = [];
let server = 'stub';
let stop: () => Promise<void>;
if (values.real) {
  const real = await startReal();
  server = real.server;
  stop = real.stop;
  notes.push(
    'end to end: relay → bridge /mcp/everything → server-everything (stdio), bridge in the bench process',
  );
} else {
  mkdirSync(join(home.tokens, 'editors'), { recursive: true });
  const token = 'bench-token-'.padEnd(43, 'x');
  writeFileSync(join(home.tokens, 'editors', EDITOR), token + '\n', { mode: 0o600 });
  const stub = await startStub(token);
  stop = () => new Promise((resolve) => stub.close(() => resolve()));
  notes.push(
    'STUB MODE: the relay talks to a minimal local HTTP stub, not the bridge — the figure is the relay’s own cost; ' +
      'rerun with --real for the end-to-end figure through /mcp/everything',
  );
}

// Cold: the first start after an install or upgrade, with the relay's compile cache still empty.
const cold: number[] = [];
for (let i = 0; i < Math.min(runs, 10); i++) {
  rmSync(join(home.root, 'cache'), { recursive: true, force: true });
  cold.push(await timeOnce(server));
}
// Warm: every later start (the relay enables Node's compile cache in <home>/cache itself).
const times: number[] = [];
for (let i = 0; i < runs; i++) times.push(await timeOnce(server));
// With NODE_COMPILE_CACHE in the relay's env (e.g. set in the editor's config entry) the cache covers
// the entry file too, so Node does not even load its TypeScript stripper.
const cached = { NODE_COMPILE_CACHE: join(dir, 'compile-cache') };
const timesCached: number[] = [];
await timeOnce(server, cached); // fills the cache; not counted
for (let i = 0; i < runs; i++) timesCached.push(await timeOnce(server, cached));

const baseline: number[] = [];
const emptyTs = join(dir, 'empty.ts');
writeFileSync(emptyTs, 'export {};\n');
for (let i = 0; i < Math.min(runs, 10); i++) baseline.push((await runTimed(NODE, [emptyTs], env)).ms);
await stop();

const budget = {
  op: '<=',
  limit: 150,
  text: 'Claude Desktop relay: start to first answered request ≤ 150 ms',
} as const;
const via = values.real ? 'real bridge' : 'stub';
const figures: Figure[] = [
  medianFigure(`relay: spawn → initialize answered (${via})`, times, 'ms', budget),
  medianFigure(`relay, first start after install (${via}, cold compile cache)`, cold, 'ms', budget),
  medianFigure(`relay with NODE_COMPILE_CACHE set in its env (${via})`, timesCached, 'ms', budget),
  medianFigure('context: node runs an empty .ts file (spawn → exit)', baseline, 'ms'),
];
finish({
  bench: 'relay-startup',
  title: 'Stdio relay start-up',
  machine: machineInfo(loadStart),
  figures,
  notes,
});
