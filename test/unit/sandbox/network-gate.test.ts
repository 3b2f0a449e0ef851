import { describe, expect, it } from 'vitest';
import { NetworkGate, refusalWords } from '../../../electron/core/sandbox/network-gate.ts';

// Name lookups are answered by a table: what is decided here is the rule, not the DNS.
const DNS: Record<string, string[]> = {
  'api.github.com': ['140.82.112.5'],
  'uploads.github.com': ['140.82.112.6'],
  'rebind.example': ['127.0.0.1'],
  'mixed.example': ['127.0.0.1', '93.184.216.34'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'nas.home': ['192.168.1.10'],
  'router.example': ['192.168.1.1', 'fd00::1'],
  'metadata.example': ['169.254.169.254'],
  'api.example.test': ['140.82.112.7'],
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

  it('refuses this computer in every spelling under the default policy, names and addresses alike', async () => {
    const gate = new NetworkGate({ kind: 'internet' }, resolve);
    for (const host of [
      '::ffff:127.0.0.1',
      '[0:0:0:0:0:ffff:7f00:1]',
      '::ffff:7f00:1',
      '0::1',
      '0.0.0.0',
      '::',
      '127.1',
      '::127.0.0.1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::1',
    ]) {
      const answer = await gate.decide(host, 8080);
      expect(answer, host).toMatchObject({ allowed: false });
      expect(answer.allowed ? '' : answer.refusal, host).toMatch(/ on this computer$/);
    }
    expect(await gate.decide('mapped.example', 80)).toEqual({
      allowed: false,
      refusal:
        'sandbox refused connecting to mapped.example:80: it resolves only to 127.0.0.1, on this computer',
      add: '127.0.0.1:80',
    });
  });

  it('keeps "the internet" off the LAN, link-local and special addresses', async () => {
    const gate = new NetworkGate({ kind: 'internet' }, resolve);
    expect(await gate.decide('192.168.1.10', 8080)).toEqual({
      allowed: false,
      refusal: 'sandbox refused connecting to 192.168.1.10:8080: it is on your local network',
      add: '192.168.1.10:8080',
    });
    expect(await gate.decide('nas.home', 5000)).toEqual({
      allowed: false,
      refusal:
        'sandbox refused connecting to nas.home:5000: it resolves only to 192.168.1.10, on your local network',
      add: 'nas.home',
    });
    expect(await gate.decide('router.example', 80)).toMatchObject({ allowed: false, add: 'router.example' });
    for (const host of [
      '10.1.2.3',
      '100.64.0.9',
      'fd12::1',
      '::ffff:172.16.5.4',
      'metadata.example',
      '169.254.169.254',
      '224.0.0.251',
      'ff02::fb',
    ])
      expect(await gate.decide(host, 80), host).toMatchObject({ allowed: false });
    // a public address in an IPv4-mapped form is connected to as the IPv4 itself
    expect(await gate.decide('::ffff:140.82.112.5', 443)).toEqual({ allowed: true, address: '140.82.112.5' });
  });

  it('reaches a listed LAN host or local port by its address in any spelling, never through another name', async () => {
    const gate = new NetworkGate(
      { kind: 'list', entries: ['192.168.1.10:8080', '127.0.0.1:5432', 'nas.home', 'api.example.test'] },
      resolve,
    );
    expect(await gate.decide('192.168.1.10', 8080)).toEqual({ allowed: true, address: '192.168.1.10' });
    expect(await gate.decide('::ffff:c0a8:10a', 8080)).toEqual({ allowed: true, address: '192.168.1.10' });
    expect(await gate.decide('192.168.1.10', 8081)).toMatchObject({
      allowed: false,
      add: '192.168.1.10:8081',
    });
    expect(await gate.decide('[::ffff:7f00:1]', 5432)).toEqual({ allowed: true, address: '127.0.0.1' });
    expect(await gate.decide('::1', 5432)).toMatchObject({ allowed: false });
    // a listed name reaches its LAN address
    expect(await gate.decide('nas.home', 5000)).toEqual({ allowed: true, address: '192.168.1.10' });
    // "localhost" is not listed: only the address is
    expect(await gate.decide('localhost', 5432)).toMatchObject({ allowed: false, add: 'localhost:5432' });
  });

  it('never lets a listed name resolve to this computer or link-local, whatever else is listed', async () => {
    const rebinding = async (host: string) => (host === 'api.example.test' ? ['127.0.0.1'] : resolve(host));
    const gate = new NetworkGate(
      { kind: 'list', entries: ['api.example.test', 'localhost:5432'] },
      rebinding,
    );
    expect(await gate.decide('api.example.test', 5432)).toEqual({
      allowed: false,
      refusal:
        'sandbox refused connecting to api.example.test:5432: it resolves only to 127.0.0.1, on this computer',
      add: '127.0.0.1:5432',
    });
    const meta = new NetworkGate({ kind: 'list', entries: ['metadata.example'] }, resolve);
    expect(await meta.decide('metadata.example', 80)).toMatchObject({
      allowed: false,
      add: '169.254.169.254:80',
    });
    // localhost:5432 is this computer's loopback, by name or by address
    expect(await gate.decide('localhost', 5432)).toEqual({ allowed: true, address: '127.0.0.1' });
    expect(await gate.decide('::1', 5432)).toEqual({ allowed: true, address: '::1' });
  });

  it('says the machine could not resolve a name it allows, without asking to add it', async () => {
    const offline = async () => {
      throw Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' });
    };
    const listed = new NetworkGate({ kind: 'list', entries: ['context7.com'] }, offline);
    const answer = await listed.decide('context7.com', 443);
    expect(answer).toEqual({
      allowed: false,
      refusal:
        'could not resolve context7.com: EAI_AGAIN: this computer’s DNS did not answer (offline?); the sandbox did not refuse it',
      add: undefined,
    });
    const internet = new NetworkGate({ kind: 'internet' }, resolve);
    const unknown = await internet.decide('context7.com', 443);
    expect(unknown).toMatchObject({ allowed: false, add: undefined });
    expect(unknown.allowed ? '' : refusalWords(unknown.refusal, unknown.add)).not.toMatch(
      /add|sandbox\.network/,
    );
    // the policy's own refusals still say what to add
    const other = await listed.decide('uploads.github.com', 443);
    expect(other.allowed ? '' : refusalWords(other.refusal, other.add)).toBe(
      'sandbox refused connecting to uploads.github.com:443: it is not in its network list: add "uploads.github.com" to sandbox.network',
    );
  });
});
