import { describe, expect, it } from 'vitest';
import { lockPackages, parseLock, pickBin } from '../../../electron/core/store/npm-lockfile.ts';
import { packageChanges } from '../../../electron/core/store/package-diff.ts';

const lock = (packages: Record<string, unknown>) =>
  JSON.stringify({ name: 'x', lockfileVersion: 3, requires: true, packages });

describe('npm lockfiles in the store', () => {
  it('lists the tree (nested copies too) and hashes every version and integrity', () => {
    const text = lock({
      '': { name: 'x', dependencies: { pkg: 'latest' } },
      'node_modules/pkg': { version: '1.0.0', integrity: 'sha512-a', bin: { pkg: 'cli.js' } },
      'node_modules/dep': { version: '2.0.0', integrity: 'sha512-b', hasInstallScript: true },
      'node_modules/pkg/node_modules/dep': { version: '1.0.0', integrity: 'sha512-c' },
    });
    const parsed = parseLock(text);
    expect(lockPackages(parsed)).toEqual([
      { name: 'dep', version: '1.0.0', installScript: false },
      { name: 'dep', version: '2.0.0', installScript: true },
      { name: 'pkg', version: '1.0.0', installScript: false },
    ]);
    expect(parseLock(text.replace('sha512-c', 'sha512-d')).hash).not.toBe(parsed.hash);
    expect(parseLock(JSON.stringify(JSON.parse(text), null, 2)).hash).toBe(parsed.hash);
    expect(() => parseLock(JSON.stringify({ lockfileVersion: 1, dependencies: {} }))).toThrow(
      'lockfileVersion 2',
    );
  });

  it('picks the bin npx would run', () => {
    expect(pickBin('pkg', { pkg: 'a.js' }, undefined)).toEqual({ bin: 'pkg', path: 'a.js' });
    expect(pickBin('@s/pkg', { other: 'b.js' }, undefined)).toEqual({ bin: 'other', path: 'b.js' });
    expect(pickBin('@s/pkg', { pkg: 'a.js', other: 'b.js' }, undefined)).toEqual({
      bin: 'pkg',
      path: 'a.js',
    });
    expect(pickBin('pkg', { a: 'a.js', b: 'b.js' }, undefined)).toMatchObject({
      problem: expect.stringContaining('several programs'),
    });
    expect(pickBin('pkg', { a: 'a.js' }, 'b')).toMatchObject({ problem: 'pkg has no program named "b"' });
    expect(pickBin('pkg', undefined, undefined)).toMatchObject({
      problem: expect.stringContaining('no program'),
    });
  });

  it('says what an update changes, package by package, with new install scripts', () => {
    const p = (name: string, version: string, installScript = false) => ({ name, version, installScript });
    expect(
      packageChanges(
        [p('pkg', '1.0.0'), p('dep', '1.0.0'), p('gone', '3.0.0')],
        [p('pkg', '1.1.0'), p('dep', '1.0.0'), p('new\u202Eone', '0.1.0', true)],
      ),
    ).toEqual([
      'pkg 1.0.0 → 1.1.0',
      'added new\\u{202E}one 0.1.0',
      'removed gone 3.0.0',
      'new install script: new\\u{202E}one@0.1.0',
    ]);
  });
});
