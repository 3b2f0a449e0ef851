import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { OsKeychain } from '../../electron/core/secrets/keychain.ts';
import { httpClient, textOf } from '../helpers/bridge.ts';
import { startFakeNpmRegistry, type FakeNpmRegistry } from '../helpers/fake-npm-registry.ts';
import { recorded, startFakeRegistry, type FakeRegistry } from '../helpers/fake-registry.ts';
import { waitFor } from '../helpers/servers.ts';
import type { TempHome } from '../helpers/temp-home.ts';
import { screenshot } from './screenshots.ts';
import { useSignedInServe, VIEWPORT } from './signed-in-serve.ts';

/**
 * The Catalog end to end, in Chromium against a real `switchboard serve`: search the registry (a local
 * fake of the MCP Registry's v0.1 API serving recorded server.json documents), open a server, fill in
 * its argument and its secret, install, approve the exact command shown, and see the server run and
 * reach Zed — with nothing from the internet.
 *
 * What runs is real: `npx -y switchboard-catalog-echo@1.0.0`, installed by npm from a local npm
 * registry (test/helpers/fake-npm-registry.ts) that serve's environment names with npm's own
 * `npm_config_registry`, as a company's private mirror would be. Servers run with a PATH of just
 * `node`, `npx` and `sh`, so the runtimes the test expects missing (uvx, docker) are missing on any
 * machine.
 */

const ECHO = 'io.github.switchboard-fixtures/catalog-echo';
const GREETING = 'hello from the catalog';
const TOKEN = `catalog-e2e-${Math.random().toString(36).slice(2)}-token`;
const SECRET_NAME = 'catalog-echo-echo_api_token';
const ZED_SETTINGS = '// my Zed settings\n{\n  "theme": "One Dark", // keep me\n  "context_servers": {}\n}\n';

let t: TempHome;
let registry: FakeRegistry;
let npm: FakeNpmRegistry;
let page: Page;
let origin: string;
let bin: string;
const keychain = new OsKeychain();
let consoleProblems: string[];

function zedFile(): string {
  return join(t.dir, 'user', '.config', 'zed', 'settings.json');
}

/** A screenshot; with `docs` also for docs/screenshots, the local registries shown as the real ones. */
function shot(name: string, docs?: string): Promise<void> {
  const also: [string, string][] = [
    [registry.url, 'https://registry.modelcontextprotocol.io'],
    [bin, '/usr/local/bin'],
  ];
  return screenshot(page, name, docs ? { as: docs, home: t, also } : undefined);
}

async function go(hash: string): Promise<void> {
  await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
}

