import { open, type FileHandle } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { addressBytes, procSocketsBetween, TCP_STATE, type Endpoint } from './proc-net-tcp.ts';

/** The owner of the other end of a connection, or why it cannot be told. */
export type PeerLookup = { uid: number } | { unknown: string };

/**
 * Which local user opened a TCP connection to the bridge. `checked`: a real lookup (Linux). `unchecked`:
 * this platform has none reachable from Node without native code (macOS, Windows; docs/decisions.md
 * says what that leaves open), and the bridge lets every connection through to its token check.
 */
export interface PeerUsers {
  readonly coverage: 'checked' | 'unchecked';
  /** the uid owning the socket at the other end of `socket`, an accepted connection on loopback */
  uidOf(socket: Socket): Promise<PeerLookup>;
}

/** The lookup for this platform: /proc on Linux, none elsewhere. */
export function peerUsersFor(platform: NodeJS.Platform = process.platform): PeerUsers {
  return platform === 'linux' ? procPeerUsers() : uncheckedPeerUsers(platform);
}

/**
 * Linux: the client's socket is a line of /proc/net/tcp (or tcp6, for a dual-stack socket talking
 * IPv4-mapped) whose local address is the connection's remote end and whose remote address is ours;
 * its uid column is the user that made the socket. Anyone may read these tables. Lines without an
 * inode are sockets no process holds any more (closed, or a TIME_WAIT entry, which prints uid 0 for
 * everyone): never taken as an owner.
 *
 * The kernel writes the whole table at each read, which costs ~5 µs a socket (a machine that opens
 * many short connections holds thousands in TIME_WAIT): connections accepted together share one read,
 * started after each of them was accepted (a read from before could hold an older socket's line).
 */
export function procPeerUsers(procRoot = '/proc'): PeerUsers {
  const tables = {
    4: new TableReader(join(procRoot, 'net', 'tcp')),
    6: new TableReader(join(procRoot, 'net', 'tcp6')),
  };
  return {
    coverage: 'checked',
    async uidOf(socket) {
      const peer = endpoint(socket.remoteAddress, socket.remotePort);
      const ours = endpoint(socket.localAddress, socket.localPort);
      if (!peer || !ours) return { unknown: 'the connection has no address (it closed already)' };
      const unreadable: string[] = [];
      // An IPv4 client is in tcp, or in tcp6 as IPv4-mapped; an IPv6 one only in tcp6.
      for (const family of peer.address.length === 4 ? ([4, 6] as const) : ([6] as const)) {
        const read = await tables[family].read();
        if ('error' in read) {
          unreadable.push(read.error);
          continue;
        }
        const found = procSocketsBetween(read.text, family, peer, ours).find((s) => held(s.state, s.inode));
        if (found) return { uid: found.uid };
      }
      return {
        unknown: unreadable.length
          ? `cannot read ${unreadable.join(', ')}`
          : 'the client socket is not in /proc/net/tcp{,6} (it closed already)',
      };
    },
  };
}

type TableRead = { text: string } | { error: string };

/**
 * One /proc table, read for many callers: a caller that comes while a read is running waits for the
 * next one, which starts when the running one ends and serves everyone who came meanwhile.
 */
class TableReader {
  readonly #file: string;
  #running: Promise<TableRead> | undefined;
  #queued: Promise<TableRead> | undefined;

  constructor(file: string) {
    this.#file = file;
  }

  read(): Promise<TableRead> {
    const running = this.#running;
    if (!running) return this.#begin();
    this.#queued ??= running.then(() => {
      this.#queued = undefined;
      return this.#begin();
    });
    return this.#queued;
  }

  #begin(): Promise<TableRead> {
    const read = readTable(this.#file);
    this.#running = read;
    void read.then(() => {
      if (this.#running === read) this.#running = undefined;
    });
    return read;
  }
}

/** The whole table in as few reads as the kernel allows (a /proc file has no size to go by). */
async function readTable(file: string): Promise<TableRead> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, 'r');
    let buffer = Buffer.allocUnsafe(256 * 1024);
    let length = 0;
    for (;;) {
      if (length === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)]);
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return { text: buffer.toString('latin1', 0, length) };
  } catch (err) {
    return { error: `${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
  } finally {
    await handle?.close();
  }
}

/** A platform without a lookup: said so, never a guessed uid. */
export function uncheckedPeerUsers(platform: NodeJS.Platform): PeerUsers {
  return {
    coverage: 'unchecked',
    uidOf: () => Promise.resolve({ unknown: `connections' users are not looked up on ${platform}` }),
  };
}

/** A live socket some process holds (not a listener, half-open request or TIME_WAIT entry). */
function held(state: number, inode: string): boolean {
  if (inode === '0') return false;
  return state !== TCP_STATE.LISTEN && state !== TCP_STATE.SYN_RECV && state !== TCP_STATE.TIME_WAIT;
}

function endpoint(address: string | undefined, port: number | undefined): Endpoint | undefined {
  const bytes = address === undefined ? undefined : addressBytes(address);
  return bytes && port !== undefined ? { address: bytes, port } : undefined;
}
