import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatusReportSchema, type ServerStatus } from '../../../shared/status.ts';
import { httpClient } from '../../helpers/bridge.ts';
import { runCli, startServe, stopAll } from '../../helpers/cli.ts';
import { recorded, startFakeRegistry, type FakeRegistry } from '../../helpers/fake-registry.ts';
import { startOAuthFixture, type OAuthFixture } from '../../helpers/oauth-server.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

/**
 * A laptop with no keychain reachable (no Secret Service on the D-Bus session bus, as on a Linux
 * without gnome-keyring or KeePassXC): what needs no secret must still work — a remote server that
 * needs no sign-in, a catalog install whose optional secret is left empty. Only what really needs a
 * secret needs the keychain, and then says so. Real processes throughout; the bus address points at
 * a socket that does not exist.
 */

let t: TempHome;
let env: NodeJS.ProcessEnv;
const children: ChildProcess[] = [];
let oauth: OAuthFixture | undefined;
let registry: FakeRegistry | undefined;

beforeEach(() => {
  t = tempHome();
  env = { ...t.env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(t.dir, 'no-bus')}` };
});

afterEach(async () => {
  await stopAll(children);
  oauth?.stop();
  oauth = undefined;
  await registry?.close();
  registry = undefined;
  t.cleanup();
});

/** test/fixtures/conformance-server.mjs over Streamable HTTP: a remote server that asks for no sign-in. */
async function openRemote(): Promise<string> {
  const { command, args } = fixtureServer('conformance-server.mjs', 'http', '--port', '0');
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return waitFor(() => /^(http:\S+)\n/.exec(out)?.[1], 20_000, 'the remote server listening');
}

async function state(name: string): Promise<ServerStatus | undefined> {
  const result = await runCli(['status', '--json'], env);
  return StatusReportSchema.parse(JSON.parse(result.stdout)).servers.find((s) => s.name === name);
}

describe('with no keychain reachable', () => {
  it('a remote server that needs no sign-in runs; one that wants a sign-in waits, saying the keychain is why', async () => {
    const url = await openRemote();
    oauth = await startOAuthFixture({ approveAtOnce: true });
    expect((await runCli(['add', 'open', '--url', url], env)).code).toBe(0);
    expect((await runCli(['add', 'guarded', '--url', oauth.url], env)).code).toBe(0);
    for (const name of ['open', 'guarded'])
      expect((await runCli(['approve', name, '--yes'], env)).code).toBe(0);
    const serve = await startServe(env);
    children.push(serve.child);

    const running = await waitFor(
      async () => {
        const s = await state('open');
        return s?.state === 'running' && (s.toolCount ?? 0) > 0 ? s : undefined;
      },
      30_000,
      'open running',
    );
    expect(running.restarts).toBe(0);
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(serve.output())?.[1]);
    const token =
      (await runCli(['token', 'create', 'no-keychain'], env)).stdout.trim().split('\n').at(-1) ?? '';
    const client = await httpClient(`http://127.0.0.1:${port}/mcp/open`, token);
    try {
      expect((await client.listTools()).tools.length).toBe(running.toolCount);
    } finally {
      await client.close();
    }

    const waiting = await waitFor(
      async () => {
        const s = await state('guarded');
        return s?.state === 'needs-sign-in' ? s : undefined;
      },
      30_000,
      'guarded waiting for a sign-in',
    );
    expect(waiting.lastError).toContain('sign in to it in Switchboard');
    expect(waiting.lastError).toContain('keychain, which it cannot use now');
    expect(readFileSync(join(t.home.logs, 'open.log'), 'utf8')).not.toContain('keychain');
  });

  it('catalog add with an optional secret left empty adds the server without it', async () => {
    registry = await startFakeRegistry([...recorded('servers').values()]);
    const catalogEnv = { ...env, SWITCHBOARD_REGISTRY_URL: registry.url };
    const added = await runCli(
      ['catalog', 'add', 'io.github.upstash/context7', '--via', 'npm'],
      catalogEnv,
      '',
    );
    expect(added.code, added.stderr).toBe(0);
    const servers = JSON.parse(readFileSync(t.home.serversFile, 'utf8')) as {
      mcpServers: Record<string, unknown>;
    };
    expect(servers.mcpServers.context7).toEqual({
      command: 'npx',
      args: ['-y', '@upstash/context7-mcp@2.0.2'],
    });

    // A secret that is given does need the keychain: refused, saying why, and nothing added.
    const given = await runCli(
      ['catalog', 'add', 'io.github.upstash/context7', '--via', 'npm', '--name', 'c7'],
      catalogEnv,
      'ctx7sk-' + 'Vb7Qm2Xk9LrTz4Wn8Hc1Yp6Ds3Ga5UeJoFi0',
    );
    expect(given.code).toBe(1);
    expect(given.stderr).toContain('no Secret Service reachable');
    expect(readFileSync(t.home.serversFile, 'utf8')).not.toContain('"c7"');
  });
});
