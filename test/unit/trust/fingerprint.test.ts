import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../electron/core/trust/canonical-json.ts';
import { describeLaunch, describeReferences } from '../../../electron/core/trust/command-line.ts';
import { fingerprintOf, launchConfigOf } from '../../../electron/core/trust/fingerprint.ts';
import { RemoteServerSchema, StdioServerSchema } from '../../../shared/schema/servers.ts';

const base = StdioServerSchema.parse({
  command: 'npx',
  args: ['-y', 'pkg'],
  env: { B: '1', A: '${secret:tok}' },
});

describe('fingerprint', () => {
  it('does not depend on key order at any depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ y: 1, x: 2 }], c: 3 } })).toBe(
      '{"a":{"c":3,"d":[{"x":2,"y":1}]},"b":1}',
    );
    const reordered = StdioServerSchema.parse({
      env: { A: '${secret:tok}', B: '1' },
      args: ['-y', 'pkg'],
      command: 'npx',
    });
    expect(fingerprintOf(launchConfigOf(reordered, '/usr/bin/npx'))).toBe(
      fingerprintOf(launchConfigOf(base, '/usr/bin/npx')),
    );
  });

  it('changes with anything that decides what runs', () => {
    const fp = fingerprintOf(launchConfigOf(base, '/usr/bin/npx'));
    const variants = [
      launchConfigOf(base, '/opt/other/npx'),
      launchConfigOf({ ...base, args: ['-y', 'pkg2'] }, '/usr/bin/npx'),
      launchConfigOf({ ...base, env: { ...base.env, B: '2' } }, '/usr/bin/npx'),
      launchConfigOf({ ...base, cwd: '/tmp' }, '/usr/bin/npx'),
    ];
    for (const v of variants) expect(fingerprintOf(v)).not.toBe(fp);
  });

  it('does not change with fields that do not decide what runs', () => {
    const fp = fingerprintOf(launchConfigOf(base, '/usr/bin/npx'));
    expect(fingerprintOf(launchConfigOf({ ...base, enabled: false, editors: ['zed'] }, '/usr/bin/npx'))).toBe(
      fp,
    );
  });

  it('describes the exact command line, quoting what a shell would need, with references unresolved', () => {
    const launch = launchConfigOf({ ...base, args: ['-y', 'pkg', 'two words', "it's"] }, '/usr/bin/npx');
    expect(describeLaunch(launch)).toEqual([
      `command: /usr/bin/npx -y pkg 'two words' 'it'\\''s'`,
      'env B=1',
      'env A=${secret:tok}',
    ]);
  });

  it('pins the real file behind a symlinked command, and shows it; a plain file keeps its fingerprint', () => {
    const plain = launchConfigOf(base, '/usr/bin/npx', '/usr/bin/npx');
    expect(plain.realCommand).toBeUndefined();
    expect(fingerprintOf(plain)).toBe(fingerprintOf(launchConfigOf(base, '/usr/bin/npx')));
    const linked = launchConfigOf(base, '/usr/bin/npx', '/usr/share/nodejs/npm/bin/npx-cli.js');
    const retargeted = launchConfigOf(base, '/usr/bin/npx', '/opt/evil/npx-cli.js');
    expect(new Set([plain, linked, retargeted].map(fingerprintOf)).size).toBe(3);
    expect(describeLaunch(linked)).toEqual([
      'command: /usr/bin/npx -y pkg',
      'real file: /usr/share/nodejs/npm/bin/npx-cli.js',
      'env B=1',
      'env A=${secret:tok}',
    ]);
  });

  it('escapes control, bidi and line-break characters in every part, so no line can be faked', () => {
    const launch = launchConfigOf(
      StdioServerSchema.parse({
        command: 'npx',
        args: ['x\u202Eexe.txt', '\u001b[2K', 'a\ncwd: /'],
        cwd: '/srv/\u2066x',
        env: { 'K\u200B': 'v\r' },
      }),
      '/usr/bin/npx',
    );
    expect(describeLaunch(launch)).toEqual([
      "command: /usr/bin/npx 'x\\u{202E}exe.txt' '\\u{1B}[2K' 'a\\u{0A}cwd: /'",
      'cwd: /srv/\\u{2066}x',
      'env K\\u{200B}=v\\u{0D}',
    ]);
    const remote = launchConfigOf(
      RemoteServerSchema.parse({ url: 'https://example.com/\u202Emcp', headers: { 'X\n': 'y' } }),
      undefined,
    );
    expect(describeLaunch(remote)).toEqual(['url: https://example.com/\\u{202E}mcp', 'header X\\u{0A}: y']);
  });

  it('says in plain words which secret or env variable goes where', () => {
    const remote = launchConfigOf(
      RemoteServerSchema.parse({
        url: 'https://api.example.com/mcp?key=${env:API_KEY}',
        headers: { Authorization: 'Bearer ${secret:github-token}' },
      }),
      undefined,
    );
    expect(describeReferences(remote)).toEqual([
      'sends your keychain secret "github-token" in header Authorization to https://api.example.com/mcp?key=${env:API_KEY}',
      'sends your environment variable API_KEY as part of the address it connects to: https://api.example.com/mcp?key=${env:API_KEY}',
    ]);
    const local = launchConfigOf(
      StdioServerSchema.parse({
        command: 'npx',
        args: ['-y', 'pkg', '--token', '${secret:pkg-token}'],
        env: { GITHUB_TOKEN: '${secret:github-token}', PLAIN: '1' },
      }),
      '/usr/bin/npx',
      '/usr/share/nodejs/npm/bin/npx-cli.js',
    );
    expect(describeReferences(local)).toEqual([
      'gives your keychain secret "github-token" to /usr/share/nodejs/npm/bin/npx-cli.js in env GITHUB_TOKEN',
      'gives your keychain secret "pkg-token" to /usr/share/nodejs/npm/bin/npx-cli.js as argument 4 (on its command line, which other users of this computer can see while it runs)',
    ]);
    expect(describeReferences(launchConfigOf(StdioServerSchema.parse({ command: 'x' }), '/bin/x'))).toEqual(
      [],
    );
  });
});
