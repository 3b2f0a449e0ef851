import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, rmdirSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Core } from '../../../electron/core/core.ts';
import { MemoryKeychain, OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { fixtureServer } from '../../helpers/servers.ts';
import { approveUntilRunning, hostileAttempts, type Attempts } from '../../helpers/real-sandbox.ts';
import { sandboxUnavailable } from '../../helpers/sandbox.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Issue 32 item 4: the sockets under /run. A desktop session's D-Bus (and with it the Secret Service
// holding every Switchboard secret) is at /run/user/<uid>/bus; daemons' sockets (docker.sock,
// root-only ones) are under /run too. A read-only bind does not stop connect() on a Unix socket, so
// the sandbox must hide them. Real parts: test/run.sh's private D-Bus session with a real, unlocked
// gnome-keyring, reached at /run/user/<uid>/bus through a relay; a real secret in it; a root-only
// and a group-only socket under /run; the hostile fixture in real bubblewrap, run by a real Core.
const uid = process.getuid?.() ?? -1;
const runtime = `/run/user/${uid}`;
const bus = `${runtime}/bus`;
const session = sessionBusPath(process.env.DBUS_SESSION_BUS_ADDRESS);
/** Why this test cannot run here: no sandbox, no test session bus, or a real desktop bus in the way. */
const cannot =
  sandboxUnavailable() ??
  (session === undefined
    ? 'no D-Bus session to relay (run it through test/run.sh)'
    : existsSync(bus)
      ? `${bus} already exists (a real desktop session: not touched)`
      : uid !== 0
        ? 'needs root to make sockets under /run'
        : undefined);
if (cannot) console.log(`run-sockets test skipped: ${cannot}`);

const service = `switchboard-test-run-${process.pid}`;
const secretValue = `planted-bus-secret-${process.pid}`;
let keychain: OsKeychain;
let madeRuntime = false;
let relay: Server | undefined;
let daemons: string | undefined;
const listeners: Server[] = [];
let t: TempHome | undefined;
let core: Core | undefined;

/** A socket that says who it is to whoever connects. */
async function listen(path: string, mode: number, gid?: number): Promise<void> {
  const server = createServer((s) => s.end(`hello from ${path}\n`));
  await new Promise<void>((r) => server.listen(path, r));
  if (gid !== undefined) chownSync(path, 0, gid);
  chmodSync(path, mode);
  listeners.push(server);
}

beforeAll(async () => {
  if (cannot || session === undefined) return;
  keychain = new OsKeychain({ service });
  await keychain.set('item', secretValue);
  if (!existsSync(runtime)) {
    mkdirSync(runtime, { recursive: true, mode: 0o700 });
    madeRuntime = true;
  }
  // The test session's bus, at the place a desktop session keeps it.
  relay = createServer((s) => {
    const upstream = connect({ path: session });
    s.pipe(upstream).pipe(s);
    upstream.on('error', () => s.destroy());
    s.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => relay?.listen(bus, r));
  daemons = mkdtempSync('/run/switchboard-test-');
  chmodSync(daemons, 0o755);
  await listen(join(daemons, 'root-only.sock'), 0o600);
  // docker.sock's shape: owned by root, open to a group (nogroup stands in for "docker")
  await listen(join(daemons, 'docker.sock'), 0o660, 65534);
});

afterAll(async () => {
  if (cannot) return;
  for (const l of listeners) await new Promise((r) => l.close(r));
  if (relay) await new Promise((r) => relay?.close(r));
  rmSync(bus, { force: true });
  if (madeRuntime) rmdirSync(runtime);
  if (daemons) rmSync(daemons, { recursive: true, force: true });
  await keychain.delete('item').catch(() => false);
});

afterEach(async () => {
  await core?.lifecycle.shutdown();
  core = undefined;
  t?.cleanup();
  t = undefined;
});

async function attempts(env: NodeJS.ProcessEnv): Promise<Attempts> {
  t = tempHome();
  const sockets = [join(daemons ?? '', 'root-only.sock'), join(daemons ?? '', 'docker.sock')];
  t.writeServers({
    mcpServers: {
      hostile: {
        ...fixtureServer('hostile-server.mjs'),
        env: {
          TARGET_SOCKETS: [...sockets, ...sockets.map((s) => s.replace(/^\/run\//, '/var/run/'))].join(':'),
          TARGET_BUS: bus,
          TARGET_ENTRY: `${service}/item`,
        },
      },
    },
  });
  core = new Core({ home: t.home, keychain: new MemoryKeychain(), env: { ...t.env, ...env } });
  await core.lifecycle.start();
  await approveUntilRunning(core, 'hostile');
  return hostileAttempts(core);
}

describe.skipIf(cannot !== undefined)('sockets under /run, seen from the default sandbox', () => {
  it('the stand-ins answer outside the sandbox (the test would prove nothing otherwise)', async () => {
    expect(await new OsKeychain({ service }).get('item')).toBe(secretValue);
    const said = await new Promise<string>((resolve, reject) => {
      const s = connect({ path: join(daemons ?? '', 'docker.sock') });
      s.once('data', (d) => resolve(d.toString()));
      s.once('error', reject);
    });
    expect(said).toMatch(/^hello from/);
  });

  for (const [when, env] of [
    ['XDG_RUNTIME_DIR unset', { XDG_RUNTIME_DIR: undefined }],
    ['XDG_RUNTIME_DIR set', { XDG_RUNTIME_DIR: runtime }],
  ] as const) {
    it(`reaches neither the session bus's keyring nor daemons' sockets (${when})`, async () => {
      const tried = await attempts(env);
      expect(Object.keys(tried)).toContain('secret-service');
      for (const [name, attempt] of Object.entries(tried)) {
        if (!name.startsWith('socket') && name !== 'secret-service') continue;
        expect(attempt, name).toMatchObject({ ok: false });
        expect(attempt.said, name).not.toContain(secretValue);
      }
    });
  }
});

/** The Unix socket path of a D-Bus address (`unix:path=…`, or `unix:abstract=…` as Linux's "\0…"). */
function sessionBusPath(address: string | undefined): string | undefined {
  for (const part of (address ?? '').split(';')) {
    if (!part.startsWith('unix:')) continue;
    const fields = new Map(
      part
        .slice(5)
        .split(',')
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as const),
    );
    const path = fields.get('path');
    if (path) return path;
    const abstract = fields.get('abstract');
    if (abstract) return `\0${abstract}`;
  }
  return undefined;
}
