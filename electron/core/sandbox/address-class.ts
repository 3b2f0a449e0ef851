import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/**
 * Where an address leads, as the sandbox's network gate judges it:
 * - `internet`: a public address;
 * - `this-computer`: loopback, unspecified (connecting to it reaches this computer), or one of this
 *   computer's own interface addresses;
 * - `local-network`: the person's LAN (10/8, 172.16/12, 192.168/16, 100.64/10 CGNAT, fc00::/7 ULA,
 *   fec0::/10 old site-local);
 * - `link-local`: 169.254/16 and fe80::/10 (this network segment only; cloud metadata services live
 *   at 169.254.169.254);
 * - `not-routable`: multicast, broadcast, reserved and documentation ranges, IPv6 outside 2000::/3,
 *   and translation prefixes whose embedded IPv4 cannot be told (64:ff9b:1::/48, Teredo).
 */
export type AddressKind = 'internet' | 'this-computer' | 'local-network' | 'link-local' | 'not-routable';

export interface AddressClass {
  kind: AddressKind;
  /** the precise range: 'loopback', 'unspecified', 'own-interface', 'private', 'uniqueLocal', … */
  range: string;
  /**
   * The address judged, in one spelling: an IPv4 carried inside an IPv6 address (mapped,
   * compatible, NAT64, 6to4) is judged as that IPv4; IPv6 in RFC 5952 form, without zone.
   */
  judged: string;
}

/** A parsed IP address, or undefined for anything that is not one (a name). */
export function parseAddress(text: string): IPv4 | IPv6 | undefined {
  const bare = text.replace(/^\[(.*)\]$/, '$1');
  // ipaddr.js also reads the short and numeric IPv4 forms ("127.1", "0x7f000001") as the C
  // resolver does, so a spelling cannot pass as a name and then connect as an address.
  return ipaddr.isValid(bare) ? ipaddr.parse(bare) : undefined;
}

/** ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible, deprecated): the IPv4 host itself. */
function mappedIPv4(address: IPv6): IPv4 | undefined {
  const p = address.parts;
  const mapped = p.slice(0, 5).every((x) => x === 0) && (p[5] === 0xffff || p[5] === 0);
  return mapped ? lowIPv4(p) : undefined;
}

function lowIPv4(p: number[]): IPv4 {
  const hi = p[6] ?? 0;
  const lo = p[7] ?? 0;
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

/**
 * The IPv4 address an IPv6 address carries, where the IPv6 form leads to that IPv4 host: mapped and
 * compatible (above), SIIT ::ffff:0:0:0/96, NAT64 64:ff9b::/96 (RFC 6052) and 6to4 2002::/16 (the
 * IPv4 in bits 16–47).
 */
function carriedIPv4(address: IPv6): IPv4 | undefined {
  const p = address.parts;
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return lowIPv4(p);
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return lowIPv4(p);
  if (p[0] === 0x2002) {
    const hi = p[1] ?? 0;
    const lo = p[2] ?? 0;
    return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  }
  return mappedIPv4(address);
}

const V4_KINDS: Record<string, AddressKind> = {
  unicast: 'internet',
  unspecified: 'this-computer',
  loopback: 'this-computer',
  private: 'local-network',
  carrierGradeNat: 'local-network',
  linkLocal: 'link-local',
};
// ipaddr.js counts 198.18.0.0/15 (benchmarking) as reserved; it is what proxy tools' fake-IP DNS
// (Clash, Surge, sing-box) answer for every public name, so refusing it would cut a sandbox off the
// internet on those laptops. Their own TUN address there is refused as this computer's.
const BENCHMARKING = ipaddr.IPv4.parseCIDR('198.18.0.0/15');
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

function kindOfV4(address: IPv4): { kind: AddressKind; range: string } {
  if (address.match(BENCHMARKING)) return { kind: 'internet', range: 'benchmarking' };
  const range = address.range();
  return { kind: V4_KINDS[range] ?? 'not-routable', range };
}

function kindOfV6(address: IPv6): { kind: AddressKind; range: string } {
  // ipaddr.js's types list fewer ranges than it returns (deprecatedSiteLocal, discard, …)
  const range: string = address.range();
  if (range === 'loopback' || range === 'unspecified') return { kind: 'this-computer', range };
  if (range === 'uniqueLocal' || range === 'deprecatedSiteLocal') return { kind: 'local-network', range };
  if (range === 'linkLocal') return { kind: 'link-local', range };
  // Only 2000::/3 is handed out for global unicast; the rest is unassigned or special.
  if (range === 'unicast' && address.match(GLOBAL_UNICAST)) return { kind: 'internet', range };
  return { kind: 'not-routable', range: range === 'unicast' ? 'unassigned' : range };
}

/** How an address in any spelling is judged; undefined when `text` is not an address. */
export function classifyAddress(
  text: string,
  own: ReadonlySet<string> = ownAddresses(),
): AddressClass | undefined {
  const parsed = parseAddress(text);
  if (!parsed) return undefined;
  const form = judgedForm(parsed);
  const judged = spell(form);
  const { kind, range } = form instanceof ipaddr.IPv4 ? kindOfV4(form) : kindOfV6(form);
  if (kind !== 'this-computer' && own.has(judged))
    return { kind: 'this-computer', range: 'own-interface', judged };
  return { kind, range, judged };
}

/** The address a connection to `parsed` leads to: the IPv4 it carries, if any. */
function judgedForm(parsed: IPv4 | IPv6): IPv4 | IPv6 {
  if (parsed instanceof ipaddr.IPv4) return parsed;
  // ::1 and :: are IPv6's own loopback and unspecified, not IPv4-compatible forms of 0.0.0.x.
  if (kindOfV6(parsed).kind === 'this-computer') return parsed;
  return carriedIPv4(parsed) ?? parsed;
}

function spell(address: IPv4 | IPv6): string {
  // toRFC5952String keeps a zone ("fe80::1%eth0"); the address judged is the same on any interface.
  return address instanceof ipaddr.IPv4 ? address.toString() : address.toRFC5952String().replace(/%.*$/, '');
}

/**
 * This computer's interface addresses as judged (AddressClass.judged), read now: they change when
 * the laptop moves to another network, so the gate reads them at each decision (one getifaddrs).
 */
export function ownAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const i of list ?? []) {
      const parsed = parseAddress(i.address);
      if (parsed) out.add(spell(judgedForm(parsed)));
    }
  }
  return out;
}

/**
 * The spelling to connect to for an address that passed: an IPv4-mapped or -compatible address is
 * connected to as its IPv4 (the same host, without relying on dual-stack mapping); any other
 * address as parsed (an IPv6 link-local address keeps its zone).
 */
export function connectable(text: string): string {
  const parsed = parseAddress(text);
  if (!parsed) return text;
  if (parsed instanceof ipaddr.IPv4) return parsed.toString();
  const mapped = kindOfV6(parsed).kind === 'this-computer' ? undefined : mappedIPv4(parsed);
  if (mapped) return mapped.toString();
  return parsed.toRFC5952String();
}
