import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { fixtureServer } from '../helpers/servers.ts';
import type { TempHome } from '../helpers/temp-home.ts';
import { ARTIFACTS } from './browser.ts';
import { useSignedInServe } from './signed-in-serve.ts';

/**
 * A project server whose file asks for a value (`${GH<U+200B>TOKEN}`: the repository hid a zero-width
 * space in its name), in Chromium against a real `switchboard serve` and the real keychain: its
 * approval card says it cannot start until the value is given and takes the value itself, kept as
 * that server's own keychain secret and never shown again; Approve stays possible, before the value
 * too; the Projects row keeps the same field for a server approved before its value was given.
 */

let t: TempHome;
let page: Page;
/** Every answer of the control API the page read (the value must be in none of them). */
const answers: Promise<string>[] = [];

/** The request as the repository wrote it: a zero-width space hides inside the variable's name. */
const REQUEST = '${GH\u200bTOKEN}';
/** The same, as a person is shown it. */
const SHOWN = '${GH\\u{200B}TOKEN}';
const FIELD = `Value for ${SHOWN} (its own, kept in the keychain)`;

const setup = useSignedInServe({ name: 'project-approval', editorSyncNoticeAnswered: true });
beforeAll(() => {
  ({ t, page } = setup);
  page.on('response', (res) => {
    const path = new URL(res.url()).pathname;
    // (the event stream never ends while the page is open: it carries names only)
    if (path.startsWith('/api/') && path !== '/api/events') answers.push(res.text().catch(() => ''));
  });
});

/** A project folder whose .mcp.json has one server `gh` asking for REQUEST, added as project `name`. */
async function project(name: string): Promise<void> {
  const dir = join(t.dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, '.mcp.json'),
    JSON.stringify({
      mcpServers: { gh: { ...fixtureServer('env-echo-server.mjs', 'TOKEN'), env: { TOKEN: REQUEST } } },
    }),
  );
  const added = await runCli(['projects', 'add', dir], t.env);
  expect(added.code, added.stderr).toBe(0);
}

async function stateOf(server: string): Promise<string | undefined> {
  const status = JSON.parse((await runCli(['status', '--json'], t.env)).stdout) as {
    servers: { name: string; state: string }[];
  };
  return status.servers.find((s) => s.name === server)?.state;
}

async function storedSecrets(): Promise<string[]> {
  const listed = JSON.parse((await runCli(['secret', 'list', '--json'], t.env)).stdout) as {
    secrets: { name: string; stored: boolean }[];
  };
  return listed.secrets.filter((s) => s.stored).map((s) => s.name);
}

describe("a project server's approval card", () => {
  it('says it cannot start until the value is given, takes the value, and approves what runs', async () => {
    await project('beta');
    await page.evaluate("window.location.hash = '#/approvals/beta--gh'");
    const card = page.locator('article[data-approval="beta--gh"]');
    await card.waitFor({ timeout: 15_000 });
    const secret = 'project.beta--gh.GH_TOKEN';
    expect(await card.getByTestId('approval-command').textContent()).toContain(
      `env TOKEN=\${secret:${secret}}`,
    );
    const notice = card.getByTestId('approval-needs-notice');
    expect(await notice.innerText()).toContain('beta--gh cannot start until you give it this value.');
    expect(await notice.innerText()).toContain(secret);
    // Said once: not again as a generic missing keychain secret.
    expect(await card.getByTestId('approval-will-not-start').count()).toBe(0);
    // The request's hidden character is written out in the field's name.
    const field = card.getByLabel(FIELD);
    expect(await field.getAttribute('type')).toBe('password');
    expect(await card.innerText()).not.toContain(REQUEST);
    // Approving does not wait for the value.
    const approve = card.getByRole('button', { name: 'Approve beta--gh' });
    expect(await approve.isEnabled()).toBe(true);

    const value = 'e2e-card-value-5c1d';
    await field.fill(value);
    await card.getByRole('button', { name: 'Keep it' }).click();
    // Kept: the section goes, the card stays as it was (the config did not change), nothing echoes it.
    await card.getByTestId('approval-needs').waitFor({ state: 'detached', timeout: 15_000 });
    expect(await card.getByTestId('approval-changed').count()).toBe(0);
    expect(await storedSecrets()).toContain(secret);
    expect(await page.content()).not.toContain(value);
    // The lists read after it was kept (approvals, projects, status) do not carry it either.
    expect((await Promise.all(answers)).join('\n')).not.toContain(value);
    await page.screenshot({ path: join(ARTIFACTS, 'project-approval-given.png'), fullPage: true });

    await approve.click();
    await card.waitFor({ state: 'detached', timeout: 15_000 });
    await expect.poll(() => stateOf('beta--gh'), { timeout: 30_000 }).toBe('running');
  });

  it('approves before the value is given; the server then waits, and the Projects row takes the value', async () => {
    await project('gamma');
    await page.evaluate("window.location.hash = '#/approvals/gamma--gh'");
    const card = page.locator('article[data-approval="gamma--gh"]');
    await card.getByLabel(FIELD).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'project-approval-needs.png'), fullPage: true });
    await card.getByRole('button', { name: 'Approve gamma--gh' }).click();
    await card.waitFor({ state: 'detached', timeout: 15_000 });
    await expect.poll(() => stateOf('gamma--gh'), { timeout: 30_000 }).toBe('error');

    // No card any more: the Projects row has the same field.
    await page.evaluate("window.location.hash = '#/projects'");
    const row = page.locator('article[data-project="gamma"] tr[data-server="gamma--gh"]');
    const field = row.getByLabel(FIELD);
    await field.waitFor({ timeout: 15_000 });
    await field.fill('e2e-row-value-9e2b');
    await row.getByRole('button', { name: 'Keep it' }).click();
    await expect.poll(() => stateOf('gamma--gh'), { timeout: 30_000 }).toBe('running');
    expect(await field.count()).toBe(0);
    expect(await page.content()).not.toContain('e2e-row-value-9e2b');
    expect((await Promise.all(answers)).join('\n')).not.toContain('e2e-row-value-9e2b');
  });
});