const e2e = useSignedInServe({
  name: 'catalog',
  viewport: VIEWPORT,
  editorSyncNoticeAnswered: true,
  async prepare(t, defer) {
    defer(() => keychain.delete(SECRET_NAME).catch(() => false));
    registry = await startFakeRegistry([
      ...recorded('servers').values(),
      ...recorded('examples').values(),
      ...recorded('e2e').values(),
    ]);
    defer(() => registry.close());
    npm = await startFakeNpmRegistry(['switchboard-catalog-echo']);
    defer(() => npm.close());
    // The programs servers may use: node, npx and the sh npx runs packages with; no uvx, no docker.
    bin = join(t.dir, 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    const npx = ['/usr/bin/npx', '/usr/local/bin/npx'].find((p) => existsSync(p));
    if (!npx) throw new Error('npx is not installed: the catalog test installs its server with npx');
    symlinkSync(npx, join(bin, 'npx'));
    symlinkSync('/bin/sh', join(bin, 'sh'));
    mkdirSync(join(t.dir, 'user', '.config', 'zed'), { recursive: true });
    writeFileSync(join(t.dir, 'user', '.config', 'zed', 'settings.json'), ZED_SETTINGS);
    return {
      PATH: bin,
      SWITCHBOARD_REGISTRY_URL: registry.url,
      ...npm.npmEnv(join(t.dir, 'npm-cache')),
    };
  },
});
beforeAll(async () => {
  ({ t, page, origin, problems: consoleProblems } = e2e);
  await page.getByRole('heading', { name: 'Servers', exact: true }).waitFor();
});

describe('the Catalog in Chromium against a real `switchboard serve`', () => {
  it('searches the registry', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Catalog' }).click();
    await page.getByRole('heading', { name: 'Catalog', exact: true }).waitFor();
    const results = page.getByTestId('catalog-results');
    await results.waitFor();
    expect(await page.getByTestId('catalog-freshness').textContent()).toContain(`Live from ${registry.url}.`);
    await page.mouse.move(0, 0);
    await shot('catalog-01-list');

    const search = page.getByRole('searchbox', { name: 'Search the registry' });
    await search.fill('search');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => results.locator('li.catalog-entry').count()).toBe(5);
    await results.locator('li[data-entry="io.github.exa-labs/exa-mcp-server"]').waitFor();
    await search.blur();
    await page.mouse.move(0, 0);
    await shot('catalog-01-search', 'catalog');

    await search.fill('echo');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => results.locator('li.catalog-entry').count()).toBe(1);
    const entry = results.locator(`li[data-entry="${ECHO}"]`);
    expect(await entry.locator('.catalog-entry-title').textContent()).toBe('Catalog Echo');
    expect(await entry.getByRole('list', { name: 'Runs as' }).textContent()).toBe('npm');
    expect(registry.requests.at(-1)).toBe('/v0.1/servers?version=latest&limit=30&search=echo');
  });

  it('says plainly what cannot run here before anything is installed', async () => {
    await go(`#/catalog/${encodeURIComponent('io.github.containers/kubernetes-mcp-server')}`);
    const problems = page.getByTestId('option-problem');
    await expect.poll(() => problems.count()).toBe(2);
    expect(await problems.allTextContents()).toEqual([
      '✗ uvx is not installed (it comes with uv: https://docs.astral.sh/uv/getting-started/installation/). Install it, or choose another way to run this server.',
      '✗ this package serves MCP over streamable-http at http://localhost:8080/mcp, and Switchboard runs local servers over stdio: choose another way to run it',
    ]);
    await page.getByRole('radio', { name: /PyPI package kubernetes-mcp-server/ }).check();
    await page
      .getByTestId('catalog-install')
      .getByText('This way of running it cannot be installed here.')
      .waitFor();
    expect(await page.getByRole('button', { name: /^Install/ }).count()).toBe(0);
    await shot('catalog-02-missing-runtime');

    // A view for the docs: a server with a remote, a package and a bundle, its key typed (never shown).
    await go(`#/catalog/${encodeURIComponent('io.github.upstash/context7')}`);
    await page.getByLabel(/^CONTEXT7_API_KEY/).fill('ctx7sk-example-key');
    await expect
      .poll(() => page.getByTestId('catalog-command').textContent())
      .toContain('env CONTEXT7_API_KEY=${secret:context7-context7_api_key}');
    await page.mouse.move(0, 0);
    await page.getByLabel(/^CONTEXT7_API_KEY/).blur();
    await shot('catalog-03-context7', 'catalog-install');
  });

  it('installs: the argument and the secret asked for, the exact command shown, the secret to the keychain', async () => {
    await go('#/catalog');
    await page.locator(`li[data-entry="${ECHO}"] a`).click();
    await page.getByRole('heading', { name: 'Catalog Echo', exact: true }).waitFor();
    const form = page.getByTestId('catalog-install');
    await form.waitFor();
    expect(await page.getByLabel('Name in Switchboard').inputValue()).toBe('catalog-echo');
    // Install before filling in: what is missing is said at its field, nothing is written.
    await page.getByRole('button', { name: 'Install catalog-echo' }).click();
    await form.getByText('greeting is required').waitFor();
    await form.getByText('ECHO_API_TOKEN is required').waitFor();
    expect(
      existsSync(t.home.serversFile) && readFileSync(t.home.serversFile, 'utf8').includes('catalog-echo'),
    ).toBe(false);

    await page.getByLabel(/^greeting/).fill(GREETING);
    const secret = page.getByLabel(/^ECHO_API_TOKEN/);
    expect(await secret.getAttribute('type')).toBe('password');
    await secret.fill(TOKEN);
    const command = `command: ${join(bin, 'npx')} -y switchboard-catalog-echo@1.0.0 --greeting 'hello from the catalog'`;
    await expect.poll(() => page.getByTestId('catalog-command').textContent()).toContain(command);
    const shown = (await page.getByTestId('catalog-command').textContent()) ?? '';
    expect(shown).toContain(`env ECHO_API_TOKEN=\${secret:${SECRET_NAME}}`);
    await shot('catalog-04-install-filled');

    await page.getByRole('button', { name: 'Install catalog-echo' }).click();
    // Installed: the approval card, with the same command and where it came from.
    const card = page.locator('article[data-approval="catalog-echo"]');
    await card.waitFor();
    expect(page.url()).toBe(`${origin}/#/approvals/catalog-echo`);
    expect(await card.getByTestId('approval-command').textContent()).toBe(shown);
    await card.getByText('the Catalog (the MCP Registry)').waitFor();
    expect(await keychain.get(SECRET_NAME)).toBe(TOKEN);
    const written = readFileSync(t.home.serversFile, 'utf8');
    expect(written).not.toContain(TOKEN);
    expect(JSON.parse(written).mcpServers['catalog-echo']).toEqual({
      command: 'npx',
      args: ['-y', 'switchboard-catalog-echo@1.0.0', '--greeting', GREETING],
      env: { ECHO_API_TOKEN: `\${secret:${SECRET_NAME}}` },
    });
    await shot('catalog-05-approval');
  });

  it('approved, it runs (npx installs it from the local npm registry) and Zed reaches it', async () => {
    const card = page.locator('article[data-approval="catalog-echo"]');
    await card.getByRole('button', { name: 'Approve catalog-echo' }).click();
    await page.getByText('Nothing waits for approval').waitFor();
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: /^Servers/ })
      .click();
    const row = page.locator('tbody[data-server="catalog-echo"]');
    await waitFor(
      async () => (await row.locator('.state').getAttribute('data-state')) === 'running',
      90_000,
      'catalog-echo running',
    );
    expect(npm.requests).toContain('/switchboard-catalog-echo/-/switchboard-catalog-echo-1.0.0.tgz');

    // Editors synced: Zed got an entry for it (its own settings kept), and through that entry the
    // server answers with the greeting and the secret it was given from the keychain.
    const entry = await waitFor(
      () => {
        const settings = parseJsonc(readFileSync(zedFile(), 'utf8')) as {
          context_servers?: Record<string, { url: string; headers: Record<string, string> }>;
        };
        return settings.context_servers?.['catalog-echo'];
      },
      20_000,
      'Zed synced',
    );
    expect(readFileSync(zedFile(), 'utf8')).toContain('// keep me');
    expect(readFileSync(zedFile(), 'utf8')).not.toContain(TOKEN);
    const bearer = (entry.headers.Authorization ?? '').replace(/^Bearer /, '');
    const client = await httpClient(entry.url, bearer, 'zed');
    try {
      const answer = textOf(await client.callTool({ name: 'whoami', arguments: {} }));
      const digest = createHash('sha256').update(TOKEN).digest('hex').slice(0, 16);
      expect(answer).toBe(`greeting=${GREETING}; token sha256=${digest}`);
    } finally {
      await client.close();
    }
    await page.mouse.move(0, 0);
    await shot('catalog-06-running');
    expect(consoleProblems).toEqual([]);
  });

  it('keeps working from the cache when the registry goes down, saying how old it is', async () => {
    await registry.close();
    await page.goto(`${origin}/#/catalog`);
    const banner = page.getByTestId('catalog-freshness');
    await banner.waitFor();
    // A fresh cached answer is shown as it is; Refresh asks the registry, which is down now.
    await page.getByRole('button', { name: 'Refresh' }).click();
    await banner
      .getByText('The registry cannot be used right now; this is what the catalog saw earlier.')
      .waitFor();
    expect(await banner.textContent()).toMatch(
      /From the cache, (less than a minute|\d+ minutes?) old: cannot reach the registry at http:\/\/127\.0\.0\.1:\d+: /,
    );
    expect(await page.getByTestId('catalog-results').locator('li.catalog-entry').count()).toBeGreaterThan(0);
    await shot('catalog-07-offline');
  });
});
