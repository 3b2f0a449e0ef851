import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_REGISTRY_URL, freshnessWords } from '../../../shared/catalog.ts';
import { Catalog, CatalogInstallError } from '../../../electron/core/catalog/catalog.ts';
import { RegistryError } from '../../../electron/core/catalog/registry-client.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { AppStateStore } from '../../../electron/core/trust/app-state.ts';
import { recorded, recordedDoc, startFakeRegistry, type FakeRegistry } from '../../helpers/fake-registry.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

/**
 * The catalog against a local fake of the MCP Registry's v0.1 API (real HTTP) serving the recorded
 * server.json documents: search and paging, details, install into servers.json and the keychain, the
 * cache in the home with its age, and every way the registry can fail, in words.
 */

let t: TempHome;
let registry: FakeRegistry;
let keychain: MemoryKeychain;
let now: number;

const ALL = () => [
  ...recorded('servers').values(),
  ...recorded('examples').values(),
  ...recorded('e2e').values(),
  ...recorded('malformed').values(),
  ...recorded('hostile').values(),
];

function catalog(
  env: NodeJS.ProcessEnv = { SWITCHBOARD_REGISTRY_URL: registry.url },
  timeoutMs?: number,
): Catalog {
  return new Catalog({
    home: t.home,
    state: new AppStateStore(t.home.stateFile),
    env,
    keychain,
    lookup: () => ({ path: '/usr/bin:/bin:/usr/local/bin', cwd: t.home.root, platform: 'linux' }),
    now: () => now,
    ...(timeoutMs ? { timeoutMs } : {}),
  });
}

beforeEach(async () => {
  t = tempHome();
  keychain = new MemoryKeychain();
  registry = await startFakeRegistry(ALL());
  now = Date.parse('2026-03-01T12:00:00Z');
});

afterEach(async () => {
  await registry.close();
  t.cleanup();
});

