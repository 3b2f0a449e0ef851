import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import {
  entryMatches,
  hostPort,
  isLocalAddress,
  isLocalName,
  parseHostEntry,
  type HostEntry,
} from './host-rules.ts';

export type GateRules = { kind: 'internet' } | { kind: 'list'; entries: readonly string[] };

export type GateAnswer =
  | { allowed: true; address: string }
  | { allowed: false; refusal: string; /** what to add to sandbox.network */ add: string };

export type Resolve = (host: string) => Promise<string[]>;

const resolveAll: Resolve = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

/**
 * Decides each connection a sandboxed server asks its proxy for. Names are resolved here, once, and
 * the connection goes to the address that was checked (a name cannot point elsewhere in between).
 * This computer's own services (loopback) are reachable only when listed as such.
 */
export class NetworkGate {
  readonly #rules: GateRules;
  readonly #entries: HostEntry[];
  readonly #resolve: Resolve;

  constructor(rules: GateRules, resolve: Resolve = resolveAll) {
    this.#rules = rules;
    this.#entries = rules.kind === 'list' ? rules.entries.map(parseHostEntry) : [];
    this.#resolve = resolve;
  }

  async decide(asked: string, port: number): Promise<GateAnswer> {
    const host = asked.toLowerCase().replace(/\.$/, '');
    const target = hostPort(host, port);
    const entry = this.#entries.find((e) => entryMatches(e, host, port));
    if (this.#rules.kind === 'list' && !entry) {
      return {
        allowed: false,
        refusal: `sandbox refused connecting to ${target}: it is not in its network list`,
        add: isLocalName(host) ? target : host,
      };
    }
    const listedLocal = entry !== undefined && isLocalName(entry.host);
    if (isLocalName(host) && !listedLocal) return this.#local(target);
    let addresses: string[];
    try {
      // "localhost" is this computer by definition (RFC 6761), whatever a resolver says.
      addresses = isIP(host) ? [host] : isLocalName(host) ? ['127.0.0.1'] : await this.#resolve(host);
    } catch (err) {
      return {
        allowed: false,
        refusal: `could not resolve ${host}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
        add: host,
      };
    }
    const usable = listedLocal ? addresses : addresses.filter((a) => !isLocalAddress(a));
    if (usable.length === 0) return this.#local(target);
    return { allowed: true, address: usable[0] ?? host };
  }

  #local(target: string): GateAnswer {
    return {
      allowed: false,
      refusal: `sandbox refused connecting to ${target} on this computer`,
      add: target,
    };
  }
}
