import { describe, expect, it } from 'vitest';
import { StateSigner, type StateClaims } from '../../../electron/core/bridge/mrtr-state.ts';

// The requestState Switchboard gives 2026 clients with input_required: signed with a key of this
// serve, checked for its signature and expiry when it comes back (what it binds is checked by the
// caller against the retry, mrtr-exchanges.ts; end to end in eras-mrtr.test.ts).

const claims = (over: Partial<StateClaims> = {}): StateClaims => ({
  call: 'c1',
  round: 0,
  editor: 'cursor',
  endpoint: 'evil',
  method: 'tools/call',
  name: 'ask',
  servers: ['evil'],
  keys: ['evil:1'],
  expires: 2_000,
  ...over,
});

describe('MRTR requestState', () => {
  it('gives back what it signed, until it expires', () => {
    const signer = new StateSigner();
    const state = signer.sign(claims());
    expect(signer.verify(state, 1_000)).toEqual({ ok: true, claims: claims() });
    expect(signer.verify(state, 2_000)).toEqual({ ok: false, reason: expect.stringMatching(/expired/) });
  });

  it('refuses a state with its claims changed, one signed with another key (another serve), and junk', () => {
    const signer = new StateSigner();
    const [v, body, mac] = signer.sign(claims()).split('.') as [string, string, string];
    const longer = Buffer.from(JSON.stringify(claims({ expires: 9e15 }))).toString('base64url');
    expect(signer.verify(`${v}.${longer}.${mac}`, 1_000).ok).toBe(false);
    expect(signer.verify(new StateSigner().sign(claims()), 1_000)).toEqual({
      ok: false,
      reason: expect.stringMatching(/signature/),
    });
    expect(signer.verify(`${v}.${body}`, 1_000).ok).toBe(false);
    expect(signer.verify(`${v}.${body}.${mac}x`, 1_000).ok).toBe(false);
    expect(signer.verify('', 1_000).ok).toBe(false);
  });
});
