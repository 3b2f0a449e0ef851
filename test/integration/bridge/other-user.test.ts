import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { nodeForOtherUser, OTHER_UID, type OtherUserNode } from '../../helpers/other-user.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { uncheckedPeerUsers } from '../../../electron/core/bridge/peer-user.ts';
import { bearer, call } from '../../helpers/http.ts';

// Issue 32, items 1 and 2: a credential another local user collected (a port squatter while `serve`
// was down) is worth nothing from that user. A real headless Switchboard; the attacker is a real
// second user (uid 65534, nobody) running other-user-client.mjs with valid tokens: an editor's, the
// control token, and a signed-in browser's session. The same tokens from this user work.

const setup = useHeadless();
let port: number;
let control: string;
let editor: string;
let session: string;
let other: OtherUserNode | string;
let client: string;

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'squatter', version: '1' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
/** The attack of the issue: a server that writes a file as the person, added without a sandbox. */
const PWN = JSON.stringify({
  name: 'pwned',
  config: { command: '/bin/sh', args: ['-c', 'id > /tmp/sb-pwned'], sandbox: false },
});

interface Result {
  status: number;
  text?: string;
  headers?: Record<string, string>;
  error?: string;
}
interface Request {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  streamMs?: number;
}

beforeAll(async () => {
  setup.t.writeServers({ mcpServers: {} });
  const h = await setup.start();
  port = h.port;
  control = h.tokens.controlToken();
  editor = h.tokens.create('cursor').token;
  const code = new URL(h.bridge.sessions.issueLoginLink().url).searchParams.get('code') ?? '';
  session = h.bridge.sessions.redeem(code)?.session ?? '';
  expect(session).not.toBe('');
  other = nodeForOtherUser();
  if (typeof other === 'string') return;
  client = join(dirname(other.node), 'other-user-client.mjs');
  copyFileSync(fileURLToPath(new URL('./other-user-client.mjs', import.meta.url)), client);
});
afterAll(() => {
  if (typeof other === 'object') other.cleanup();
});

/** Sends `requests` from uid 65534, each on its own connection (async: the bridge is in this process). */
function asOtherUser(requests: Request[]): Promise<{ uid: number; results: Result[] }> {
  if (typeof other === 'string') throw new Error(other);
  const child = spawn(other.node, [client, JSON.stringify({ port, requests })], {
    uid: OTHER_UID,
    gid: OTHER_UID,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`the other user's client failed (${code}): ${err}`));
      resolve(JSON.parse(out) as { uid: number; results: Result[] });
    });
  });
}

function expectRefused(result: Result | undefined, what: string): void {
  expect(result?.status, what).toBe(403);
  expect(JSON.parse(result?.text ?? '{}'), what).toEqual({
    error: `connection from another local user (uid ${OTHER_UID}) refused`,
  });
  expect(result?.headers?.connection, what).toBe('close');
}

const runs = process.platform === 'linux' && process.getuid?.() === 0;
if (!runs) console.log('other-user bridge test skipped: needs Linux and root to act as another user');

describe.runIf(runs)("another local user's connection is refused before any token is looked at", () => {
  it("refuses a valid editor token on /mcp and /mcp/<server> from another user; this user's works", async () => {
    const requests: Request[] = ['/mcp', '/mcp/everything'].map((path) => ({
      method: 'POST',
      path,
      headers: { ...MCP_HEADERS, ...bearer(editor) },
      body: INITIALIZE,
    }));
    const warn = vi.spyOn(console, 'warn');
    const { uid, results } = await asOtherUser(requests);
    expect(uid).toBe(OTHER_UID);
    expectRefused(results[0], 'POST /mcp');
    expectRefused(results[1], 'POST /mcp/everything');
    // serve's output says so once, for the person who runs serve as another user than their editors
    expect(warn.mock.calls.map(([line]) => String(line))).toEqual([
      `bridge: refusing connections from uid ${OTHER_UID}: Switchboard answers only its own user (uid 0); run serve as the user your editors run as`,
    ]);
    warn.mockRestore();

    const mine = await call(port, 'POST', '/mcp', {
      headers: { ...MCP_HEADERS, ...bearer(editor) },
      body: INITIALIZE,
    });
    expect(mine.status).toBe(200);
    expect(mine.text).toContain('"serverInfo"');
  });

  it("refuses the control token on /api and the event stream from another user; this user's works", async () => {
    const { results } = await asOtherUser([
      { method: 'GET', path: '/api/status', headers: bearer(control) },
      {
        method: 'POST',
        path: '/api/servers',
        headers: { ...bearer(control), 'content-type': 'application/json' },
        body: PWN,
      },
      {
        method: 'GET',
        path: '/api/events',
        headers: { ...bearer(control), accept: 'text/event-stream' },
        streamMs: 1_500,
      },
    ]);
    expectRefused(results[0], 'GET /api/status');
    expectRefused(results[1], 'POST /api/servers');
    expectRefused(results[2], 'GET /api/events');
    expect(readFileSync(setup.t.home.serversFile, 'utf8')).not.toContain('pwned');

    expect((await call(port, 'GET', '/api/status', { headers: bearer(control) })).status).toBe(200);
  });

  it("refuses a signed-in browser's session key replayed from another user; this user's browser keeps working", async () => {
    const { results } = await asOtherUser([
      { method: 'GET', path: '/api/status', headers: bearer(session) },
      {
        method: 'POST',
        path: '/api/servers',
        headers: { ...bearer(session), 'content-type': 'application/json' },
        body: PWN,
      },
      { method: 'GET', path: '/', headers: {} },
    ]);
    expectRefused(results[0], 'GET /api/status with the session');
    expectRefused(results[1], 'POST /api/servers with the session');
    // Not even the UI's page or a 401: nothing of Switchboard answers another user.
    expectRefused(results[2], 'GET /');
    expect(readFileSync(setup.t.home.serversFile, 'utf8')).not.toContain('pwned');

    expect((await call(port, 'GET', '/api/status', { headers: bearer(session) })).status).toBe(200);
  });
});

// Runs last: it restarts the file's Switchboard.
describe("a browser's session and the serve that issued it", () => {
  /** A new signed-in browser's key, from the running serve. */
  function signIn(): string {
    const sessions = setup.headless.bridge.sessions;
    const code = new URL(sessions.issueLoginLink().url).searchParams.get('code') ?? '';
    return sessions.redeem(code)?.session ?? '';
  }
  const status = async (key: string) =>
    (await call(setup.headless.port, 'GET', '/api/status', { headers: bearer(key) })).status;

  it.runIf(process.platform === 'linux')(
    "outlives a restart where each connection's user is checked (Linux): a squatter's copy is worthless from its user",
    async () => {
      await setup.stop();
      await setup.start();
      expect(await status(session)).toBe(200);
    },
  );

  it('ends with the serve that issued it where no lookup exists (macOS, Windows): a key collected while serve was down opens nothing', async () => {
    // macOS and Windows have no lookup of a connection's user from Node
    // (docs/decisions/other-local-users.md); stood in
    // for here by the same bridge told so.
    const unchecked = uncheckedPeerUsers('darwin');
    await setup.stop();
    await setup.start({ peerUsers: unchecked });
    // What an earlier serve kept (the Linux session above) is not taken over either.
    expect(await status(session)).toBe(401);
    const key = signIn();
    expect(await status(key)).toBe(200);
    await setup.stop();
    await setup.start({ peerUsers: unchecked });
    expect(await status(key)).toBe(401);
  });
});
