import { describe, expect, it } from 'vitest';
import { NetworkGate } from '../../../electron/core/sandbox/network-gate.ts';

// Name lookups are answered by a table: what is decided here is the rule, not the DNS.
const DNS: Record<string, string[]> = {
  'api.github.com': ['140.82.112.5'],
  'uploads.github.com': ['140.82.112.6'],
  'rebind.example': ['127.0.0.1'],
  'mixed.example': ['127.0.0.1', '93.184.216.34'],
};
const resolve = async (host: string) => {
  const found = DNS[host];
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found;
};

describe('network gate', () => {
  it('lets the default policy reach any host on the internet, but nothing on this computer', async () => {
    const gate = new NetworkGate({ kind: 'internet' }, resolve);
    expect(await gate.decide('api.github.com', 443)).toEqual({ allowed: true, address: '140.82.112.5' });
    expect(await gate.decide('localhost', 43117)).toMatchObject({ allowed: false, add: 'localhost:43117' });
    expect(await gate.decide('127.0.0.1', 5432)).toMatchObject({ allowed: false });
    expect(await gate.decide('::1', 80)).toMatchObject({ allowed: false, add: '[::1]:80' });
    // a name that resolves to this computer is refused too (DNS rebinding)
    expect(await gate.decide('rebind.example', 80)).toMatchObject({ allowed: false });
    // and a name with both: only the outside address is used
    expect(await gate.decide('mixed.example', 80)).toEqual({ allowed: true, address: '93.184.216.34' });
  });

  it('lets a list reach only its hosts, subdomains and ports', async () => {
    const gate = new NetworkGate(
      { kind: 'list', entries: ['api.github.com', '*.githubusercontent.com', 'localhost:5432'] },
      async (h) => (h.endsWith('githubusercontent.com') ? ['185.199.108.133'] : resolve(h)),
    );
    expect(await gate.decide('api.github.com', 443)).toMatchObject({ allowed: true });
    expect(await gate.decide('API.GitHub.com', 443)).toMatchObject({ allowed: true });
    expect(await gate.decide('raw.githubusercontent.com', 443)).toMatchObject({ allowed: true });
    expect(await gate.decide('githubusercontent.com', 443)).toMatchObject({ allowed: false });
    const refused = await gate.decide('uploads.github.com', 443);
    expect(refused).toEqual({
      allowed: false,
      refusal: 'sandbox refused connecting to uploads.github.com:443: it is not in its network list',
      add: 'uploads.github.com',
    });
    expect(await gate.decide('localhost', 5432)).toEqual({ allowed: true, address: '127.0.0.1' });
    expect(await gate.decide('localhost', 5433)).toMatchObject({ allowed: false, add: 'localhost:5433' });
  });
});
