import { describe, expect, it } from 'vitest';
import { lockStillCurrent, type PackumentView } from '../../../electron/core/store/npm-lock-current.ts';
import { parseLock } from '../../../electron/core/store/npm-lockfile.ts';

// outdated's quick look (issue 36 item 3): a kept lockfile is "still current" only when npm, resolving
// afresh, would pick every locked version again. Lockfiles shaped as npm 11 writes them.

function lock(range = 'latest', extra: Record<string, unknown> = {}) {
  return parseLock(
    JSON.stringify({
      name: 'switchboard-store-install',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'switchboard-store-install', dependencies: { srv: range } },
        'node_modules/srv': { version: '1.0.0', dependencies: { dep: '^1.0.0', old: '^2.0.0' } },
        'node_modules/dep': { version: '1.2.0' },
        'node_modules/old': { version: '1.0.0' },
        'node_modules/srv/node_modules/old': { version: '2.1.0' },
        ...extra,
      },
    }),
  );
}

function registry(docs: Record<string, PackumentView>) {
  return (name: string) => Promise.resolve(docs[name]);
}

const versions = (...vs: string[]) => Object.fromEntries(vs.map((v) => [v, {}]));
const current = {
  srv: { 'dist-tags': { latest: '1.0.0' }, versions: versions('0.9.0', '1.0.0') },
  dep: { 'dist-tags': { latest: '1.2.0' }, versions: versions('1.0.0', '1.2.0') },
  old: { 'dist-tags': { latest: '1.0.0' }, versions: versions('1.0.0', '2.0.0', '2.1.0') },
} satisfies Record<string, PackumentView>;

describe('lockStillCurrent', () => {
  it('is true when every edge would pick its locked version again (nested copies found as Node finds them)', async () => {
    expect(await lockStillCurrent(lock(), { name: 'srv', range: 'latest' }, registry(current))).toBe(true);
    expect(await lockStillCurrent(lock('^1.0.0'), { name: 'srv', range: '^1.0.0' }, registry(current))).toBe(
      true,
    );
  });

  it('is false when a dependency has a newer release within its range', async () => {
    const docs = {
      ...current,
      dep: { 'dist-tags': { latest: '1.3.0' }, versions: versions('1.2.0', '1.3.0') },
    };
    expect(await lockStillCurrent(lock(), { name: 'srv', range: 'latest' }, registry(docs))).toBe(false);
    // nested: srv's own copy of old (^2) has 2.2.0 now, while the top-level old@1 is unchanged
    const nested = { ...current, old: { ...current.old, versions: versions('1.0.0', '2.1.0', '2.2.0') } };
    expect(await lockStillCurrent(lock(), { name: 'srv', range: 'latest' }, registry(nested))).toBe(false);
  });

  it('follows the latest tag as npm does: a tag moved back, or a range the tag satisfies', async () => {
    const back = {
      ...current,
      dep: { 'dist-tags': { latest: '1.0.0' }, versions: versions('1.0.0', '1.2.0') },
    };
    expect(await lockStillCurrent(lock(), { name: 'srv', range: 'latest' }, registry(back))).toBe(false);
    const tagged = {
      ...current,
      srv: { 'dist-tags': { latest: '1.1.0' }, versions: versions('1.0.0', '1.1.0') },
    };
    expect(await lockStillCurrent(lock(), { name: 'srv', range: 'latest' }, registry(tagged))).toBe(false);
  });

  it('is false when unsure: a deprecated pick, a packument it cannot get, a range changed in servers.json, a missing required package', async () => {
    const deprecated = {
      ...current,
      dep: { ...current.dep, versions: { '1.0.0': {}, '1.2.0': { deprecated: 'broken' } } },
    };
    expect(await lockStillCurrent(lock(), { name: 'srv', range: 'latest' }, registry(deprecated))).toBe(
      false,
    );
    const noDep = { srv: current.srv, old: current.old };
    expect(await lockStillCurrent(lock(), { name: 'srv', range: 'latest' }, registry(noDep))).toBe(false);
    expect(await lockStillCurrent(lock(), { name: 'srv', range: '^1.0.0' }, registry(current))).toBe(false);
    const missing = lock('latest', {
      'node_modules/srv': { version: '1.0.0', dependencies: { gone: '^1' } },
    });
    expect(await lockStillCurrent(missing, { name: 'srv', range: 'latest' }, registry(current))).toBe(false);
  });

  it('passes a missing optional dependency (not installed on this platform) and a git or file spec goes to npm', async () => {
    const optional = lock('latest', {
      'node_modules/srv': {
        version: '1.0.0',
        dependencies: { dep: '^1.0.0' },
        optionalDependencies: { fsevents: '^2' },
      },
    });
    expect(await lockStillCurrent(optional, { name: 'srv', range: 'latest' }, registry(current))).toBe(true);
    const git = lock('latest', {
      'node_modules/srv': { version: '1.0.0', dependencies: { dep: 'github:a/dep' } },
    });
    expect(await lockStillCurrent(git, { name: 'srv', range: 'latest' }, registry(current))).toBe(false);
  });
});
