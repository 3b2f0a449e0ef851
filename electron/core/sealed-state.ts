import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * State Switchboard hands to someone it does not trust and must get back unaltered (MCP 2026's
 * `requestState`, both the one Switchboard issues and a server's it carries): the fields, readable
 * by the holder, sealed with an HMAC under a random key made with the seal and never stored, so a
 * state outlives neither serve nor its restart. Form: `<tag>.<base64url JSON>.<base64url HMAC>`.
 * The tag names which seal a state claims to be and is under the HMAC too. A seal checks its HMAC
 * and `expires`; what the fields bind (whose, for what) the caller checks against the request.
 */

/** Why a state was refused: not of this seal's form, its HMAC does not hold, or its time is up. */
export type SealRefusal = 'form' | 'seal' | 'expired';

export type Opened<Fields> = { ok: true; fields: Fields } | { ok: false; why: SealRefusal };

/** `Fields`: a JSON object; a field `expires` (ms since the epoch) ends it. */
export class StateSeal<Fields extends object> {
  readonly #tag: string;
  /** made with the seal, never stored: one seal per serve */
  readonly #key = randomBytes(32);
  readonly #maxChars: number;

  /** `maxChars`: a longer state is refused unread (the largest this seal gives out, with room). */
  constructor(tag: string, { maxChars = Infinity }: { maxChars?: number } = {}) {
    this.#tag = tag;
    this.#maxChars = maxChars;
  }

  /** Whether a state has this seal's form (not whether it holds). */
  marks(state: unknown): state is string {
    return typeof state === 'string' && state.startsWith(`${this.#tag}.`);
  }

  /** Seals `fields`; with `expires` it is refused from then on. */
  seal(fields: Fields): string {
    const body = Buffer.from(JSON.stringify(fields), 'utf8').toString('base64url');
    return `${this.#tag}.${body}.${this.#mac(body)}`;
  }

  /**
   * The fields when this seal made `state` and its time is not up. The fields are trusted as they
   * were sealed: only what this seal's key made opens.
   */
  open(state: unknown, now = Date.now()): Opened<Fields> {
    if (!this.marks(state) || state.length > this.#maxChars) return { ok: false, why: 'form' };
    const parts = state.split('.');
    if (parts.length !== 3) return { ok: false, why: 'form' };
    const [, body, mac] = parts as [string, string, string];
    const expected = Buffer.from(this.#mac(body), 'base64url');
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return { ok: false, why: 'seal' };
    let fields: Fields;
    try {
      fields = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Fields;
    } catch {
      return { ok: false, why: 'form' };
    }
    const { expires } = fields as { expires?: unknown };
    if (expires !== undefined && !(typeof expires === 'number' && expires > now))
      return { ok: false, why: 'expired' };
    return { ok: true, fields };
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#key).update(`${this.#tag}.${body}`).digest('base64url');
  }
}
