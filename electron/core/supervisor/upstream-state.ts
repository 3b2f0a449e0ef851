import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A 2026 server's `requestState` as a 2026 editor carries it (modern-upstream.ts passes the server's
 * input_required through to such an editor): the server's string, untouched and never parsed, sealed
 * with an HMAC over the server's name, so that the editor's retry can give it back only to the server
 * that minted it, and nobody can hand a server a state of their own making through Switchboard.
 * The key lives in memory only: a state outlives neither Switchboard's process nor its restart (the
 * editor then starts the call anew).
 */

/** The largest state a server may hand out through Switchboard (it travels on every retry). */
export const MAX_REQUEST_STATE = 64 * 1024;

const PREFIX = 'sb-up1.';
const KEY = randomBytes(32);

function mac(server: string, kind: string, state: string): Buffer {
  return createHmac('sha256', KEY).update(server).update('\0').update(kind).update(state).digest();
}

/**
 * Seals a server's state, or the absence of one (`undefined`: the server gave none, and the editor's
 * retry must still come back to it, not to Switchboard's own MRTR).
 */
export function sealServerState(server: string, state: string | undefined): string {
  const kind = state === undefined ? 'n' : 's';
  const body = state ?? '';
  return `${PREFIX}${mac(server, kind, body).toString('base64url')}.${kind}${Buffer.from(body).toString('base64url')}`;
}

/** Whether a state has the form of a server's sealed state (not whether its seal holds). */
export function isServerState(state: unknown): boolean {
  return typeof state === 'string' && state.startsWith(PREFIX);
}

/**
 * What `sealed` holds when Switchboard sealed it for this server: the server's own state (undefined:
 * it gave none); undefined when the seal does not hold.
 */
export function openServerState(server: string, sealed: unknown): { state: string | undefined } | undefined {
  if (typeof sealed !== 'string' || !sealed.startsWith(PREFIX)) return undefined;
  if (sealed.length > PREFIX.length + 45 + Math.ceil((MAX_REQUEST_STATE * 4) / 3) + 4) return undefined;
  const dot = sealed.indexOf('.', PREFIX.length);
  if (dot === -1) return undefined;
  const given = Buffer.from(sealed.slice(PREFIX.length, dot), 'base64url');
  const kind = sealed.charAt(dot + 1);
  if (kind !== 'n' && kind !== 's') return undefined;
  const state = Buffer.from(sealed.slice(dot + 2), 'base64url').toString();
  const expected = mac(server, kind, state);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return { state: kind === 's' ? state : undefined };
}
