import { isIP } from 'node:net';
import { classifyAddress } from './address-class.ts';

/** One entry of a server's `sandbox.network` list, parsed. */
export interface HostEntry {
  /** lower case, without brackets */
  host: string;
  /** `*.example.com`: every subdomain of host (not host itself) */
  subdomains: boolean;
  /** undefined: any port */
  port: number | undefined;
  text: string;
}

export function parseHostEntry(text: string): HostEntry {
  const lower = text.toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(lower);
  if (bracketed) return { host: bracketed[1] ?? '', subdomains: false, port: portOf(bracketed[2]), text };
  const colon = lower.lastIndexOf(':');
  const hostPart = colon === -1 ? lower : lower.slice(0, colon);
  const port = colon === -1 ? undefined : portOf(lower.slice(colon + 1));
  const subdomains = hostPart.startsWith('*.');
  return { host: subdomains ? hostPart.slice(2) : hostPart, subdomains, port, text };
}

function portOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : undefined;
}

export function entryMatches(entry: HostEntry, host: string, port: number): boolean {
  if (entry.port !== undefined && entry.port !== port) return false;
  const name = host.toLowerCase().replace(/\.$/, '');
  if (entry.subdomains) return name.endsWith(`.${entry.host}`);
  return name === entry.host;
}

/** "localhost" and its subdomains: this computer by definition (RFC 6761), whatever a resolver says. */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * This computer's loopback by name or in any spelling of its address (127.0.0.0/8, ::1, the
 * unspecified address that connects to it, their IPv4-mapped forms): what a listed local port means.
 */
export function isLocalName(host: string): boolean {
  const range = classifyAddress(host, new Set())?.range;
  return isLocalhostName(host) || range === 'loopback' || range === 'unspecified';
}

/** `host:port` as people write it (IPv6 in brackets). */
export function hostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
