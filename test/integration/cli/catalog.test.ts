import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { CatalogPageSchema } from '../../../shared/catalog.ts';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { exited, runCli, startServe } from '../../helpers/cli.ts';
import { startFakeNpmRegistry } from '../../helpers/fake-npm-registry.ts';
import { recorded, startFakeRegistry, type FakeRegistry } from '../../helpers/fake-registry.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

/**
 * `switchboard catalog …` as a person runs it (a real process, the real keychain), against a local fake
 * of the MCP Registry: search, show, add with secrets from stdin, what it asks for when something is
 * missing, and add through a running `serve` (the approval then says where the server came from).
 */

const ECHO = 'io.github.switchboard-fixtures/catalog-echo';
const TOKEN = 'echo-' + 'Vb7Qm2Xk9LrTz4Wn8Hc1Yp6Ds3Ga5UeJoFi0';
const keychain = new OsKeychain();
let t: TempHome;
let registry: FakeRegistry;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  t = tempHome();
  registry = await startFakeRegistry([
    ...recorded('servers').values(),
    ...recorded('examples').values(),
    ...recorded('e2e').values(),
    ...recorded('hostile').values(),
  ]);
  env = { ...t.env, SWITCHBOARD_REGISTRY_URL: registry.url };
});

afterEach(async () => {
  for (const name of [
    'catalog-echo-echo_api_token',
    'echo-echo_api_token',
    'weather-weather_api_key',
    'db-db_password',
    'gh020-token',
  ])
    await keychain.delete(name).catch(() => false);
  await registry.close();
  t.cleanup();
});

function servers(): Record<string, unknown> {
  return (JSON.parse(readFileSync(t.home.serversFile, 'utf8')) as { mcpServers: Record<string, unknown> })
    .mcpServers;
}

