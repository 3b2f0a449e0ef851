import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PeerGate } from '../../../electron/core/bridge/peer-gate.ts';
import { peerUsersFor, procPeerUsers, uncheckedPeerUsers } from '../../../electron/core/bridge/peer-user.ts';
import {
  addressBytes,
  formatAddress,
  parseProcNetTcp,
  procEndpoint,
} from '../../../electron/core/bridge/proc-net-tcp.ts';

// Who opened a connection, read from this machine's real /proc for real socket pairs on 127.0.0.1,
// ::1 and a dual-stack socket talking IPv4-mapped; another real user's connection is refused in
// test/integration/bridge/other-user.test.ts (it needs root to become that user).

const linux = process.platform === 'linux';
const uid = process.getuid?.() ?? -1;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const undo of cleanups.splice(0).reverse()) undo();
});

/** A listener on `host` and a client connected to it from `clientHost`: the server's accepted socket. */
async function pair(host: string, clientHost = host): Promise<{ accepted: Socket; client: Socket }> {
  const server: Server = createServer();
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const client = connect({ host: clientHost, port });
  await new Promise<void>((resolve, reject) => client.once('connect', resolve).once('error', reject));
  const socket = await accepted;
  cleanups.push(() => {
    client.destroy();
    socket.destroy();
    server.close();
  });
  return { accepted: socket, client };
}

function hasIPv6Loopback(): boolean {
  try {
    return readFileSync('/proc/net/if_inet6', 'utf8').includes('00000000000000000000000000000001');
  } catch {
    return false;
  }
}

