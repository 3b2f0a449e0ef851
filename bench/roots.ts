// Roots of a shared server: how long after an editor connects the server works in the editor's
// folders, through the bridge against directly. @modelcontextprotocol/server-filesystem, started with
// a folder of its own; an SDK client that gives another folder as its roots connects, then calls
// list_allowed_directories until the answer names its folder. Each round: an editor with roots
// connects and stays, a second joins (measured), both leave with DELETE and a client without roots
// calls (measured: the server is started anew in its own folders). Directly, the time counts from
// the end of initialize (the connect spawns the server).
//
//   node_modules/.bin/node bench/roots.ts [--runs 10]
//
// Through the bridge: startHeadless in this process (a throwaway home), the server shared (not
// isolated), the editor on /mcp/fs. Directly: the same client over stdio, spawning the server.
import { mkdirSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { MemoryKeychain } from '../electron/core/secrets/keychain.ts';
import { startHeadless } from '../electron/headless/serve.ts';
import { tempHome } from '../test/helpers/temp-home.ts';
import { benchArgs, finish, machineInfo, medianFigure, NODE, sleep, type Figure } from './lib.ts';

const { values } = parseArgs({ args: benchArgs(), options: { runs: { type: 'string', default: '10' } } });
const runs = Number(values.runs);
const require = createRequire(import.meta.url);
const SERVER = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const load = loadavg();
const t = tempHome();
const folder = (name: string) => {
  mkdirSync(join(t.dir, name), { recursive: true });
  return realpathSync(join(t.dir, name));
};
const started = folder('started-with');
const folders = [folder('editor-a'), folder('editor-b')];

function editorClient(name: string, root: string): Client {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [{ uri: pathToFileURL(root).href, name }],
  }));
  return client;
}

/**
 * ms until a call's answer names `root`, and the calls it took: from the start of the connect, or
 * (`fromReady`) from its end, when the connect includes the server's own start.
 */
async function untilRoots(
  client: Client,
  connect: () => Promise<void>,
  root: string,
  fromReady = false,
): Promise<[number, number]> {
  let t0 = performance.now();
  await connect();
  if (fromReady) t0 = performance.now();
  for (let calls = 1; ; calls++) {
    const answer = await client.callTool({ name: 'list_allowed_directories', arguments: {} });
    if (JSON.stringify(answer.content).includes(root)) return [performance.now() - t0, calls];
    if (performance.now() - t0 > 30_000)
      throw new Error(`no roots after 30 s (${JSON.stringify(answer.content)})`);
  }
}

// The editors' folders are declared in its sandbox: roots do not widen it (docs/decisions/sandbox.md).
t.writeServers({
  mcpServers: { fs: { command: NODE, args: [SERVER, started], sandbox: { write: folders } } },
});
const h = await startHeadless({
  home: t.home,
  keychain: new MemoryKeychain(),
  env: t.env,
  port: 0,
  editorSync: false,
});
h.core.approvals.approve('fs', h.core.approvals.review('fs').fingerprint);
while (!h.core.status.report().servers.some((s) => s.state === 'running' && s.toolCount)) await sleep(50);

const bridged: number[] = [];
const bridgedCalls: number[] = [];
const back: number[] = [];
const direct: number[] = [];
const bridgeTransport = (name: string) =>
  new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${h.port}/mcp/fs`), {
    requestInit: { headers: { Authorization: `Bearer ${h.tokens.ensure(name)}` } },
  });
try {
  for (let i = 0; i < runs; i++) {
    // One editor stays while another joins: the server's roots change, it does not start anew.
    const stay = editorClient(`stay-${i}`, folders[0] as string);
    const stayTransport = bridgeTransport(`stay-${i}`);
    await untilRoots(stay, () => stay.connect(stayTransport), folders[0] as string);
    const name = `join-${i}`;
    const client = editorClient(name, folders[1] as string);
    const transport = bridgeTransport(name);
    const [ms, calls] = await untilRoots(client, () => client.connect(transport), folders[1] as string);
    bridged.push(ms);
    bridgedCalls.push(calls);
    await transport.terminateSession();
    await client.close();

    // The last editor with roots leaves: the server is started anew with its own folders.
    const t0 = performance.now();
    await stayTransport.terminateSession();
    await stay.close();
    const plain = new Client({ name: `plain-${i}`, version: '1.0.0' });
    const plainTransport = bridgeTransport(`plain-${i}`);
    await plain.connect(plainTransport);
    const answer = await plain.callTool({ name: 'list_allowed_directories', arguments: {} });
    if (
      !JSON.stringify(answer.content).includes(started) ||
      JSON.stringify(answer.content).includes(t.dir + '/editor')
    )
      throw new Error(`after the editors left the server works in ${JSON.stringify(answer.content)}`);
    back.push(performance.now() - t0);
    await plainTransport.terminateSession();
    await plain.close();

    const root = folders[i % 2] as string;
    const own = editorClient(`direct-${i}`, root);
    const stdio = new StdioClientTransport({ command: NODE, args: [SERVER, started], stderr: 'ignore' });
    direct.push((await untilRoots(own, () => own.connect(stdio), root, true))[0]);
    await own.close();
  }
} finally {
  await h.stop();
  t.cleanup();
}

const figures: Figure[] = [
  medianFigure('through the bridge: an editor joins → a call sees its roots', bridged, 'ms'),
  medianFigure('through the bridge: calls until one sees its roots', bridgedCalls, 'calls'),
  medianFigure(
    'through the bridge: the last editor with roots leaves → a call in its own folders',
    back,
    'ms',
  ),
  medianFigure('directly (stdio): initialize answered → a call sees its roots', direct, 'ms'),
];
finish({
  bench: 'roots',
  title: `Roots of a shared server (server-filesystem), ${runs} editors one after another`,
  machine: machineInfo(load),
  figures,
  notes: [
    'joining: another editor with roots stays connected, so the server changes roots without starting anew; leaving: the time includes the new start of the server',
  ],
});
