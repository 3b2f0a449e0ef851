import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { fixtureServer } from '../helpers/servers.ts';
import type { TempHome } from '../helpers/temp-home.ts';
import { editorFile, install } from '../integration/editors/helpers.ts';
import { ARTIFACTS } from './browser.ts';
import { useSignedInServe } from './signed-in-serve.ts';

/**
 * Issue 24 item 12: the README says a server can be excluded from an editor in the Editors view. Here
 * it is, in Chromium against a real `switchboard serve`: × on a server's chip keeps it out of that
 * editor (its entry leaves the file, state.json remembers it as `sync --exclude` does), + gives it back.
 */

let t: TempHome;
let page: Page;

const zedServers = () =>
  Object.keys(
    (parse(readFileSync(editorFile(t, 'zed'), 'utf8')) as { context_servers?: object }).context_servers ?? {},
  ).sort();

const e2e = useSignedInServe({
  name: 'editor-exclude',
  viewport: { width: 1280, height: 900 },
  editorSyncNoticeAnswered: true,
  async prepare(t) {
    install(t, 'zed', '{\n  "theme": "One Dark"\n}\n');
    const server = fixtureServer('env-echo-server.mjs', 'X');
    t.writeServers({ mcpServers: { alpha: server, beta: server } });
    for (const name of ['alpha', 'beta']) {
      const run = await runCli(['approve', name, '--yes'], t.env);
      if (run.code !== 0) throw new Error(run.stderr);
    }
  },
});
beforeAll(() => ({ t, page } = e2e));

describe('excluding a server from one editor in the Editors view', () => {
  it('× takes it out of that editor and its file, + brings it back', async () => {
    await page.evaluate("window.location.hash = '#/editors'");
    const zed = page.locator('article[data-editor="zed"]');
    await expect
      .poll(() => zed.locator('.state').getAttribute('data-state'), { timeout: 15_000 })
      .toBe('in-sync');
    expect(zedServers()).toEqual(['alpha', 'beta']);

    await zed.getByRole('button', { name: 'Exclude beta from Zed' }).click();
    await zed.getByRole('list', { name: 'Excluded' }).getByText('beta').waitFor();
    await expect.poll(zedServers, { timeout: 10_000 }).toEqual(['alpha']);
    expect(await zed.getByRole('list', { name: 'Servers' }).getByRole('listitem').allInnerTexts()).toEqual([
      expect.stringContaining('alpha'),
    ]);
    await expect
      .poll(() => zed.locator('.state').getAttribute('data-state'), { timeout: 10_000 })
      .toBe('in-sync');
    // The same setting the CLI writes.
    const state = JSON.parse(readFileSync(t.home.stateFile, 'utf8')) as {
      editors: Record<string, { exclude: string[] }>;
    };
    expect(state.editors.zed?.exclude).toEqual(['beta']);
    await page.screenshot({ path: join(ARTIFACTS, 'editor-exclude.png'), fullPage: true });

    await zed.getByRole('button', { name: 'Include beta in Zed again' }).click();
    await expect.poll(zedServers, { timeout: 10_000 }).toEqual(['alpha', 'beta']);
    await zed.getByRole('button', { name: 'Exclude beta from Zed' }).waitFor();
    expect(await zed.getByRole('list', { name: 'Excluded' }).count()).toBe(0);
  });
});
