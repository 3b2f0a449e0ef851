import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_KEYCHAIN_SERVICE } from '../../electron/core/oauth/sign-in-store.ts';
import { OsKeychain } from '../../electron/core/secrets/keychain.ts';
import { httpClient, textOf } from '../helpers/bridge.ts';
import { runCli } from '../helpers/cli.ts';
import { filesContaining, startOAuthFixture, type OAuthFixture } from '../helpers/oauth-server.ts';
import { HANG_MS, waitFor } from '../helpers/servers.ts';
import type { TempHome } from '../helpers/temp-home.ts';
import { ARTIFACTS } from './browser.ts';
import { screenshot } from './screenshots.ts';
import { useSignedInServe, VIEWPORT } from './signed-in-serve.ts';

/**
 * Signing in to a remote server from the UI, end to end: Debian's Chromium against a real
 * `switchboard serve`, and an OAuth-protected MCP server built on the SDK's own auth router
 * (test/fixtures/oauth-server.mjs) whose authorization page asks the person to allow access. The
 * person adds the server, approves it, clicks "Sign in", allows access in the tab that opens, and an
 * editor's tool call through the bridge then succeeds — while no token lands in any file.
 */

// Sign-ins live in the keychain under the server's name: tests share the keyring, so one of its own.
const NAME = 'notes';

let t: TempHome;
let fixture: OAuthFixture;
let serve: { child: ChildProcess; output: () => string };
let context: BrowserContext;
let page: Page;
let origin: string;
/** Errors the page threw (its console errors are not counted here). */
const pageErrors = () => e2e.problems.filter((p) => p.startsWith('pageerror: '));

/** A screenshot; with `docs` also for docs/screenshots, the fixture's random port shown as a real host. */
function shot(name: string, docs?: string): Promise<void> {
  const also: [string, string][] = [[fixture.origin, 'https://notes.example.com']];
  return screenshot(page, name, docs ? { as: docs, home: t, also } : undefined);
}

function nav(section: 'Servers' | 'Approvals') {
  return page
    .getByRole('navigation', { name: 'Sections' })
    .getByRole('link', { name: new RegExp(`^${section}`) });
}

async function stateOf(name: string): Promise<string | null> {
  return page.locator(`tbody[data-server="${name}"] .state`).getAttribute('data-state');
}

const e2e = useSignedInServe({
  name: 'sign-in',
  viewport: VIEWPORT,
  editorSyncNoticeAnswered: true,
  async prepare(_t, defer) {
    fixture = await startOAuthFixture();
    defer(() => fixture.stop());
    defer(() => new OsKeychain({ service: SIGN_IN_KEYCHAIN_SERVICE }).delete(NAME).catch(() => false));
  },
});
beforeAll(async () => {
  ({ t, serve, context, page, origin } = e2e);
  await page.getByRole('heading', { name: 'Servers', exact: true }).waitFor();
}, HANG_MS); // a serve start on a busy machine: waited for, not raced