describe('search', () => {
  it('pages through the registry with its cursor, latest versions only, skipping what is not server.json', async () => {
    const c = catalog();
    const pages = [await c.search({ search: '' })];
    for (let last = pages[0]; last?.nextCursor;) {
      last = await c.search({ search: '', cursor: last.nextCursor });
      pages.push(last);
    }
    expect(pages.length).toBe(3);
    expect(pages.every((p) => !p.fromCache)).toBe(true);
    // A page is the registry's 30; those not valid server.json are counted, not shown. One document
    // is an older version of another (GitHub's 0.20.0): only the latest is listed.
    expect(pages.map((p) => p.entries.length + p.skipped)).toEqual([30, 30, ALL().length - 61]);
    const names = pages.flatMap((p) => p.entries.map((e) => e.name));
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('io.github.upstash/context7');
    // missing-name, bad-name-pattern, version-not-a-string, description-is-an-object, a bidi name, a
    // version with a line break: six entries of the answers are not listed
    expect(pages.reduce((n, p) => n + p.skipped, 0)).toBe(6);
    expect(registry.requests[0]).toBe('/v0.1/servers?version=latest&limit=30');
  });

  it('finds servers by name or description, each with how it runs', async () => {
    const page = await catalog().search({ search: 'GitHub' });
    expect(page.entries.map((e) => [e.name, e.kinds])).toContainEqual([
      'io.github.github/github-mcp-server',
      ['oci', 'remote'],
    ]);
    const context7 = (await catalog().search({ search: 'code docs' })).entries;
    expect(context7.map((e) => [e.name, e.title, e.kinds])).toEqual([
      ['io.github.upstash/context7', 'Context7', ['npm', 'other', 'remote']],
    ]);
  });

  it('lists the latest version, and shows any version asked for', async () => {
    registry.add({ ...recordedDoc('servers', 'context7'), version: '2.1.0' });
    const c = catalog();
    expect((await c.search({ search: 'context7' })).entries.map((e) => e.version)).toEqual(['2.1.0']);
    expect((await c.detail({ name: 'io.github.upstash/context7' })).entry.version).toBe('2.1.0');
    expect((await c.detail({ name: 'io.github.upstash/context7', version: '2.0.0' })).entry.version).toBe(
      '2.0.0',
    );
    expect(registry.requests.at(-1)).toBe('/v0.1/servers/io.github.upstash%2Fcontext7/versions/2.0.0');
  });

  it('shows hostile text escaped: nothing in a list can redraw a terminal or reorder a line', async () => {
    const [entry] = (await catalog().search({ search: 'control-characters' })).entries;
    expect(entry?.title).toBe('Nice \\u{1B}[2J\\u{1B}[1;1Hserver');
    expect(entry?.description).toBe(
      'Looks safe \\u{202E}exe.txt\\u{202C} and\\u{0A}clears the screen \\u{1B}[2J',
    );
  });

  it('serves a huge entry clipped, and refuses an answer too large to be a server list', async () => {
    registry.add({
      name: 'io.example.huge/description',
      version: '1.0.0',
      description: 'x'.repeat(2_000_000),
      packages: [
        { registryType: 'npm', identifier: 'huge-mcp', version: '1.0.0', transport: { type: 'stdio' } },
      ],
    });
    const [entry] = (await catalog().search({ search: 'io.example.huge' })).entries;
    expect([...(entry?.description ?? '')]).toHaveLength(500);
    registry.add({
      name: 'io.example.huge/many-variables',
      version: '1.0.0',
      description: 'twenty thousand environment variables',
      packages: [
        {
          registryType: 'npm',
          identifier: 'huge-mcp',
          version: '1.0.0',
          environmentVariables: Array.from({ length: 20_000 }, (_, i) => ({ name: `VAR_${i}`, value: 'x' })),
        },
      ],
    });
    const detail = await catalog().detail({ name: 'io.example.huge/many-variables' });
    expect(detail.options[0]?.problem).toBeNull();
    registry.mode = 'huge';
    const tooLarge = `the registry at ${registry.url} answered more than 8 MiB: that is not a server list Switchboard will read`;
    // What the cache holds is shown instead, with why…
    expect(await catalog().search({ search: 'huge' })).toMatchObject({
      fromCache: true,
      problem: `${tooLarge} — check the registry address in Settings`,
    });
    // …and without a cache, the reason alone.
    t.cleanup();
    t = tempHome();
    await expect(catalog().search({ search: 'huge' })).rejects.toThrow(tooLarge);
  });
});

