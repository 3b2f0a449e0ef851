import { isIP } from 'node:net';
import { endianness } from 'node:os';
import ipaddr from 'ipaddr.js';

/**
 * Linux's TCP socket tables, /proc/net/tcp and /proc/net/tcp6, read by anyone: each socket's local
 * and remote address and port, its state, and the uid that owns it. Who listens on a port
 * (port-holder.ts) and which user opened a connection to the bridge (peer-user.ts) both come from here.
 */

/** An address as 4 bytes (IPv4, also an IPv4-mapped IPv6 address) or 16 (IPv6), and a port. */
export interface Endpoint {
  address: Uint8Array;
  port: number;
}

export interface ProcSocket {
  local: Endpoint;
  remote: Endpoint;
  /** the kernel's TCP state number (TCP_STATE) */
  state: number;
  /** the socket's owner; a TIME_WAIT or SYN_RECV entry prints 0 here, whoever opened it */
  uid: number;
  inode: string;
}

/** The states of include/net/tcp_states.h this code tells apart. */
export const TCP_STATE = { ESTABLISHED: 0x01, SYN_RECV: 0x03, TIME_WAIT: 0x06, LISTEN: 0x0a } as const;

/** Every socket line of a /proc/net/tcp or tcp6 table; a line that does not parse is left out. */
export function parseProcNetTcp(table: string, byteOrder: 'LE' | 'BE' = endianness()): ProcSocket[] {
  const sockets: ProcSocket[] = [];
  for (const line of table.split('\n').slice(1)) {
    const socket = parseProcLine(line, byteOrder);
    if (socket) sockets.push(socket);
  }
  return sockets;
}

/**
 * How a line of a /proc/net/tcp (`family` 4) or tcp6 (6) table spells a socket from `local` to
 * `remote`, between the spaces that surround it (an IPv4 endpoint appears in tcp6 IPv4-mapped); undefined
 * when that table cannot hold it. For finding candidate lines in a table of thousands without parsing
 * each: a candidate is then judged by its parsed addresses (parseProcLine), never by this text.
 */
export function procPairText(
  local: Endpoint,
  remote: Endpoint,
  family: 4 | 6,
  byteOrder: 'LE' | 'BE' = endianness(),
): string | undefined {
  const localText = procText(local, family, byteOrder);
  const remoteText = procText(remote, family, byteOrder);
  return localText === undefined || remoteText === undefined ? undefined : ` ${localText} ${remoteText} `;
}

/** An endpoint as the kernel prints it in the table of `family` (undefined: it cannot be there). */
function procText(endpoint: Endpoint, family: 4 | 6, byteOrder: 'LE' | 'BE'): string | undefined {
  let bytes = endpoint.address;
  if (family === 4 && bytes.length !== 4) return undefined;
  if (family === 6 && bytes.length === 4)
    bytes = Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...bytes]);
  let text = '';
  for (let word = 0; word < bytes.length; word += 4) {
    const w = bytes.subarray(word, word + 4);
    for (const b of byteOrder === 'LE' ? [...w].reverse() : w)
      text += b.toString(16).toUpperCase().padStart(2, '0');
  }
  return `${text}:${endpoint.port.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** One line of the table (not the heading), or undefined when it does not parse. */
export function parseProcLine(line: string, byteOrder: 'LE' | 'BE' = endianness()): ProcSocket | undefined {
  // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
  const f = line.trim().split(/\s+/);
  const local = procEndpoint(f[1], byteOrder);
  const remote = procEndpoint(f[2], byteOrder);
  const state = hex(f[3], 2);
  const uid = /^\d+$/.test(f[7] ?? '') ? Number(f[7]) : undefined;
  const inode = f[9];
  if (!local || !remote || state === undefined || uid === undefined || !inode) return undefined;
  return { local, remote, state, uid, inode };
}

/** "0100007F:1F90" → 127.0.0.1 port 8080: the kernel prints each 32-bit word in host byte order. */
export function procEndpoint(
  field: string | undefined,
  byteOrder: 'LE' | 'BE' = endianness(),
): Endpoint | undefined {
  const [addressHex = '', portHex = ''] = (field ?? '').split(':');
  const port = hex(portHex, 4);
  if (port === undefined || (addressHex.length !== 8 && addressHex.length !== 32)) return undefined;
  const bytes = new Uint8Array(addressHex.length / 2);
  for (let word = 0; word < bytes.length / 4; word++) {
    for (let i = 0; i < 4; i++) {
      const b = hex(addressHex.slice(word * 8 + i * 2, word * 8 + i * 2 + 2), 2);
      if (b === undefined) return undefined;
      bytes[word * 4 + (byteOrder === 'LE' ? 3 - i : i)] = b;
    }
  }
  return { address: unmapped(bytes), port };
}

/**
 * An address Node reports (socket.remoteAddress: "127.0.0.1", "::1", "::ffff:127.0.0.1", "fe80::1%eth0")
 * as bytes, IPv4-mapped IPv6 as its IPv4; undefined for anything that is not an IP address.
 */
export function addressBytes(text: string): Uint8Array | undefined {
  // Node's own spellings only (ipaddr.js would also read "127.1" or "0x7f000001").
  if (!isIP(text.split('%')[0] ?? '')) return undefined;
  const parsed = ipaddr.parse(text);
  const ip = parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress() ? parsed.toIPv4Address() : parsed;
  return Uint8Array.from(ip.toByteArray());
}

export function sameEndpoint(a: Endpoint, b: Endpoint): boolean {
  return (
    a.port === b.port &&
    a.address.length === b.address.length &&
    a.address.every((x, i) => x === b.address[i])
  );
}

/** Dotted IPv4, or IPv6 as 8 hex groups (for messages and tests, never for comparing). */
export function formatAddress(bytes: Uint8Array): string {
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < bytes.length; i += 2)
    groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups.join(':');
}

/** ::ffff:a.b.c.d is the IPv4 address a.b.c.d (a dual-stack socket talking IPv4). */
function unmapped(bytes: Uint8Array): Uint8Array {
  const mapped =
    bytes.length === 16 &&
    bytes.subarray(0, 10).every((b) => b === 0) &&
    bytes[10] === 0xff &&
    bytes[11] === 0xff;
  return mapped ? bytes.slice(12) : bytes;
}

function hex(text: string | undefined, maxDigits: number): number | undefined {
  if (!text || text.length > maxDigits || !/^[0-9A-Fa-f]+$/.test(text)) return undefined;
  return parseInt(text, 16);
}
