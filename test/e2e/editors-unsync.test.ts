import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { heldBackPlaceholder } from '../../electron/core/editors/give-back.ts';
import { OsKeychain } from '../../electron/core/secrets/keychain.ts';
import { runCli } from '../helpers/cli.ts';
import { fixtureServer } from '../helpers/servers.ts';
import { ARTIFACTS } from './browser.ts';
import { useSignedInServe } from './signed-in-serve.ts';

/**
 * The Editors view's unsync in Chromium against a real `switchboard serve`: before it removes anything
 * it says what goes, what comes back and which secrets are at stake; without the box ticked the
 * person's entry comes back with a placeholder for its secret, and "Put secrets back" then gives back
 * the file's exact bytes. A file Switchboard made owner-only says so on its card.
 */

const TOKEN = 'ghp_' + 'Zq8vN3kLr2TfXw7HcYp1BmDs9GaUe4JoQiRt';
const github = fixtureServer('env-echo-server.mjs', 'GITHUB_TOKEN');
const ZED = `// my Zed settings
{
  "theme": "One Dark", // keep me
  "context_servers": {
    "gh": {
      "command": ${JSON.stringify(github.command)},
      "args": ${JSON.stringify(github.args)},
      "env": { "GITHUB_TOKEN": "${TOKEN}" },
    },
  },
}
`;

const keychain = new OsKeychain();
let page: Page;
let zedFile: string;
let cursorFile: string;

const e2e = useSignedInServe({
  name: 'editors-unsync',
  viewport: { width: 1280, height: 900 },
  async prepare(t, defer) {
    const known = new Set(await keychain.list());
    defer(async () => {
      for (const name of await keychain.list()) if (!known.has(name)) await keychain.delete(name);
    });
    const zedDir = join(t.dir, 'user', '.config', 'zed');
    mkdirSync(zedDir, { recursive: true });
    zedFile = join(zedDir, 'settings.json');
    writeFileSync(zedFile, ZED);
    const imported = await runCli(['import', '--yes'], t.env);
    if (imported.code !== 0) throw new Error(`import failed:\n${imported.stdout}${imported.stderr}`);
    // Cursor, with a file other users can read: the sync at serve's start writes its token there.
    mkdirSync(join(t.dir, 'user', '.cursor'), { recursive: true });
    cursorFile = join(t.dir, 'user', '.cursor', 'mcp.json');
    writeFileSync(cursorFile, '{\n  "mcpServers": {}\n}\n');
    chmodSync(cursorFile, 0o644);
  },
});
beforeAll(() => ({ page } = e2e));

describe('unsync in the Editors view', () => {
  it('says what it will do, gives back the imported entry, and puts its secret back only when asked', async () => {
    await page.evaluate("window.location.hash = '#/editors'");
    const zed = page.locator('article[data-editor="zed"]');
    await expect
      .poll(() => zed.locator('.state').getAttribute('data-state'), { timeout: 15_000 })
      .toBe('in-sync');

    // Cursor's file got its token at serve's start: owner-only now, and its card says so (Zed's,
    // already owner-only since the import, has nothing to say).
    const cursor = page.locator('article[data-editor="cursor"]');
    await cursor
      .getByRole('note')
      .getByText(/This file is now readable only by you \(0600\)/)
      .waitFor();
    expect(statSync(cursorFile).mode & 0o777).toBe(0o600);
    expect(await zed.getByRole('note').count()).toBe(0);

    // Before anything is removed: what goes, what comes back, which secret is at stake.
    const before = readFileSync(zedFile, 'utf8');
    await zed.getByRole('button', { name: 'Unsync Zed…' }).click();
    const panel = zed.getByRole('group', { name: 'Unsync Zed' });
    await panel.waitFor();
    await panel.getByText(/Switchboard takes its entry out of .*settings\.json: gh\./).waitFor();
    await panel.getByText('Your own entry that import replaced comes back as it was: gh.').waitFor();
    const box = panel.getByRole('checkbox', {
      name: /Put back the secrets import moved into the keychain \(gh-github_token\)/,
    });
    expect(await box.isChecked()).toBe(false);
    await panel.getByText(/each secret’s place in the file says where it is/).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'editors-unsync-panel.png'), fullPage: true });
    expect(readFileSync(zedFile, 'utf8')).toBe(before); // nothing happened yet

    // Unsync without the secret.
    await panel.getByRole('button', { name: 'Unsync Zed', exact: true }).click();
    await zed.getByRole('status').getByText('Your entry gh is back.').waitFor();
    await zed
      .getByRole('status')
      .getByText(/Secrets held back .*: gh-github_token\./)
      .waitFor();
    expect(readFileSync(zedFile, 'utf8')).toBe(
      ZED.replace(TOKEN, heldBackPlaceholder('gh-github_token', 'zed')),
    );
    await expect
      .poll(() => zed.locator('.state').getAttribute('data-state'), { timeout: 15_000 })
      .toBe('disabled');

    // Later: put the secret back. The file is the original, byte for byte.
    await zed.getByRole('button', { name: 'Put secrets back…' }).click();
    const again = zed.getByRole('group', { name: 'Put secrets back into Zed’s file' });
    expect(await again.getByRole('checkbox').isChecked()).toBe(true);
    await again.getByRole('button', { name: 'Put secrets back', exact: true }).click();
    await zed.getByRole('status').getByText('Secrets put back into the file: gh-github_token.').waitFor();
    expect(readFileSync(zedFile, 'utf8')).toBe(ZED);
    await zed.getByRole('button', { name: 'Put secrets back…' }).waitFor({ state: 'detached' });
  });
});
