import { describe, expect, it } from 'vitest';
import { StateSeal } from '../../electron/core/sealed-state.ts';
import {
  MAX_REQUEST_STATE,
  isServerState,
  openServerState,
  sealServerState,
} from '../../electron/core/supervisor/upstream-state.ts';

// One seal for the state Switchboard hands out and takes back (both MRTR sides). The editors' side
// (bridge/mrtr-state.ts) has its own test; end to end in eras-mrtr/eras-remote.test.ts.

describe('a sealed state', () => {
  it('opens to what was sealed, until it expires; another seal (another tag or serve) does not open it', () => {
    const seal = new StateSeal<{ who: string; expires?: number }>('t1');
    expect(seal.open(seal.seal({ who: 'a' }))).toEqual({ ok: true, fields: { who: 'a' } });
    const timed = seal.seal({ who: 'a', expires: 2_000 });
    expect(seal.open(timed, 1_999)).toEqual({ ok: true, fields: { who: 'a', expires: 2_000 } });
    expect(seal.open(timed, 2_000)).toEqual({ ok: false, why: 'expired' });
    expect(new StateSeal('t1').open(timed, 1_000)).toEqual({ ok: false, why: 'seal' });
    expect(new StateSeal('t2').open(timed, 1_000)).toEqual({ ok: false, why: 'form' });
  });

  it('refuses one with its fields changed, cut short, too long, or not a string', () => {
    const seal = new StateSeal<{ who: string }>('t1', { maxChars: 200 });
    const [tag, , mac] = seal.seal({ who: 'a' }).split('.') as [string, string, string];
    const other = Buffer.from(JSON.stringify({ who: 'b' })).toString('base64url');
    expect(seal.open(`${tag}.${other}.${mac}`)).toEqual({ ok: false, why: 'seal' });
    expect(seal.open(`${tag}.${other}`)).toEqual({ ok: false, why: 'form' });
    expect(seal.open(seal.seal({ who: 'x'.repeat(200) }))).toEqual({ ok: false, why: 'form' });
    expect(seal.open(42)).toEqual({ ok: false, why: 'form' });
  });
});

describe('a 2026 server\u2019s state as an editor carries it', () => {
  it('goes back only to the server it was sealed for, byte for byte, up to the largest a server may give', () => {
    const state = 'é\u0000"\ud800'.repeat(MAX_REQUEST_STATE / 4); // non-ASCII, escapes, a lone surrogate
    const sealed = sealServerState('alpha', state);
    expect(isServerState(sealed)).toBe(true);
    expect(openServerState('alpha', sealed)).toEqual({ state });
    expect(openServerState('beta', sealed)).toBeUndefined();
    expect(openServerState('alpha', sealServerState('alpha', undefined))).toEqual({ state: undefined });
    expect(openServerState('alpha', state)).toBeUndefined();
  });
});
