import { lookup } from 'node:dns/promises';
import {
  classifyAddress,
  connectable,
  ownAddresses,
  type AddressClass,
  type AddressKind,
} from './address-class.ts';
import { entryMatches, hostPort, isLocalhostName, parseHostEntry, type HostEntry } from './host-rules.ts';

export type GateRules = { kind: 'internet' } | { kind: 'list'; entries: readonly string[] };

export type GateAnswer =
  | { allowed: true; address: string }
  | {
      allowed: false;
      refusal: string;
      /**
       * What to add to sandbox.network for the policy to allow it; undefined when the policy did not
       * refuse (this computer could not resolve the name): adding anything would not help.
       */
      add: string | undefined;
    };

export type Resolve = (host: string) => Promise<string[]>;

const resolveAll: Resolve = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

/** A refusal in the words a server's log and `status` show, with the fix when there is one. */
export function refusalWords(refusal: string, add: string | undefined): string {
  return add === undefined ? refusal : `${refusal}: add "${add}" to sandbox.network`;
}

const WHERE: Record<Exclude<AddressKind, 'internet'>, string> = {
  'this-computer': 'on this computer',
  'local-network': 'on your local network',
  'link-local': 'link-local (this network segment only)',
  'not-routable': 'not an address on the internet',
};

/**
 * Decides each connection a sandboxed server asks its proxy for. Names are resolved here, once, to
 * all their addresses; each address is judged (address-class.ts) and the connection goes to one that
 * passed, so a name cannot point elsewhere in between (DNS rebinding).
 * - "the internet" (the default) is public addresses only: not this computer (loopback, unspecified,
 *   its own interface addresses), not the LAN, not link-local, not multicast or reserved ranges.
 * - A list names hosts and addresses. A listed name reaches its public and LAN addresses; a listed
 *   address (`192.168.1.10:8080`, `127.0.0.1:5432`) is reached in any spelling of it; `localhost`
 *   (with a port) is this computer's loopback. Nothing reaches this computer or link-local through a
 *   listed *name* other than localhost: a name's owner could point it anywhere.
 */
export class NetworkGate {
  readonly #rules: GateRules;
  readonly #listed: Listed[];
  readonly #resolve: Resolve;

  constructor(rules: GateRules, resolve: Resolve = resolveAll) {
    this.#rules = rules;
    this.#listed = rules.kind === 'list' ? rules.entries.map(listed) : [];
    this.#resolve = resolve;
  }

  async decide(asked: string, port: number): Promise<GateAnswer> {
    const host = asked
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1')
      .replace(/\.$/, '');
    // An address asked for, in whatever spelling (judged apart from this computer's own addresses).
    const literal = classifyAddress(host, NONE);
    const localhost = !literal && isLocalhostName(host);
    const target = hostPort(host, port);
    if (this.#rules.kind === 'list' && !this.#listed.some((l) => names(l, host, literal, port))) {
      return {
        allowed: false,
        refusal: `sandbox refused connecting to ${target}: it is not in its network list`,
        add: literal || localhost ? target : host,
      };
    }
    let addresses: string[];
    try {
      addresses = literal ? [host] : localhost ? ['127.0.0.1'] : await this.#resolve(host);
    } catch (err) {
      return { allowed: false, refusal: unresolved(host, err), add: undefined };
    }
    // Read now: the laptop's addresses change when it moves.
    const own = ownAddresses();
    const judged = addresses.flatMap((address) => {
      const c = classifyAddress(address, own);
      return c ? [{ address, c }] : [];
    });
    const passed = judged.find((j) => this.#grants(j.c, host, literal, port));
    if (passed) return { allowed: true, address: connectable(passed.address) };
    return this.#refused(host, port, literal !== undefined || localhost, judged);
  }

  /** Whether the policy lets a connection asked as `host:port` go to an address judged `c`. */
  #grants(c: AddressClass, host: string, literal: AddressClass | undefined, port: number): boolean {
    if (this.#rules.kind === 'internet') return c.kind === 'internet';
    return this.#listed.some((l) => {
      if (l.entry.port !== undefined && l.entry.port !== port) return false;
      if (l.address !== undefined) return l.address === c.judged;
      // localhost: this computer's loopback when asked by that name or a loopback address, not
      // through another name that resolves there
      if (l.localhost) return c.range === 'loopback' && (literal !== undefined || isLocalhostName(host));
      return entryMatches(l.entry, host, port) && (c.kind === 'internet' || c.kind === 'local-network');
    });
  }

  #refused(
    host: string,
    port: number,
    literal: boolean,
    judged: { address: string; c: AddressClass }[],
  ): GateAnswer {
    const target = hostPort(host, port);
    const kinds = new Set(judged.map((j) => j.c.kind));
    const first = judged[0];
    if (!first) {
      return { allowed: false, refusal: `could not resolve ${host}: it has no address`, add: undefined };
    }
    const kind = kinds.size === 1 ? first.c.kind : 'not-routable';
    const where = kind === 'internet' ? 'not in its network list' : WHERE[kind];
    if (literal) {
      const sep = kind === 'this-computer' ? ' ' : ': it is ';
      return {
        allowed: false,
        refusal: `sandbox refused connecting to ${target}${sep}${where}`,
        add: target,
      };
    }
    const shown = judged.map((j) => j.c.judged).join(', ');
    return {
      allowed: false,
      refusal: `sandbox refused connecting to ${target}: it resolves only to ${shown}, ${where}`,
      // A listed name reaches the LAN; this computer and the rest only by their address.
      add: kind === 'local-network' ? host : hostPort(first.c.judged, port),
    };
  }
}

/** A list entry, with what it names worked out once. */
interface Listed {
  entry: HostEntry;
  /** an address entry (`192.168.1.10:8080`), as judged: matched by address, not spelling */
  address: string | undefined;
  /** `localhost` or a subdomain of it: this computer's loopback */
  localhost: boolean;
}

const NONE: ReadonlySet<string> = new Set();

function listed(text: string): Listed {
  const entry = parseHostEntry(text);
  const address = entry.subdomains ? undefined : classifyAddress(entry.host, NONE)?.judged;
  return { entry, address, localhost: address === undefined && isLocalhostName(entry.host) };
}

/** Whether a list entry names what was asked (before any lookup: an unlisted name is not resolved). */
function names(l: Listed, host: string, literal: AddressClass | undefined, port: number): boolean {
  if (l.entry.port !== undefined && l.entry.port !== port) return false;
  if (l.address !== undefined) return literal?.judged === l.address;
  if (l.localhost) return entryMatches(l.entry, host, port) || literal?.range === 'loopback';
  return !literal && entryMatches(l.entry, host, port);
}

/** The machine itself could not look the name up: the sandbox did not refuse it. */
function unresolved(host: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code ?? String(err);
  const why =
    code === 'ENOTFOUND'
      ? 'this computer’s DNS knows no such name (a typo, or no DNS while offline?)'
      : code === 'EAI_AGAIN'
        ? 'this computer’s DNS did not answer (offline?)'
        : 'this computer could not look the name up';
  return `could not resolve ${host}: ${code}: ${why}; the sandbox did not refuse it`;
}