describe('switchboard catalog', () => {
  it('searches the registry: a table, or --json', async () => {
    const found = await runCli(['catalog', 'search', 'context7'], env);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout.split('\n')[0]).toMatch(/^NAME\s+VERSION\s+RUNS WITH\s+DESCRIPTION$/);
    expect(found.stdout).toMatch(
      /io\.github\.upstash\/context7\s+2\.0\.0\s+npm,other,remote\s+Up-to-date code docs for any prompt/,
    );
    const json = await runCli(['catalog', 'search', 'context7', '--json'], env);
    const page = CatalogPageSchema.parse(JSON.parse(json.stdout));
    expect(page.entries.map((e) => e.name)).toEqual(['io.github.upstash/context7']);
    const none = await runCli(['catalog', 'search', 'no-such-thing-anywhere'], env);
    expect(none.stdout).toBe('No server in the registry matches "no-such-thing-anywhere".\n');
  });

  it('shows how a server runs and what it needs, and a missing runtime plainly', async () => {
    const shown = await runCli(['catalog', 'show', 'io.github.example/weather-mcp'], {
      ...env,
      PATH: '/nonexistent',
    });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Weather — io.github.example/weather-mcp 0.5.0');
    expect(shown.stdout).toContain('1. PyPI package weather-mcp-server 0.5.0  (offered first)   --via pypi');
    expect(shown.stdout).toContain('needs uvx, which is not installed');
    expect(shown.stdout).toContain(
      '✗ uvx is not installed (it comes with uv: https://docs.astral.sh/uv/getting-started/installation/)',
    );
    expect(shown.stdout).toContain(
      '- WEATHER_API_KEY: env WEATHER_API_KEY (required, secret) — API key for weather service',
    );
    expect(shown.stdout).toContain('- WEATHER_UNITS: env WEATHER_UNITS (optional, default celsius)');
    const added = await runCli(
      ['catalog', 'add', 'io.github.example/weather-mcp'],
      { ...env, PATH: '/nonexistent' },
      'key',
    );
    expect(added.code).toBe(1);
    expect(added.stderr).toContain(
      'cannot be added as PyPI package weather-mcp-server 0.5.0: uvx is not installed',
    );
    expect(await keychain.get('weather-weather_api_key')).toBeUndefined();
  });

  it('adds a server pending approval, its secret read from stdin into the keychain', async () => {
    const added = await runCli(
      ['catalog', 'add', ECHO, '--set', 'greeting=hello there', '--name', 'echo'],
      env,
      `${TOKEN}\n`,
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(
      'ECHO_API_TOKEN: stored in the keychain as ${secret:echo-echo_api_token}.',
    );
    expect(added.stdout).toMatch(
      /command: \S*npx -y switchboard-catalog-echo@1\.0\.0 --greeting 'hello there'/,
    );
    expect(added.stdout + added.stderr).not.toContain(TOKEN);
    expect(servers().echo).toEqual({
      command: 'npx',
      args: ['-y', 'switchboard-catalog-echo@1.0.0', '--greeting', 'hello there'],
      env: { ECHO_API_TOKEN: '${secret:echo-echo_api_token}' },
    });
    expect(await keychain.get('echo-echo_api_token')).toBe(TOKEN);
    const status = await runCli(['status'], env);
    expect(status.stdout).toMatch(/echo\s+pending-approval/);
  });

  it('takes several secrets from stdin as KEY=VALUE lines', async () => {
    const added = await runCli(
      [
        'catalog',
        'add',
        'io.github.example/database-manager',
        '--name',
        'db',
        '--set',
        'db_type=postgres',
        '--set',
        'database_name=shop',
        '--set',
        'DB_USERNAME=app',
      ],
      env,
      'DB_PASSWORD=s3cr3t-pw\n',
    );
    expect(added.code, added.stderr).toBe(0);
    expect(servers().db).toMatchObject({
      command: 'docker',
      env: { DB_USERNAME: 'app', DB_PASSWORD: '${secret:db-db_password}', SSL_MODE: 'prefer' },
    });
    expect(await keychain.get('db-db_password')).toBe('s3cr3t-pw');
  });

  it("builds the docker command the official GitHub server's entry means (it repeats run, -i, --rm and the image)", async () => {
    const name = 'io.github.github/github-mcp-server';
    const added = await runCli(
      ['catalog', 'add', name, '--version', '0.20.0', '--name', 'gh020'],
      env,
      'ghp_' + 'Vb7Qm2Xk9LrTz4Wn8Hc1Yp6Ds3Ga5UeJoFi0',
    );
    expect(added.code, added.stderr).toBe(0);
    expect(servers().gh020).toEqual({
      command: 'docker',
      args: [
        'run',
        '-i',
        '--rm',
        '-e',
        'GITHUB_PERSONAL_ACCESS_TOKEN',
        'ghcr.io/github/github-mcp-server:0.20.0',
      ],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${secret:gh020-token}' },
    });
    // What it prints to be approved is that command, once.
    expect(added.stdout).toMatch(
      /docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN ghcr\.io\/github\/github-mcp-server:0\.20\.0\n/,
    );
  });

  it('says what is missing and how to give it, and adds nothing', async () => {
    const missing = await runCli(['catalog', 'add', ECHO], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('✗ greeting is required (--set greeting=…)');
    expect(missing.stderr).toContain(
      '✗ ECHO_API_TOKEN is required (give it at the prompt, or on stdin as ECHO_API_TOKEN=…)',
    );
    expect(missing.stderr).toContain('Nothing was added.');
    expect(() => readFileSync(t.home.serversFile)).toThrow();
    const onCommandLine = await runCli(['catalog', 'add', ECHO, '--set', `ECHO_API_TOKEN=${TOKEN}`], env);
    expect(onCommandLine.code).toBe(2);
    expect(onCommandLine.stderr).toContain('ECHO_API_TOKEN is a secret: do not put it on the command line');
    const unknown = await runCli(['catalog', 'add', ECHO, '--set', 'colour=red'], env);
    expect(unknown.stderr).toContain('--set: "colour" is not one of its settings (greeting, ECHO_API_TOKEN)');
  });

  it('refuses a hostile entry with why', async () => {
    const added = await runCli(['catalog', 'add', 'io.example.hostile/npm-flag'], env);
    expect(added.code).toBe(1);
    expect(added.stderr).toContain(
      'cannot be added as npm package --registry=https://evil.example/ 1.0.0: Switchboard will not install this package: "--registry=https://evil.example/" is not an npm package name',
    );
  });

  it('says clearly when the registry answers nonsense', async () => {
    registry.mode = 'html';
    const result = await runCli(['catalog', 'search', 'x'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `switchboard catalog: the registry at ${registry.url} answered text/html, not JSON — is this address an MCP registry (API v0.1)? A captive portal or proxy page looks like this too\n`,
    );
  });

  it('shows and sets the registry address', async () => {
    const plain = { ...env };
    delete plain.SWITCHBOARD_REGISTRY_URL;
    expect((await runCli(['catalog', 'registry'], plain)).stdout).toBe(
      'The catalog asks https://registry.modelcontextprotocol.io (the official registry).\n',
    );
    expect((await runCli(['catalog', 'registry', registry.url], plain)).stdout).toBe(
      `The catalog asks ${registry.url} (set in Switchboard).\n`,
    );
    expect((await runCli(['catalog', 'search', 'context7'], plain)).stdout).toContain(
      'io.github.upstash/context7',
    );
    expect((await runCli(['catalog', 'registry', '--default'], plain)).stdout).toContain(
      '(the official registry)',
    );
  });

  describe('with Switchboard running', () => {
    let serve: { child: ChildProcess; output: () => string } | undefined;
    afterEach(async () => {
      if (serve && serve.child.exitCode === null) {
        serve.child.kill('SIGTERM');
        await exited(serve.child);
      }
    });

    it('adds through the running instance, and the approval says it came from the catalog', async () => {
      // The approval resolves the npm package (the package store): from the local npm registry.
      const npm = await startFakeNpmRegistry(['switchboard-catalog-echo']);
      onTestFinished(() => npm.close());
      const withNpm = { ...env, ...npm.npmEnv(join(t.dir, 'npm-cache')) };
      serve = await startServe(withNpm);
      const added = await runCli(['catalog', 'add', ECHO, '--set', 'greeting=hi'], env, TOKEN);
      expect(added.code, added.stderr).toBe(0);
      const approve = await runCli(['approve', 'catalog-echo'], withNpm);
      expect(approve.stdout).toContain(
        '"catalog-echo" (waiting for approval; from the MCP Registry catalog) would run exactly:',
      );
      expect(await keychain.get('catalog-echo-echo_api_token')).toBe(TOKEN);
    });

    it("honours the command's SWITCHBOARD_REGISTRY_URL though serve was started without it", async () => {
      const plain = { ...env };
      delete plain.SWITCHBOARD_REGISTRY_URL;
      serve = await startServe(plain);
      const shown = await runCli(['catalog', 'registry'], env);
      expect(shown.stdout).toBe(`The catalog asks ${registry.url} (from SWITCHBOARD_REGISTRY_URL).\n`);
      const found = await runCli(['catalog', 'search', 'context7', '--json'], env);
      expect(found.code, found.stderr).toBe(0);
      const page = CatalogPageSchema.parse(JSON.parse(found.stdout));
      expect(page.registry).toBe(registry.url);
      expect(page.entries.map((e) => e.name)).toContain('io.github.upstash/context7');
      const added = await runCli(['catalog', 'add', ECHO, '--set', 'greeting=hi'], env, TOKEN);
      expect(added.code, added.stderr).toBe(0);
      expect(servers()['catalog-echo']).toBeDefined();
      // serve's own setting is untouched: without the variable, the official registry.
      expect((await runCli(['catalog', 'registry'], plain)).stdout).toContain('(the official registry)');
    });
  });
});
