import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { exited, runCli, startServe } from '../helpers/cli.ts';
import { fixtureServer } from '../helpers/servers.ts';
import { tempHome, type TempHome } from '../helpers/temp-home.ts';
import { editorFile, install } from '../integration/editors/helpers.ts';
import {
  answeredEditorSyncNotice,
  ARTIFACTS,
  launchChromium,
  requireBuiltUi,
  signedInPage,
} from './browser.ts';

/**
 * Issue 24 item 12: the README says a server can be excluded from an editor in the Editors view. Here
 * it is, in Chromium against a real `switchboard serve`: × on a server's chip keeps it out of that
 * editor (its entry leaves the file, state.json remembers it as `sync --exclude` does), + gives it back.
 */

let t: TempHome;
let serve: { child: ChildProcess; output: () => string };
let browser: Browser;
let page: Page;

const zedServers = () =>
  Object.keys(
    (parse(readFileSync(editorFile(t, 'zed'), 'utf8')) as { context_servers?: object }).context_servers ?? {},
  ).sort();

beforeAll(async () => {
  requireBuiltUi();
  t = tempHome();
  install(t, 'zed', '{\n  "theme": "One Dark"\n}\n');
  const server = fixtureServer('env-echo-server.mjs', 'X');
  t.writeServers({ mcpServers: { alpha: server, beta: server } });
  for (const name of ['alpha', 'beta']) {
    const run = await runCli(['approve', name, '--yes'], t.env);
    if (run.code !== 0) throw new Error(run.stderr);
  }
  answeredEditorSyncNotice(t.home.stateFile);
  serve = await startServe(t.env);
  browser = await launchChromium();
  page = await signedInPage(browser, serve.output(), { width: 1280, height: 900 });
}, 90_000);

afterEach(async (context) => {
  if (context.task.result?.state !== 'fail' || !page) return;
  await page
    .screenshot({ path: join(ARTIFACTS, 'FAILED-editor-exclude.png'), fullPage: true })
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
