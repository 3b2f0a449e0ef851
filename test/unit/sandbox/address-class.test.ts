import { describe, expect, it } from 'vitest';
import { classifyAddress, connectable, ownAddresses } from '../../../electron/core/sandbox/address-class.ts';

// This computer's interface addresses, as os.networkInterfaces() would give them on a laptop on a
// home network with a public IPv6 prefix (the classifier takes them as a parameter; the gate reads
// the real ones at each decision).
const own = new Set(['127.0.0.1', '::1', '192.168.1.23', '2a02:810d:4b3f:e100::23']);
const kindOf = (address: string) => classifyAddress(address, own)?.kind;

describe('address classes', () => {
  it('judges every spelling of this computer’s loopback and unspecified address as this computer', () => {
    for (const spelling of [
      '127.0.0.1',
      '127.9.9.9',
      '127.1',
      '0x7f000001',
      '0177.0.0.1',
      '2130706433',
      '0.0.0.0',
      '::1',
      '0::1',
      '0:0:0:0:0:0:0:1',
      '::',
      '0:0:0:0:0:0:0:0',
      '[::1]',
      // IPv4-mapped, in each spelling the issue found getting through
      '::ffff:127.0.0.1',
      '0:0:0:0:0:ffff:7f00:1',
      '::ffff:7f00:1',
      '::FFFF:7F00:1',
      '::ffff:0.0.0.0',
      // IPv4-compatible, SIIT, NAT64 and 6to4 forms carrying 127.0.0.1
      '::127.0.0.1',
      '::7f00:1',
      '::ffff:0:7f00:1',
      '64:ff9b::127.0.0.1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::1',
    ])
      expect(kindOf(spelling), spelling).toBe('this-computer');
  });

  it('judges this computer’s own network addresses as this computer, in any spelling', () => {
    for (const spelling of [
      '192.168.1.23',
      '::ffff:192.168.1.23',
      '::ffff:c0a8:117',
      '2a02:810d:4b3f:e100::23',
    ])
      expect(classifyAddress(spelling, own), spelling).toMatchObject({
        kind: 'this-computer',
        range: 'own-interface',
      });
    // a neighbour in the same prefix is just an internet address
    expect(kindOf('2a02:810d:4b3f:e100::24')).toBe('internet');
    // and with no such interface, 192.168.1.23 is a LAN host like any other
    expect(classifyAddress('192.168.1.23', new Set())?.kind).toBe('local-network');
  });

  it('reads this computer’s own addresses from its interfaces', () => {
    const mine = ownAddresses();
    expect(mine.has('127.0.0.1')).toBe(true);
    // judged spellings: a zone or an IPv4-mapped form never hides one
    for (const a of mine) expect(a).not.toMatch(/%|^::ffff:/);
  });

  it('judges the person’s local network as such, in any spelling', () => {
    for (const spelling of [
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.254',
      '192.168.1.10',
      '100.64.0.1',
      '100.127.255.254',
      '::ffff:192.168.1.10',
      '::ffff:a00:1',
      '64:ff9b::10.0.0.1',
      '2002:c0a8:10a::1',
      'fc00::1',
      'fd12:3456:789a::1',
    ])
      expect(kindOf(spelling), spelling).toBe('local-network');
    expect(kindOf('169.254.169.254')).toBe('link-local');
    expect(kindOf('::ffff:169.254.169.254')).toBe('link-local');
    expect(kindOf('fe80::1')).toBe('link-local');
    expect(kindOf('fe80::1%eth0')).toBe('link-local');
  });

  it('judges multicast, broadcast, reserved and unassigned addresses as not on the internet', () => {
    for (const spelling of [
      '224.0.0.1',
      '239.255.255.250',
      '255.255.255.255',
      '240.0.0.1',
      '192.0.2.1',
      '203.0.113.9',
      'ff02::1',
      '2001:db8::1',
      '::ffff:224.0.0.1',
      // a local NAT64 prefix: where its IPv4 sits cannot be told
      '64:ff9b:1::7f00:1',
      // Teredo: retired, and it carries an obscured IPv4
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      // IPv6 outside 2000::/3 is not handed out
      '4000::1',
    ])
      expect(kindOf(spelling), spelling).toBe('not-routable');
  });

  it('judges public addresses as the internet, also inside NAT64, 6to4 and IPv4-mapped forms', () => {
    for (const spelling of [
      '140.82.112.5',
      '1.1.1.1',
      '2606:4700:4700::1111',
      '::ffff:140.82.112.5',
      '64:ff9b::140.82.112.5',
      '2002:8c52:7005::1',
      // a proxy tool's fake-IP answer (198.18.0.0/15)
      '198.18.0.7',
    ])
      expect(kindOf(spelling), spelling).toBe('internet');
    expect(classifyAddress('api.github.com', own)).toBeUndefined();
  });

  it('tells when two spellings are one address, and connects to an IPv4-mapped one as its IPv4', () => {
    const judged = (a: string) => classifyAddress(a, new Set())?.judged;
    expect(judged('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(judged('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(judged('FE80:0::1%eth0')).toBe('fe80::1');
    expect(judged('64:ff9b::c0a8:10a')).toBe('192.168.1.10');
    expect(connectable('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(connectable('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(connectable('fe80::1%eth0')).toBe('fe80::1%eth0');
    expect(connectable('64:ff9b::8c52:7005')).toBe('64:ff9b::8c52:7005');
  });
});
