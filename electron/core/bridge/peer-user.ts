import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { addressBytes, parseProcNetTcp, sameEndpoint, TCP_STATE, type Endpoint } from './proc-net-tcp.ts';

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
 */
export function procPeerUsers(procRoot = '/proc'): PeerUsers {
  return {
    coverage: 'checked',
    async uidOf(socket) {
      const peer = endpoint(socket.remoteAddress, socket.remotePort);
      const ours = endpoint(socket.localAddress, socket.localPort);
      if (!peer || !ours) return { unknown: 'the connection has no address (it closed already)' };
      const unreadable: string[] = [];
      for (const table of ['tcp', 'tcp6']) {
        const file = join(procRoot, 'net', table);
        let text: string;
        try {
          text = await readFile(file, 'utf8');
        } catch (err) {
          unreadable.push(`${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
          continue;
        }
        const found = parseProcNetTcp(text).find(
          (s) => held(s.state, s.inode) && sameEndpoint(s.local, peer) && sameEndpoint(s.remote, ours),
        );
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
