import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { exited, startServe } from '../helpers/cli.ts';
import { tempHome, type TempHome } from '../helpers/temp-home.ts';
import {
  answeredEditorSyncNotice,
  ARTIFACTS,
  launchChromium,
  requireBuiltUi,
  signedInPage,
} from './browser.ts';

/**
 * Issue 24 item 14 in Chromium: a `serve` on a Linux machine without a Secret Service (its D-Bus
 * address leads nowhere). Pasting a server with a token: the add fails, the page says the token could
 * not be stored (and what to install), and the green "Ready to add" is gone, not shown beside it.
 */

const TOKEN = 'ghp_' + 'Xk9LrTz4Wn8Hc1Yp6Ds3Ga5UeJoFi0Vb7Qm2';
let t: TempHome;
let serve: { child: ChildProcess; output: () => string };
let browser: Browser;
let page: Page;

beforeAll(async () => {
  requireBuiltUi();
  t = tempHome();
  answeredEditorSyncNotice(t.home.stateFile);
  serve = await startServe({ ...t.env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${t.dir}/no-bus` });
  browser = await launchChromium();
  page = await signedInPage(browser, serve.output(), { width: 1280, height: 900 });
}, 90_000);

afterEach(async (context) => {
  if (context.task.result?.state !== 'fail' || !page) return;
  await page
    .screenshot({ path: join(ARTIFACTS, 'FAILED-no-keychain.png'), fullPage: true })
    .catch(() => undefined);
});

afterAll(async () => {
  await browser?.close();
  if (serve && serve.child.exitCode === null) {
    serve.child.kill('SIGTERM');
    await exited(serve.child);
  }
  t?.cleanup();
});

describe.runIf(process.platform === 'linux')('adding a server with a token and no keychain', () => {
  it('says the token could not be stored, and no longer that it is ready to add', async () => {
    await page.evaluate("window.location.hash = '#/add'");
    await page.getByRole('button', { name: 'Paste JSON' }).click();
    await page.locator('.cm-content').click();
    await page.keyboard.insertText(
      JSON.stringify({
        mcpServers: { gh: { command: 'npx', args: ['-y', 'x'], env: { GITHUB_TOKEN: TOKEN } } },
      }),
    );
    const ready = page.getByText('Ready to add 1 server: gh.');
    await ready.waitFor();
    await page.getByRole('button', { name: 'Add server' }).click();
    await page.getByText(/could not store GITHUB_TOKEN of server "gh" in the keychain/).waitFor();
    await page.getByText(/sudo apt install gnome-keyring/).waitFor();
    expect(await ready.count()).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'no-keychain-add.png'), fullPage: true });
    expect(existsSync(t.home.serversFile) ? readFileSync(t.home.serversFile, 'utf8') : '').not.toContain(
      '"gh"',
    );

    // Editing the text again is a new attempt: ready again.
    await page.locator('.cm-content').click();
    await page.keyboard.press('End');
    await page.keyboard.insertText(' ');
    await ready.waitFor();
  });
});
