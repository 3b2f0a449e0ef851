import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../electron/core/trust/canonical-json.ts';
import { describeLaunch } from '../../../electron/core/trust/command-line.ts';
import { fingerprintOf, launchConfigOf } from '../../../electron/core/trust/fingerprint.ts';
import { StdioServerSchema } from '../../../shared/schema/servers.ts';

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
});