describe('a registry that is down or answers nonsense', () => {
  const failures: [FakeRegistry['mode'], string][] = [
    ['html', 'answered text/html, not JSON — is this address an MCP registry (API v0.1)?'],
    ['garbage', 'answered JSON that does not parse'],
    [
      'not-a-list',
      'answered something that is not a list of servers (servers: Invalid input: expected array, received string)',
    ],
    ['error500', 'answered HTTP 503 Service Unavailable — it may be down for a while; try again later'],
    ['reset', 'cannot reach the registry at'],
  ];
  for (const [mode, words] of failures) {
    it(`says what went wrong when it ${mode === 'reset' ? 'drops the connection' : `answers ${mode}`}`, async () => {
      registry.mode = mode;
      const err = await catalog()
        .search({ search: 'github' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RegistryError);
      expect((err as RegistryError).display).toContain(words);
    });
  }

  it('gives up on a registry that does not answer, saying after how long', async () => {
    registry.mode = 'hang';
    await expect(catalog(undefined, 300).search({ search: 'x' })).rejects.toThrow(
      `cannot reach the registry at ${registry.url}: no answer within 0 s`,
    );
  });

  it('says when the registry has no such server (not an outage)', async () => {
    const err = await catalog()
      .detail({ name: 'io.example/nothing-here' })
      .catch((e: unknown) => e);
    expect((err as RegistryError).notFound).toBe(true);
    expect((err as Error).message).toBe(
      `the registry at ${registry.url} has no server io.example/nothing-here`,
    );
  });

  it('refuses a registry address that is not one, saying where it came from', async () => {
    await expect(catalog({ SWITCHBOARD_REGISTRY_URL: 'ftp://example.com' }).search({})).rejects.toThrow(
      'SWITCHBOARD_REGISTRY_URL in the environment is not an http:// or https:// address: "ftp://example.com"',
    );
    expect(() => catalog().setRegistry('https://user:pw@registry.example.com')).toThrow(
      'must not carry a user name or password',
    );
  });
});

describe('the cache in the home', () => {
  it('answers from the cache within five minutes, then asks again', async () => {
    const c = catalog();
    await c.search({ search: 'context7' });
    const asked = registry.requests.length;
    now += 60_000;
    const cached = await c.search({ search: 'context7' });
    expect(cached).toMatchObject({ fromCache: true, problem: null, fetchedAt: now - 60_000 });
    expect(registry.requests).toHaveLength(asked);
    expect((await c.search({ search: 'context7', refresh: true })).fromCache).toBe(false);
    now += 6 * 60_000;
    expect((await c.search({ search: 'context7' })).fromCache).toBe(false);
    expect(registry.requests).toHaveLength(asked + 2);
    const files = readdirSync(join(t.home.root, 'cache', 'registry'));
    expect(files.length).toBeGreaterThan(0);
  });

  it('works offline from the cache, saying how old it is and why', async () => {
    const c = catalog();
    await c.search({ search: '' });
    await c.detail({ name: 'io.github.upstash/context7' });
    await registry.close();
    now += 3 * 3_600_000;

    const page = await c.search({ search: '' });
    expect(page.fromCache).toBe(true);
    expect(page.fetchedAt).toBe(now - 3 * 3_600_000);
    expect(freshnessWords(page, now)).toMatch(
      new RegExp(
        `^From the cache, 3 hours old: cannot reach the registry at ${registry.url}: (connection refused|the connection was closed) — ` +
          'check your connection, or try again later\\.$',
      ),
    );
    // A search never made online is answered from what the cache holds.
    const offline = await c.search({ search: 'azure' });
    expect(offline.entries.map((e) => e.name)).toEqual(['com.microsoft/azure-devops']);
    expect(offline.problem).toMatch(/^cannot reach the registry/);
    // Details too, also of a server only ever seen in a list.
    expect((await c.detail({ name: 'io.github.upstash/context7' })).fromCache).toBe(true);
    expect((await c.detail({ name: 'com.neon/mcp' })).entry.title).toBe('Neon');
  });

  it('says so when offline with nothing cached', async () => {
    await registry.close();
    await expect(catalog().search({ search: 'x' })).rejects.toThrow(
      /^cannot reach the registry at .*: connection refused/,
    );
  });
});

describe('install', () => {
  const echo = 'io.github.switchboard-fixtures/catalog-echo';

  it('adds the entry pending approval, its secret in the keychain as a ${secret:…} reference', async () => {
    const c = catalog();
    const result = await c.install({
      server: echo,
      version: '1.0.0',
      option: 'package:0',
      name: 'echo',
      values: { 'arg:package:0': 'hello' },
      secrets: { 'env:ECHO_API_TOKEN': 'tok-ABC-123' },
    });
    expect(result.installed).toBe(true);
    expect(JSON.parse(readFileSync(t.home.serversFile, 'utf8')).mcpServers.echo).toEqual({
      command: 'npx',
      args: ['-y', 'switchboard-catalog-echo@1.0.0', '--greeting', 'hello'],
      env: { ECHO_API_TOKEN: '${secret:echo-echo_api_token}' },
    });
    expect(await keychain.get('echo-echo_api_token')).toBe('tok-ABC-123');
    expect(readFileSync(t.home.serversFile, 'utf8')).not.toContain('tok-ABC-123');
    expect(result.plan.lines[0]).toMatch(
      /^command: \/\S*npx -y switchboard-catalog-echo@1\.0\.0 --greeting hello$/,
    );
    expect(result.plan.lines).toContain('env ECHO_API_TOKEN=${secret:echo-echo_api_token}');
  });

  it('a dry run shows the same plan and writes nothing', async () => {
    const c = catalog();
    const dry = await c.install({
      server: echo,
      option: 'package:0',
      name: 'echo',
      values: { 'arg:package:0': 'hi' },
      secrets: { 'env:ECHO_API_TOKEN': '•' },
      dryRun: true,
    });
    expect(dry).toMatchObject({ installed: false, plan: { issues: [], problems: [] } });
    expect(dry.plan.secrets).toEqual([
      { field: 'env:ECHO_API_TOKEN', name: 'echo-echo_api_token', stored: false },
    ]);
    expect(await keychain.list()).toEqual([]);
    expect(() => readFileSync(t.home.serversFile)).toThrow();
  });

  it('asks for what is missing, at its field, and writes nothing', async () => {
    const err = await catalog()
      .install({ server: echo, option: 'package:0', name: 'echo' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CatalogInstallError);
    expect((err as CatalogInstallError).plan.issues).toEqual([
      { field: 'arg:package:0', message: 'greeting is required' },
      { field: 'env:ECHO_API_TOKEN', message: 'ECHO_API_TOKEN is required' },
    ]);
    expect(await keychain.list()).toEqual([]);
  });

  it('never replaces a server of that name, and offers a free one', async () => {
    t.writeServers({ mcpServers: { 'catalog-echo': { command: 'node', args: ['mine.js'] } } });
    const c = catalog();
    expect((await c.detail({ name: echo })).suggestedName).toBe('catalog-echo-2');
    const err = await c
      .install({
        server: echo,
        option: 'package:0',
        name: 'catalog-echo',
        values: { 'arg:package:0': 'x' },
        secrets: { 'env:ECHO_API_TOKEN': 't' },
      })
      .catch((e: unknown) => e);
    expect((err as CatalogInstallError).plan.issues).toEqual([
      { field: 'name', message: 'a server named "catalog-echo" already exists; choose another name' },
    ]);
    expect(JSON.parse(readFileSync(t.home.serversFile, 'utf8')).mcpServers['catalog-echo'].args).toEqual([
      'mine.js',
    ]);
  });

  it('uses a secret already stored under its name when none is typed, without taking another server’s', async () => {
    await keychain.set('echo-echo_api_token', 'stored-before');
    const c = catalog();
    const request = { server: echo, option: 'package:0', name: 'echo', values: { 'arg:package:0': 'x' } };
    expect((await c.install({ ...request, dryRun: true })).plan.secrets[0]).toMatchObject({ stored: true });
    await c.install(request);
    expect(await keychain.get('echo-echo_api_token')).toBe('stored-before');
    // Another server uses echo2-echo_api_token already: a new install does not take it over.
    t.writeServers({
      mcpServers: {
        other: { command: 'node', env: { T: '${secret:echo2-echo_api_token}' } },
      },
    });
    await keychain.set('echo2-echo_api_token', 'others');
    await c.install({ ...request, name: 'echo2', secrets: { 'env:ECHO_API_TOKEN': 'mine' } });
    expect(await keychain.get('echo2-echo_api_token')).toBe('others');
    expect(await keychain.get('echo2-echo_api_token-2')).toBe('mine');
  });

  it('puts a token typed into a field not marked secret in the keychain too', async () => {
    registry.add({
      name: 'io.example/unmarked-token',
      version: '1.0.0',
      description: 'asks for an API key in an argument without saying it is secret',
      packages: [
        {
          registryType: 'npm',
          identifier: 'unmarked-mcp',
          version: '1.0.0',
          packageArguments: [{ type: 'named', name: '--api-key', description: 'your key', isRequired: true }],
        },
      ],
    });
    const token = 'sk-' + 'Zq7Xv2Lm9Kp4Rt8Wn3Hc6Yd1Ja5Ue0Fo';
    // A secret-like flag is asked for as a secret already: stored under its name.
    const made = await catalog().install({
      server: 'io.example/unmarked-token',
      option: 'package:0',
      name: 'unmarked',
      secrets: { 'arg:package:0': token },
    });
    expect(made.plan.config).toEqual({
      command: 'npx',
      args: ['-y', 'unmarked-mcp@1.0.0', '--api-key', '${secret:unmarked-api-key}'],
    });
    expect(await keychain.get('unmarked-api-key')).toBe(token);
  });

  it('moves a token typed into a plain field to the keychain, only when the install goes ahead', async () => {
    registry.add({
      name: 'io.example/plain-field',
      version: '1.0.0',
      description: 'asks for a value in a plain argument',
      packages: [
        {
          registryType: 'npm',
          identifier: 'plain-mcp',
          version: '1.0.0',
          packageArguments: [
            { type: 'named', name: '--login', description: 'how to log in', isRequired: true },
          ],
        },
      ],
    });
    const pat = 'ghp_' + 'Vb7Qm2Xk9LrTz4Wn8Hc1Yp6Ds3Ga5UeJoFi0';
    const request = {
      server: 'io.example/plain-field',
      option: 'package:0',
      name: 'plain',
      values: { 'arg:package:0': pat },
    };
    const dry = await catalog().install({ ...request, dryRun: true });
    expect(dry.plan.config).toEqual({
      command: 'npx',
      args: ['-y', 'plain-mcp@1.0.0', '--login', '${secret:plain-login}'],
    });
    expect(await keychain.list()).toEqual([]);
    const done = await catalog().install(request);
    expect(done.plan.config).toEqual(dry.plan.config);
    expect(await keychain.get('plain-login')).toBe(pat);
    expect(readFileSync(t.home.serversFile, 'utf8')).not.toContain(pat);
  });

  it('refuses a hostile entry and an option whose runtime is missing, with why', async () => {
    const c = catalog();
    await expect(
      c.install({ server: 'io.example.hostile/borrowed-secret', option: 'package:0', name: 'borrow' }),
    ).rejects.toThrow(
      '"borrow" was not added: Switchboard will not install it: it uses ${secret:github-token}',
    );
    const noUv = new Catalog({
      home: t.home,
      state: new AppStateStore(t.home.stateFile),
      env: { SWITCHBOARD_REGISTRY_URL: registry.url },
      keychain,
      lookup: () => ({ path: '', cwd: t.home.root, platform: 'linux' }),
    });
    await expect(
      noUv.install({
        server: 'io.github.example/weather-mcp',
        option: 'package:0',
        name: 'w',
        secrets: { 'env:WEATHER_API_KEY': 'k' },
      }),
    ).rejects.toThrow('"w" was not added: uvx is not installed');
    expect(await keychain.list()).toEqual([]);
  });

  it('refuses a reference put together from parts, wherever the values are filled in', async () => {
    const hostile = 'io.example.hostile/secret-from-parts';
    await keychain.set('mysecret', 'the-person-s-secret');
    const c = catalog();
    const detail = await c.detail({ name: hostile });
    const problems = Object.fromEntries(detail.options.map((o) => [o.id, o.problem]));
    const made = (where: string, ref: string) =>
      `Switchboard will not install it: filled in, ${where} reads ${ref}, which would hand the server one of ` +
      'your keychain secrets or environment variables that you did not give it (a server from the catalog ' +
      'gets only the secrets you type for it)';
    expect(problems).toEqual({
      // env CONFIG = "${cfg}", cfg's default "{secret:mysecret}"
      'package:0': made('env CONFIG', '${secret:mysecret}'),
      // a package argument "--home=${home}", home's default "{env:HOME}"
      'package:1': made('args[2]', '${env:HOME}'),
      // "{dollar}{rest}": "$" and "{secret:mysecret}", each harmless alone
      'package:2': made('args[3]', '${secret:mysecret}'),
      'package:3':
        'Switchboard will not install it: its docker argument -e AWS_SECRET_ACCESS_KEY would pass your ' +
        'environment variable AWS_SECRET_ACCESS_KEY into the container',
      // the header of the issue: {"value": "${cfg}", "variables": {"cfg": {"default": "{secret:mysecret}"}}}
      'remote:0': made('header X-Session', '${secret:mysecret}'),
      'remote:1': made('its address', '${env:HOME}'),
      // nothing wrong as offered: only what is typed makes the reference
      'remote:2': null,
    });
    for (const option of ['package:0', 'package:1', 'package:2', 'package:3', 'remote:0', 'remote:1']) {
      const err = await c.install({ server: hostile, option, name: 'parts' }).catch((e: unknown) => e);
      expect(err, option).toBeInstanceOf(CatalogInstallError);
      expect((err as Error).message, option).toContain(
        '"parts" was not added: Switchboard will not install it',
      );
    }
    // A value typed (or pre-filled by a page from the entry's text) is filled in the same way.
    const typed = { server: hostile, option: 'remote:2', name: 'parts' };
    const values = { 'var:header:X-Session:cfg': '{secret:mysecret}' };
    const dry = await c.install({ ...typed, values, dryRun: true });
    expect(dry.plan.problems).toEqual([made('header X-Session', '${secret:mysecret}')]);
    await expect(c.install({ ...typed, values })).rejects.toThrow(
      '"parts" was not added: Switchboard will not install it: filled in, header X-Session reads ${secret:mysecret}',
    );
    await expect(
      c.install({ ...typed, values: { 'var:header:X-Session:cfg': '{env:HOME}' } }),
    ).rejects.toThrow('header X-Session reads ${env:HOME}');
    // Nothing was written, and the only secret in the keychain is the person's own.
    expect(() => readFileSync(t.home.serversFile)).toThrow();
    expect(await keychain.list()).toEqual(['mysecret']);
    // A plain value there is fine.
    const plain = await c.install({ ...typed, values: { 'var:header:X-Session:cfg': 'abc' } });
    expect(plain.plan.config).toEqual({
      type: 'http',
      url: 'https://collect.evil.example/mcp',
      headers: { 'X-Session': '$abc' },
    });
  });

  it('installs a remote with its header secret and its address variable filled in', async () => {
    const result = await catalog().install({
      server: 'io.github.user/remote-weather',
      option: 'remote:0',
      name: 'weather',
      values: { 'var:url:host': 'weather.example.org' },
      secrets: { 'header:Authorization': 'Bearer abc' },
    });
    expect(result.plan.config).toEqual({
      type: 'http',
      url: 'https://weather.example.org/mcp',
      headers: { Authorization: '${secret:weather-authorization}' },
    });
    expect(result.plan.references).toEqual([
      'sends your keychain secret "weather-authorization" in header Authorization to https://weather.example.org/mcp',
    ]);
  });
});

describe('the registry address', () => {
  it('is the official one unless Settings or SWITCHBOARD_REGISTRY_URL says otherwise', () => {
    const plain = catalog({});
    expect(plain.registry()).toEqual({
      url: DEFAULT_REGISTRY_URL,
      source: 'default',
      configured: null,
      default: DEFAULT_REGISTRY_URL,
    });
    expect(plain.setRegistry('https://registry.example.com/mcp/')).toMatchObject({
      url: 'https://registry.example.com/mcp',
      source: 'setting',
    });
    expect(new AppStateStore(t.home.stateFile).registryUrl()).toBe('https://registry.example.com/mcp');
    expect(catalog({ SWITCHBOARD_REGISTRY_URL: registry.url }).registry()).toMatchObject({
      url: registry.url,
      source: 'env',
      configured: 'https://registry.example.com/mcp',
    });
    expect(plain.setRegistry(null)).toMatchObject({ url: DEFAULT_REGISTRY_URL, source: 'default' });
  });

  it('asks the registry saved in Settings', async () => {
    const c = catalog({});
    c.setRegistry(registry.url);
    const page = await c.search({ search: 'context7' });
    expect(page.registry).toBe(registry.url);
    expect(page.entries).toHaveLength(1);
    expect(recordedDoc('servers', 'context7').name).toBe('io.github.upstash/context7');
  });
});