describe('the owner of a connection, from /proc/net/tcp{,6}', () => {
  it.runIf(linux)('finds this user for a connection on 127.0.0.1', async () => {
    const { accepted } = await pair('127.0.0.1');
    expect(await procPeerUsers().uidOf(accepted)).toEqual({ uid });
  });

  it.runIf(linux && hasIPv6Loopback())('finds this user for a connection on ::1 (tcp6)', async () => {
    const { accepted } = await pair('::1');
    expect(accepted.remoteAddress).toBe('::1');
    expect(await procPeerUsers().uidOf(accepted)).toEqual({ uid });
  });

  it.runIf(linux && hasIPv6Loopback())(
    'finds this user for an IPv6 socket reaching a 127.0.0.1 listener as ::ffff:127.0.0.1 (an IPv4-mapped line of tcp6)',
    async () => {
      const { accepted, client } = await pair('127.0.0.1', '::ffff:127.0.0.1');
      // The server sees plain IPv4; the client's own socket is IPv6, listed in tcp6 only.
      expect(accepted.remoteAddress).toBe('127.0.0.1');
      expect(client.localAddress).toBe('::ffff:127.0.0.1');
      const inTcp6 = parseProcNetTcp(readFileSync('/proc/net/tcp6', 'utf8')).some(
        (s) => s.local.port === client.localPort && formatAddress(s.local.address) === '127.0.0.1',
      );
      expect(inTcp6).toBe(true);
      expect(await procPeerUsers().uidOf(accepted)).toEqual({ uid });
    },
  );

  it.runIf(linux)('answers each of 32 connections accepted at once (they share table reads)', async () => {
    const users = procPeerUsers();
    const pairs = await Promise.all(Array.from({ length: 32 }, () => pair('127.0.0.1')));
    const lookups = await Promise.all(pairs.map(({ accepted }) => users.uidOf(accepted)));
    expect(lookups).toEqual(pairs.map(() => ({ uid })));
  });

  it.runIf(linux)("takes the client's line, not the server's own accepted socket", async () => {
    const { accepted, client } = await pair('127.0.0.1');
    // Both ends are lines of the table; the peer's is the one whose local end is the client's port.
    const lines = parseProcNetTcp(readFileSync('/proc/net/tcp', 'utf8')).filter(
      (s) => s.local.port === client.localPort || s.remote.port === client.localPort,
    );
    expect(lines.map((s) => [s.local.port, s.remote.port]).sort()).toEqual(
      [
        [client.localPort, accepted.localPort],
        [accepted.localPort, client.localPort],
      ].sort(),
    );
    // A fake table holding only the server's own line (same 4 ports, other direction) names nobody.
    const proc = mkdtempSync(join(tmpdir(), 'sb-proc-'));
    cleanups.push(() => rmSync(proc, { recursive: true, force: true }));
    mkdirSync(join(proc, 'net'));
    const table = readFileSync('/proc/net/tcp', 'utf8').split('\n');
    const own = table.filter(
      (l, i) => i === 0 || procEndpoint(l.trim().split(/\s+/)[1])?.port === accepted.localPort,
    );
    writeFileSync(join(proc, 'net', 'tcp'), own.join('\n'));
    writeFileSync(join(proc, 'net', 'tcp6'), table[0] ?? '');
    expect(await procPeerUsers(proc).uidOf(accepted)).toEqual({
      unknown: 'the client socket is not in /proc/net/tcp{,6} (it closed already)',
    });
  });

  it.runIf(linux)(
    'never takes a TIME_WAIT line (uid 0 whoever opened it) or a socket no process holds',
    async () => {
      const { accepted } = await pair('127.0.0.1');
      const hexPort = (p: number | undefined) => (p ?? 0).toString(16).toUpperCase().padStart(4, '0');
      const local = `0100007F:${hexPort(accepted.remotePort)}`;
      const remote = `0100007F:${hexPort(accepted.localPort)}`;
      const line = (st: string, inode: string) =>
        `   0: ${local} ${remote} ${st} 00000000:00000000 00:00000000 00000000     0        0 ${inode} 1 0000000000000000 20 4 30 10 -1`;
      const proc = mkdtempSync(join(tmpdir(), 'sb-proc-'));
      cleanups.push(() => rmSync(proc, { recursive: true, force: true }));
      mkdirSync(join(proc, 'net'));
      const header = readFileSync('/proc/net/tcp', 'utf8').split('\n')[0];
      writeFileSync(join(proc, 'net', 'tcp6'), `${header}\n`);
      for (const [st, inode] of [
        ['06', '0'], // TIME_WAIT
        ['01', '0'], // closed by its process, still in the table
      ] as const) {
        writeFileSync(join(proc, 'net', 'tcp'), `${header}\n${line(st, inode)}\n`);
        expect(await procPeerUsers(proc).uidOf(accepted), st).toHaveProperty('unknown');
      }
      writeFileSync(join(proc, 'net', 'tcp'), `${header}\n${line('01', '4242')}\n`);
      expect(await procPeerUsers(proc).uidOf(accepted)).toEqual({ uid: 0 });
    },
  );

  it.runIf(linux)('says it cannot tell when /proc/net/tcp cannot be read', async () => {
    const { accepted } = await pair('127.0.0.1');
    const lookup = await procPeerUsers('/nonexistent-proc').uidOf(accepted);
    expect(lookup).toEqual({
      unknown: 'cannot read /nonexistent-proc/net/tcp: ENOENT, /nonexistent-proc/net/tcp6: ENOENT',
    });
  });
});

