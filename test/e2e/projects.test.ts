import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { fixtureServer } from '../helpers/servers.ts';
import type { TempHome } from '../helpers/temp-home.ts';
import { ARTIFACTS } from './browser.ts';
import { useSignedInServe, type SignedInServe } from './signed-in-serve.ts';

/**
 * Issue 35: the Projects section, in Chromium against a real `switchboard serve`. An editor (a real
 * SDK client) works in a repository folder with a .mcp.json: the section offers it as a project, and
 * adding it is the person's click. Then the project shows its folder, its file with the digest, its
 * server waiting for approval, the editor working in it; and Remove takes it away.
 */

let t: TempHome;
let page: Page;
let e2e: SignedInServe;
let acme = '';

const setup = useSignedInServe({
  name: 'projects',
  editorSyncNoticeAnswered: true,
  prepare(t) {
    const dir = join(t.dir, 'acme');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, '.mcp.json'),
      JSON.stringify({ mcpServers: { mini: fixtureServer('mini-server.mjs', '--tools=2') } }),
    );
    acme = realpathSync(dir);
    return undefined;
  },
});
beforeAll(() => {
  e2e = setup;
  ({ t, page } = setup);
});

/** A 2025-era editor on /mcp whose one root is `dir`. */
async function editorIn(dir: string): Promise<Client> {
  const token =
    (await runCli(['token', 'create', 'e2e-editor'], t.env)).stdout.trim().split('\n').at(-1) ?? '';
  const client = new Client({ name: 'e2e-editor', version: '1.0.0' }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [{ uri: pathToFileURL(dir).href }],
  }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${e2e.origin}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  e2e.defer(() => client.close());
  return client;
}

describe('the Projects section', () => {
  it('offers the folder an editor works in, adds it on a click, shows it, and removes it', async () => {
    await page.evaluate("window.location.hash = '#/projects'");
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await page.getByText('No projects yet').waitFor();

    await editorIn(acme);
    const offer = page.getByTestId('project-offer');
    await offer.waitFor({ timeout: 15_000 });
    expect(await offer.innerText()).toContain(
      `Folder ${acme} has MCP servers in .mcp.json — add it as a project?`,
    );
    await offer.getByRole('button', { name: 'Add as a project' }).click();

    const card = page.locator('article[data-project="acme"]');
    await card.waitFor({ timeout: 10_000 });
    await expect.poll(() => offer.count()).toBe(0);
    expect(await card.getByTestId('project-dir').innerText()).toBe(acme);
    expect(await card.getByTestId('project-files').innerText()).toMatch(
      new RegExp(`${join(acme, '.mcp.json')}\\s+sha256:[0-9a-f]{64}`),
    );
    await expect
      .poll(() => card.locator('tr[data-server="acme--mini"] .state').getAttribute('data-state'), {
        timeout: 10_000,
      })
      .toBe('pending-approval');
    // The editor whose roots are in the folder works in it now.
    await expect
      .poll(() => card.getByTestId('project-editors').innerText(), { timeout: 15_000 })
      .toContain('e2e-editor');
    await page.screenshot({ path: join(ARTIFACTS, 'projects.png'), fullPage: true });

    await card.getByRole('button', { name: 'Remove' }).click();
    await card.getByRole('button', { name: 'Remove acme' }).click();
    await page.getByText('No projects yet').waitFor({ timeout: 10_000 });
    const listed = await runCli(['projects', '--json'], t.env);
    expect(JSON.parse(listed.stdout)).toEqual({ projects: [], offers: [] });
  });

  it('adds a folder typed in, and says why one cannot be a project', async () => {
    await page.evaluate("window.location.hash = '#/projects'");
    const form = page.getByRole('form', { name: 'Add a project' });
    await form.getByLabel('Folder').fill(t.dir);
    await form.getByRole('button', { name: 'Add project' }).click();
    await form.getByText(/holds your home folder/).waitFor({ timeout: 10_000 });

    await form.getByLabel('Folder').fill(acme);
    await form.getByLabel('Name (optional)').fill('typed');
    await form.getByRole('button', { name: 'Add project' }).click();
    await page.locator('article[data-project="typed"]').waitFor({ timeout: 10_000 });
  });

  it("takes the value a project server's file asks for, keeps it in the keychain and never shows it", async () => {
    const dir = join(t.dir, 'beta');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, '.mcp.json'),
      JSON.stringify({
        mcpServers: { gh: { ...fixtureServer('mini-server.mjs'), env: { TOKEN: '${GITHUB_TOKEN}' } } },
      }),
    );
    expect((await runCli(['projects', 'add', dir], t.env)).code).toBe(0);
    await page.evaluate("window.location.hash = '#/projects'");
    const card = page.locator('article[data-project="beta"]');
    const field = card.getByLabel('Value for ${GITHUB_TOKEN} (its own, kept in the keychain)');
    await field.waitFor({ timeout: 15_000 });
    const value = 'e2e-given-value-7f3a';
    await field.fill(value);
    expect(await field.getAttribute('type')).toBe('password');
    // It waits for approval already: what runs names the value's own secret, given or not.
    await expect
      .poll(() => card.locator('tr[data-server="beta--gh"] .state').getAttribute('data-state'))
      .toBe('pending-approval');
    await card.getByRole('button', { name: 'Keep it' }).click();

    // Kept: the field is gone, and the value is shown nowhere.
    await field.waitFor({ state: 'detached', timeout: 15_000 });
    const listed = JSON.parse((await runCli(['projects', '--json'], t.env)).stdout) as {
      projects: { name: string; needs: Record<string, string[]> }[];
    };
    expect(listed.projects.find((p) => p.name === 'beta')?.needs).toEqual({});
    expect(JSON.stringify(listed)).not.toContain(value);
    // In the keychain, as that server's own secret.
    const secrets = JSON.parse((await runCli(['secret', 'list', '--json'], t.env)).stdout) as {
      secrets: { name: string; stored: boolean }[];
    };
    expect(secrets.secrets.find((x) => x.name === 'project.beta--gh.GITHUB_TOKEN')?.stored).toBe(true);

    // Its approval card shows the secret of its own passed on, by name.
    await card.getByRole('link', { name: 'Review and approve' }).click();
    const approval = page.locator('article[data-approval="beta--gh"]');
    await approval.waitFor({ timeout: 10_000 });
    expect(await approval.getByTestId('approval-command').textContent()).toContain(
      'env TOKEN=${secret:project.beta--gh.GITHUB_TOKEN}',
    );
    expect(await page.content()).not.toContain(value);
    await page.screenshot({ path: join(ARTIFACTS, 'projects-give.png'), fullPage: true });
  });
});
