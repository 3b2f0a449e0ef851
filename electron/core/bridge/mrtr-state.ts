import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The `requestState` Switchboard gives a 2026-07-28 client with an `input_required` result (MRTR on
 * the editors' side, mrtr-exchanges.ts). The client echoes it back verbatim on its retry; it is
 * untrusted until its HMAC (a random key made per serve, never stored) checks out, so a state that
 * was forged or altered, or that was issued to another token, endpoint or request, is refused
 * before anything reaches a server.
 */

/** What a state binds: which call it continues, for whom, and until when. */
export interface StateClaims {
  /** the held call (random, unguessable) and the round of input it answers (a used round is spent) */
  call: string;
  round: number;
  /** the editor's token name and the endpoint ('' for /mcp) the call was made on */
  editor: string;
  endpoint: string;
  /** the request it continues: method and the tool or prompt name or resource URI */
  method: string;
  name: string;
  /** the servers whose requests the input answers, and the keys of those requests */
  servers: string[];
  keys: string[];
  /** ms since the epoch after which the state is refused */
  expires: number;
}

/** Why a state came back refused, in words that say what to do. */
export type StateCheck = { ok: true; claims: StateClaims } | { ok: false; reason: string };

const VERSION = 'sb1';

export class StateSigner {
  readonly #key: Buffer;

  constructor(key: Buffer = randomBytes(32)) {
    this.#key = key;
  }

  sign(claims: StateClaims): string {
    const body = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
    return `${VERSION}.${body}.${this.#mac(body)}`;
  }

  /** Checks a state's HMAC and expiry; the caller checks what it binds against the retry. */
  verify(state: string, now = Date.now()): StateCheck {
    const parts = state.split('.');
    if (parts.length !== 3 || parts[0] !== VERSION)
      return { ok: false, reason: 'it is not a requestState Switchboard issued' };
    const [, body, mac] = parts as [string, string, string];
    const expected = Buffer.from(this.#mac(body), 'base64url');
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return {
        ok: false,
        reason:
          'its signature does not match (it was altered, forged, or issued before Switchboard restarted)',
      };
    let claims: StateClaims;
    try {
      claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StateClaims;
    } catch {
      return { ok: false, reason: 'it does not decode' };
    }
    if (typeof claims.expires !== 'number' || claims.expires <= now)
      return { ok: false, reason: 'it expired: the input was not sent back in time, and the call was ended' };
    return { ok: true, claims };
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#key).update(`${VERSION}.${body}`).digest('base64url');
  }
}
