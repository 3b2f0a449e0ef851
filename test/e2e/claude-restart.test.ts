import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { argvOf, fakeApps, isAlive, type FakeApps } from '../helpers/fake-claude-desktop.ts';
import { fixtureServer } from '../helpers/servers.ts';
import type { TempHome } from '../helpers/temp-home.ts';
import { ARTIFACTS } from './browser.ts';
import { useSignedInServe } from './signed-in-serve.ts';

/**
 * The Editors view's "restart Claude Desktop" hint in Chromium against a real `switchboard serve`,
 * with a real process Linux sees as Claude Desktop (a copy of /bin/sleep named `claude-desktop`, as
 * the community builds run): the hint shows while it runs since before the write, its button
 * restarts it (same program, same argv, a new process), and the hint comes and goes live as the
 * file is written again and the app quits, with no reload and no polling in the page.
 */

const linux = process.platform === 'linux';
let t: TempHome;
let apps: FakeApps;
let page: Page;
let first: number;

describe.runIf(linux)('restart Claude Desktop from the Editors view', () => {
  const e2e = useSignedInServe({
    name: 'claude-restart',
    viewport: { width: 1280, height: 900 },
    async prepare(t, defer) {
      apps = fakeApps(t.dir);
      defer(() => apps.cleanup());
      mkdirSync(join(t.dir, 'user', '.config', 'Claude'), { recursive: true });
      t.writeServers({ mcpServers: { alpha: fixtureServer('mini-server.mjs') } });
      const approved = await runCli(['approve', 'alpha', '--yes'], t.env);
      if (approved.code !== 0) throw new Error(`approve failed:\n${approved.stdout}${approved.stderr}`);
      // Claude Desktop runs before serve's first sync writes its file: it has not read it.
      first = await apps.start('claude-desktop', ['600', '0.5']);
      await new Promise((r) => setTimeout(r, 100));
      // serve sees only this test's fake app (other test files run theirs side by side).
      return apps.env;
    },
  });
  beforeAll(() => ({ t, page } = e2e));

  it('shows the hint while it runs with the old file, restarts it, and the hint follows the app live', async () => {
    await page.evaluate("window.location.hash = '#/editors'");
    const card = page.locator('article[data-editor="claude-desktop"]');
    const hint = card.getByTestId('restart-claude-desktop');
    await hint.getByText(/Claude Desktop is still running with its previous settings/).waitFor();
    const button = hint.getByRole('button', { name: 'Restart Claude Desktop' });
    await button.waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'editors-claude-restart.png'), fullPage: true });

    const argv = argvOf(first);
    await button.click();
    await card
      .getByRole('status')
      .getByText('Claude Desktop restarted: it reads its new settings as it starts.')
      .waitFor();
    await hint.waitFor({ state: 'detached' });
    expect(isAlive(first)).toBe(false);
    const now = apps.running().filter((p) => p.exe.endsWith('/claude-desktop'));
    expect(now).toHaveLength(1);
    expect(now[0]?.pid).not.toBe(first);
    expect(now[0]?.argv).toEqual(argv);

    // A new server reaches Claude Desktop's file: the running app has not read it, the hint is back…
    t.writeServers({
      mcpServers: { alpha: fixtureServer('mini-server.mjs'), beta: fixtureServer('mini-server.mjs') },
    });
    const approved = await runCli(['approve', 'beta', '--yes'], t.env);
    expect(approved.code, approved.stderr).toBe(0);
    await hint.waitFor({ timeout: 15_000 });
    // …and goes when the person quits it themselves (the core notices; the page is not reloaded).
    for (const p of now) process.kill(p.pid, 'SIGTERM');
    await hint.waitFor({ state: 'detached', timeout: 15_000 });
    expect(apps.running()).toEqual([]);
  });
});
