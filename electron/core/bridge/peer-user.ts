import { open, type FileHandle } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import {
  addressBytes,
  parseProcLine,
  procPairText,
  sameEndpoint,
  TCP_STATE,
  type Endpoint,
} from './proc-net-tcp.ts';

/** The owner of the other end of a connection, or why it cannot be told. */
export type PeerLookup = { uid: number } | { unknown: string };

/**
 * Which local user opened a TCP connection to the bridge. `checked`: a real lookup (Linux). `unchecked`:
 * this platform has none reachable from Node without native code (macOS, Windows;
 * docs/decisions/other-local-users.md says what that leaves open), and the bridge lets every
 * connection through to its token check.
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
 * The kernel writes the table 4 KB per read call, walking its whole connection hash as it goes, which
 * costs milliseconds (docs/performance.md). So a scan stops as soon as every connection it looks for is
 * found, and connections accepted while a scan runs share the next one: a scan serves only
 * connections accepted before it started (one from before could hold an older socket's line).
 */
export function procPeerUsers(procRoot = '/proc'): PeerUsers {
  const tables = {
    4: new TableScanner(join(procRoot, 'net', 'tcp'), 4),
    6: new TableScanner(join(procRoot, 'net', 'tcp6'), 6),
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
        const found = await tables[family].find(peer, ours);
        if (typeof found === 'number') return { uid: found };
        if (found) unreadable.push(found.error);
      }
      return {
        unknown: unreadable.length
          ? `cannot read ${unreadable.join(', ')}`
          : 'the client socket is not in /proc/net/tcp{,6} (it closed already)',
      };
    },
  };
}

/** A uid, not there (undefined), or the table could not be read. */
type Found = number | undefined | { error: string };

interface Wanted {
  /** the pair as the table spells it (procPairText) */
  text: string;
  local: Endpoint;
  remote: Endpoint;
  /** where in the text read so far a match may still start */
  from: number;
  resolve: (found: Found) => void;
}

/** One /proc table, scanned for many connections at once (procPeerUsers). */
class TableScanner {
  readonly #file: string;
  readonly #family: 4 | 6;
  #scanning = false;
  /** connections that came during the running scan: the next scan's */
  #next: Wanted[] = [];

  constructor(file: string, family: 4 | 6) {
    this.#file = file;
    this.#family = family;
  }

  /** The uid owning the live socket from `local` to `remote`, in a scan started after this call. */
  find(local: Endpoint, remote: Endpoint): Promise<Found> {
    const text = procPairText(local, remote, this.#family);
    if (text === undefined) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.#next.push({ text, local, remote, from: 0, resolve });
      if (!this.#scanning) void this.#scan();
    });
  }

  async #scan(): Promise<void> {
    this.#scanning = true;
    while (this.#next.length > 0) {
      const wanted = this.#next;
      this.#next = [];
      await scanTable(this.#file, wanted);
    }
    this.#scanning = false;
  }
}

/** Reads `file` until each of `wanted` is found or the table ends; resolves every one of them. */
async function scanTable(file: string, wanted: Wanted[]): Promise<void> {
  let handle: FileHandle | undefined;
  let left = wanted;
  try {
    handle = await open(file, 'r');
    const chunk = Buffer.allocUnsafe(64 * 1024);
    let text = '';
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      text += chunk.toString('latin1', 0, bytesRead);
      left = left.filter((w) => !settled(w, text));
      if (left.length === 0) return;
    }
    for (const w of left) w.resolve(undefined);
  } catch (err) {
    for (const w of left)
      w.resolve({ error: `${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` });
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** Whether `w` is found in the table read so far (then resolved); its complete lines only. */
function settled(w: Wanted, text: string): boolean {
  for (;;) {
    const at = text.indexOf(w.text, w.from);
    if (at === -1) {
      w.from = Math.max(w.from, text.length - w.text.length + 1);
      return false;
    }
    const end = text.indexOf('\n', at);
    if (end === -1) {
      w.from = at; // the line goes on in the next chunk
      return false;
    }
    const line = parseProcLine(text.slice(text.lastIndexOf('\n', at) + 1, end));
    if (
      line &&
      held(line.state, line.inode) &&
      sameEndpoint(line.local, w.local) &&
      sameEndpoint(line.remote, w.remote)
    ) {
      w.resolve(line.uid);
      return true;
    }
    w.from = at + 1;
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