describe('the table format', () => {
  it('reads addresses in the host byte order of the kernel that wrote them', () => {
    expect(procEndpoint('0100007F:1F90', 'LE')).toEqual({
      address: Uint8Array.from([127, 0, 0, 1]),
      port: 8080,
    });
    expect(procEndpoint('7F000001:1F90', 'BE')).toEqual({
      address: Uint8Array.from([127, 0, 0, 1]),
      port: 8080,
    });
    // ::1, and ::ffff:127.0.0.1 (an IPv4-mapped line of tcp6) as its IPv4 address
    expect(
      formatAddress(procEndpoint('00000000000000000000000001000000:0050', 'LE')?.address ?? new Uint8Array()),
    ).toBe('0:0:0:0:0:0:0:1');
    expect(
      formatAddress(procEndpoint('00000000000000000000000000000001:0050', 'BE')?.address ?? new Uint8Array()),
    ).toBe('0:0:0:0:0:0:0:1');
    expect(
      formatAddress(procEndpoint('0000000000000000FFFF00000100007F:0050', 'LE')?.address ?? new Uint8Array()),
    ).toBe('127.0.0.1');
    for (const bad of ['', '0100007F', '0100007:1F90', '0100007G:1F90', '0100007F:11F90', '01000:7F'])
      expect(procEndpoint(bad, 'LE'), bad).toBeUndefined();
  });

  it("parses Node's addresses as bytes, IPv4-mapped as IPv4", () => {
    expect(addressBytes('127.0.0.1')).toEqual(Uint8Array.from([127, 0, 0, 1]));
    expect(addressBytes('::ffff:127.0.0.1')).toEqual(Uint8Array.from([127, 0, 0, 1]));
    expect(addressBytes('::ffff:7f00:1')).toEqual(Uint8Array.from([127, 0, 0, 1]));
    expect(formatAddress(addressBytes('::1') ?? new Uint8Array())).toBe('0:0:0:0:0:0:0:1');
    expect(formatAddress(addressBytes('fe80::1%eth0') ?? new Uint8Array())).toBe('fe80:0:0:0:0:0:0:1');
    expect(formatAddress(addressBytes('1:2:3:4:5:6:7:8') ?? new Uint8Array())).toBe('1:2:3:4:5:6:7:8');
    for (const bad of ['', 'localhost', '127.1', '::g', '1:2:3:4:5:6:7:8:9'])
      expect(addressBytes(bad), bad).toBeUndefined();
  });
});

describe('the gate on each connection', () => {
  it.runIf(linux)(
    "lets this user's connection through and refuses one whose owner is another uid",
    async () => {
      const { accepted } = await pair('127.0.0.1');
      expect(await new PeerGate(procPeerUsers(), uid).verdict(accepted)).toEqual({ ok: true });
      // The same real connection judged by a process of another uid: its client is not that user.
      const other = uid === 0 ? 1000 : 0;
      const told: string[] = [];
      const gate = new PeerGate(procPeerUsers(), other, (line) => told.push(line));
      expect(await gate.verdict(accepted)).toEqual({
        ok: false,
        reason: `connection from another local user (uid ${uid}) refused`,
      });
      // serve's output names that user once, however many of its connections come
      await gate.verdict((await pair('127.0.0.1')).accepted);
      expect(told).toEqual([
        `bridge: refusing connections from uid ${uid}: Switchboard answers only its own user (uid ${other}); run serve as the user your editors run as`,
      ]);
    },
  );

  it.runIf(linux)('looks once per connection: later requests get the same verdict at once', async () => {
    const { accepted } = await pair('127.0.0.1');
    let lookups = 0;
    const users = procPeerUsers();
    const gate = new PeerGate({ coverage: 'checked', uidOf: (s) => (lookups++, users.uidOf(s)) }, uid);
    const first = gate.verdict(accepted);
    expect(gate.verdict(accepted)).toBe(first);
    await first;
    expect(gate.verdict(accepted)).toEqual({ ok: true });
    expect(lookups).toBe(1);
  });

  it('refuses when the owner cannot be told, and lets through where no lookup exists (said so)', async () => {
    const { accepted } = await pair('127.0.0.1');
    const unreadable = new PeerGate(
      { coverage: 'checked', uidOf: () => Promise.resolve({ unknown: 'x' }) },
      0,
    );
    expect(await unreadable.verdict(accepted)).toEqual({
      ok: false,
      reason: 'connection refused: cannot tell which local user opened it (x)',
    });
    for (const platform of ['darwin', 'win32'] as const) {
      expect(peerUsersFor(platform).coverage).toBe('unchecked');
      expect(new PeerGate(uncheckedPeerUsers(platform), 0).verdict(accepted)).toEqual({ ok: true });
    }
    expect(peerUsersFor('linux').coverage).toBe('checked');
  });
});
