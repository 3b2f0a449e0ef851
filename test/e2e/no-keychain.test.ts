import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TempHome } from '../helpers/temp-home.ts';
import { ARTIFACTS } from './browser.ts';
import { useSignedInServe } from './signed-in-serve.ts';

/**
 * Issue 24 item 14 in Chromium: a `serve` on a Linux machine without a Secret Service (its D-Bus
 * address leads nowhere). Pasting a server with a token: the add fails, the page says the token could
 * not be stored (and what to install), and the green "Ready to add" is gone, not shown beside it.
 */

const TOKEN = 'ghp_' + 'Xk9LrTz4Wn8Hc1Yp6Ds3Ga5UeJoFi0Vb7Qm2';
let t: TempHome;
let page: Page;

describe.runIf(process.platform === 'linux')('adding a server with a token and no keychain', () => {
  const e2e = useSignedInServe({
    name: 'no-keychain',
    viewport: { width: 1280, height: 900 },
    editorSyncNoticeAnswered: true,
    // A D-Bus address that leads nowhere: no Secret Service.
    prepare: (t) => ({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${t.dir}/no-bus` }),
  });
  beforeAll(() => ({ t, page } = e2e));

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
