import { StateSeal } from '../sealed-state.ts';

/**
 * The `requestState` Switchboard gives a 2026-07-28 client with an `input_required` result (MRTR on
 * the editors' side, mrtr-exchanges.ts). The client echoes it back verbatim on its retry; it is
 * untrusted until its seal (sealed-state.ts: an HMAC under a key of this serve) checks out, so a state that
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

/** Words for a refused state that say what happened. */
const REFUSED = {
  form: 'it is not a requestState Switchboard issued',
  seal: 'its signature does not match (it was altered, forged, or issued before Switchboard restarted)',
  expired: 'it expired: the input was not sent back in time, and the call was ended',
} as const;

export class StateSigner {
  /** A key of its own: one signer per serve (mrtr-exchanges.ts). */
  readonly #seal = new StateSeal<StateClaims>('sb1');

  sign(claims: StateClaims): string {
    return this.#seal.seal(claims);
  }

  /** Checks a state's HMAC and expiry; the caller checks what it binds against the retry. */
  verify(state: string, now = Date.now()): StateCheck {
    const opened = this.#seal.open(state, now);
    return opened.ok ? { ok: true, claims: opened.fields } : { ok: false, reason: REFUSED[opened.why] };
  }
}
