import { describe, expect, it } from 'vitest';
import { parseDeepLink, registryInstallLink } from '../../../electron/desktop/deep-link.ts';
import { catalogTarget } from '../../../electron/desktop/install-link.ts';
import { parseRoute, href } from '../../../renderer/src/lib/route.ts';

describe('switchboard://install?registry=NAME links ("Add to Switchboard" badges)', () => {
  it('name a registry server (and a version), and open its page in the Catalog', () => {
    const link = registryInstallLink('io.github.upstash/context7', '2.0.0');
    expect(link).toBe('switchboard://install?registry=io.github.upstash%2Fcontext7&version=2.0.0');
    const parsed = parseDeepLink(link);
    expect(parsed).toEqual({
      kind: 'install-registry',
      registry: 'io.github.upstash/context7',
      version: '2.0.0',
    });
    expect(parseDeepLink('switchboard://install?registry=io.github.upstash/context7')).toEqual({
      kind: 'install-registry',
      registry: 'io.github.upstash/context7',
      version: undefined,
    });
    if (parsed.kind !== 'install-registry') throw new Error('expected a registry link');
    const target = catalogTarget(parsed);
    expect(target).toEqual({ view: 'catalog', segments: ['io.github.upstash/context7', '2.0.0'] });
    // What the desktop shell puts in the window's address, and what the UI makes of it.
    const hash = `#/${target.view}${target.segments.map((s) => `/${encodeURIComponent(s)}`).join('')}`;
    expect(parseRoute(hash)).toEqual({
      view: 'catalog',
      server: 'io.github.upstash/context7',
      version: '2.0.0',
    });
    expect(href({ view: 'catalog', server: 'io.github.upstash/context7', version: '2.0.0' })).toBe(hash);
  });

  it('refuses a name or version that is not one, and a link that also brings a configuration', () => {
    const cases: [string, string][] = [
      ['switchboard://install?registry=no-slash', '"no-slash" is not an MCP Registry server name'],
      ['switchboard://install?registry=io.x%2Fa%20b', 'is not an MCP Registry server name'],
      [
        'switchboard://install?registry=io.x%2F%E2%80%AEexe',
        '"io.x/\\u{202E}exe" is not an MCP Registry server name',
      ],
      [
        'switchboard://install?registry=io.x%2Fy&version=1.0%20--yes',
        '"1.0 --yes" is not a version of io.x/y',
      ],
      ['switchboard://install?registry=io.x%2Fy&config=e30', 'names both a registry server'],
      ['switchboard://install?registry=', 'is not an MCP Registry server name'],
    ];
    for (const [link, words] of cases) {
      const parsed = parseDeepLink(link);
      expect(parsed.kind, link).toBe('invalid');
      if (parsed.kind === 'invalid') expect(parsed.message, link).toContain(words);
    }
  });
});