describe('signing in to a remote server from the UI', { timeout: HANG_MS }, () => {
  it('adds and approves a remote server; it then waits for a sign-in, in Servers and in Approvals', async () => {
    await page.getByRole('link', { name: 'Add server' }).first().click();
    await page.getByLabel('Name').fill(NAME);
    await page.getByLabel('Remote URL').check();
    await page.getByLabel('URL', { exact: true }).fill(fixture.url);
    await page.getByRole('button', { name: 'Add server' }).click();
    await page.getByText('Waiting for your approval.').waitFor();

    await nav('Approvals').click();
    const card = page.locator(`article[data-approval="${NAME}"]`);
    await card.getByRole('button', { name: `Approve ${NAME}` }).click();
    const signIn = page.locator(`article[data-sign-in="${NAME}"]`);
    await signIn.waitFor({ timeout: HANG_MS });
    await page.getByRole('heading', { name: 'Waiting for you to sign in' }).waitFor();
    expect(await page.getByText('Nothing waits for approval').count()).toBe(0);
    await expect.poll(() => page.getByTestId('approvals-badge').textContent()).toBe('1');
    await shot('sign-in-01-approvals');

    await nav('Servers').click();
    await waitFor(async () => (await stateOf(NAME)) === 'needs-sign-in', HANG_MS, `${NAME} needs-sign-in`);
    expect(await page.locator(`tbody[data-server="${NAME}"] .state`).textContent()).toContain(
      'needs sign-in',
    );
    await page
      .locator(`tbody[data-server="${NAME}"]`)
      .getByRole('button', { name: `Sign in to ${NAME}` })
      .waitFor();
    await shot('sign-in-02-servers', 'sign-in-needed');
  });

  it('signs in: the authorization page opens in a new tab, the person allows access, the server runs', async () => {
    await page.locator(`tbody[data-server="${NAME}"] a`, { hasText: NAME }).click();
    await page.getByTestId('sign-in-panel').waitFor();
    await page.getByText(`${NAME} needs you to sign in.`).waitFor();

    const opened = context.waitForEvent('page');
    await page
      .getByTestId('sign-in-panel')
      .getByRole('button', { name: `Sign in to ${NAME}` })
      .click();
    const tab = await opened;
    await tab.waitForURL(/\/authorize\?/);
    const authorize = new URL(tab.url());
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(authorize.searchParams.get('resource')).toBe(fixture.url);
    expect(authorize.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    // The tab cannot reach back into Switchboard's page.
    expect(await tab.evaluate('window.opener')).toBeNull();
    await page.getByText(`Finish signing in to ${NAME} in your browser.`).waitFor();

    await tab.getByRole('button', { name: 'Allow' }).click();
    await tab.getByRole('heading', { name: `Signed in to ${NAME}` }).waitFor();
    expect(new URL(tab.url()).hostname).toBe('127.0.0.1');
    await tab.screenshot({ path: join(ARTIFACTS, 'sign-in-03-browser-done.png') });
    await tab.close();

    await page.getByText(`Signed in to ${NAME}.`).waitFor();
    await page.getByTestId('sign-in-panel').getByText('Signed in', { exact: true }).waitFor();
    await page.locator('h1 .state[data-state="running"]').waitFor({ timeout: HANG_MS });
    await shot('sign-in-04-signed-in', 'signed-in');
    expect(await page.getByTestId('sign-in-panel').textContent()).toContain('mcp:tools');
  });

  it("an editor's tool call through the bridge then succeeds, and no token is in any file", async () => {
    const created = await runCli(['token', 'create', 'e2e-editor'], t.env);
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.trim().split('\n').at(-1) ?? '';
    const client = await httpClient(`${origin}/mcp/${NAME}`, token);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'from an editor' } }))).toBe(
      'signed-in echo: from an editor',
    );
    await client.close();

    const secrets = await fixture.issuedSecrets();
    expect(secrets.length).toBeGreaterThanOrEqual(2);
    expect(filesContaining(t.dir, secrets)).toEqual([]);
    expect(secrets.filter((s) => serve.output().includes(s))).toEqual([]);
    expect(pageErrors()).toEqual([]);
  });

  it('"Sign in again" asks the person again, though the tokens held still work', async () => {
    const before = (await fixture.state()).counts.authorizations;
    const opened = context.waitForEvent('page');
    await page
      .getByTestId('sign-in-panel')
      .getByRole('button', { name: `Sign in again to ${NAME}` })
      .click();
    const tab = await opened;
    await tab.getByRole('button', { name: 'Allow' }).click();
    await tab.getByRole('heading', { name: `Signed in to ${NAME}` }).waitFor();
    await tab.close();
    await page.getByText(`Signed in to ${NAME}.`).waitFor();
    expect((await fixture.state()).counts.authorizations).toBe(before + 1);
    await page.locator('h1 .state[data-state="running"]').waitFor({ timeout: HANG_MS });
  });

  it('signs out from the UI: the server waits for a sign-in again', async () => {
    const panel = page.getByTestId('sign-in-panel');
    await panel.getByRole('button', { name: 'Sign out' }).click();
    await panel.getByRole('button', { name: `Sign out of ${NAME}` }).click();
    await page.locator('h1 .state[data-state="needs-sign-in"]').waitFor({ timeout: HANG_MS });
    await panel.getByText('Not signed in.').waitFor();
  });
});
