import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { fixtureServer, waitFor } from '../helpers/servers.ts';
import type { TempHome } from '../helpers/temp-home.ts';
import { ARTIFACTS } from './browser.ts';
import { useSignedInServe } from './signed-in-serve.ts';

/**
 * The first run says which editors automatic sync will write before anything is approved (issue 11):
 * in Chromium against a real `switchboard serve` in a fresh home with Zed and VS Code installed, the
 * notice names them and offers the one switch. "Turn automatic sync off" keeps every editor file as
 * it was when a server is then approved; "Keep automatic sync" lets the approval write them. Either
 * answer is kept: the notice does not come back.
 */

const ECHO = fixtureServer('env-echo-server.mjs');
const ZED = '// my Zed settings\n{\n  "theme": "One Dark"\n}\n';

/** A fresh home for each test: Zed (with the person's settings) and VS Code installed, one server not yet approved. */
const e2e = useSignedInServe({
  name: 'editor-sync-notice',
  perTest: true,
  prepare(t) {
    const zedDir = join(t.dir, 'user', '.config', 'zed');
    mkdirSync(zedDir, { recursive: true });
    writeFileSync(join(zedDir, 'settings.json'), ZED);
    mkdirSync(join(t.dir, 'user', '.config', 'Code', 'User'), { recursive: true });
    t.writeServers({ mcpServers: { echo: ECHO } });
  },
});

/** This test's first run: its home and page, and the files of Zed and VS Code. */
function firstRun(): { t: TempHome; page: Page; zed: string; vscode: string } {
  const { t, page } = e2e;
  return {
    t,
    page,
    zed: join(t.dir, 'user', '.config', 'zed', 'settings.json'),
    vscode: join(t.dir, 'user', '.config', 'Code', 'User', 'mcp.json'),
  };
}

function state(t: TempHome): { settings?: { autoSync?: boolean }; notices?: { editorSync?: number } } {
  return JSON.parse(readFileSync(t.home.stateFile, 'utf8')) as ReturnType<typeof state>;
}

describe('the first-run notice of editor sync', () => {
  it('names the editors it will write; “Turn automatic sync off” keeps their files as they are when a server is approved', async () => {
    const { t, page, zed, vscode } = firstRun();
    const notice = page.getByRole('region', { name: 'Switchboard keeps your editors in sync' });
    await notice.waitFor();
    expect(await notice.getByText(/Found on this computer:/).textContent()).toContain('Zed, VS Code');
    await page.screenshot({ path: join(ARTIFACTS, 'editor-sync-notice.png') });
    if (process.env.SWITCHBOARD_UPDATE_SCREENSHOTS === '1')
      await page.screenshot({
        path: fileURLToPath(new URL('../../docs/screenshots/editor-sync-notice.png', import.meta.url)),
      });
    // In a 720 px window too: nothing scrolls sideways, both answers in view.
    await page.setViewportSize({ width: 720, height: 860 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(720);
    for (const name of ['Keep automatic sync', 'Turn automatic sync off']) {
      const box = await notice.getByRole('button', { name }).boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 720, name).toBe(true);
    }
    await page.screenshot({ path: join(ARTIFACTS, 'editor-sync-notice-720.png') });
    await page.setViewportSize({ width: 1280, height: 860 });

    await notice.getByRole('button', { name: 'Turn automatic sync off' }).click();
    await notice.waitFor({ state: 'detached' });
    expect(state(t).settings?.autoSync).toBe(false);
    expect(state(t).notices?.editorSync).toEqual(expect.any(Number));

    const approved = await runCli(['approve', 'echo', '--yes'], t.env);
    expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    await page.locator('tbody[data-server="echo"] .state[data-state="running"]').waitFor({ timeout: 45_000 });
    expect(readFileSync(zed, 'utf8')).toBe(ZED);
    expect(() => readFileSync(vscode, 'utf8')).toThrow(/ENOENT/);

    // Read once: not shown again, after a reload either.
    await page.reload();
    await page.getByRole('heading', { name: 'Servers', level: 1 }).waitFor();
    expect(await page.getByRole('region', { name: 'Switchboard keeps your editors in sync' }).count()).toBe(
      0,
    );
  });

  it('“Keep automatic sync”: the notice goes, and approving a server writes it into each editor named', async () => {
    const { t, page, zed, vscode } = firstRun();
    const notice = page.getByRole('region', { name: 'Switchboard keeps your editors in sync' });
    await notice.getByRole('button', { name: 'Keep automatic sync' }).click();
    await notice.waitFor({ state: 'detached' });
    expect(state(t).settings?.autoSync).not.toBe(false);
    expect(state(t).notices?.editorSync).toEqual(expect.any(Number));

    expect((await runCli(['approve', 'echo', '--yes'], t.env)).code).toBe(0);
    await waitFor(() => readFileSync(zed, 'utf8').includes('/mcp/echo'), 30_000, 'Zed synced');
    // VS Code's file is new: written after Zed's, so not there at first.
    await waitFor(
      () => existsSync(vscode) && readFileSync(vscode, 'utf8').includes('/mcp/echo'),
      30_000,
      'VS Code synced',
    );
  });
});
