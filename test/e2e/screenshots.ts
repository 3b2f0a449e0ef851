import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { NODE } from '../helpers/servers.ts';
import type { TempHome } from '../helpers/temp-home.ts';
import { ARTIFACTS } from './browser.ts';

/** SWITCHBOARD_UPDATE_SCREENSHOTS=1 npm run test:e2e refreshes docs/screenshots/. */
export const DOCS_SCREENSHOTS = process.env.SWITCHBOARD_UPDATE_SCREENSHOTS === '1';
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
export const DOCS_DIR = join(REPO_ROOT, 'docs', 'screenshots');

/**
 * A screenshot of the whole page into test-results/e2e/<name>.png; with `docs`, a second copy into
 * docs/screenshots/<docs>.png when SWITCHBOARD_UPDATE_SCREENSHOTS=1, with this run's throwaway folders
 * (the temp home, this checkout, the Node running it) and whatever `also` names shown as a person's own.
 */
export async function screenshot(
  page: Page,
  name: string,
  docs?: { as: string; home: TempHome; also?: [string, string][] },
): Promise<void> {
  await capture(page, join(ARTIFACTS, `${name}.png`));
  if (!DOCS_SCREENSHOTS || !docs) return;
  mkdirSync(DOCS_DIR, { recursive: true });
  await tidy(page, [
    ...(docs.also ?? []),
    [join(docs.home.dir, 'switchboard'), '/home/you/.config/switchboard'],
    [join(docs.home.dir, 'user'), '/home/you'],
    [NODE, '/usr/local/bin/node'],
    [REPO_ROOT, '/home/you/src/switchboard'],
  ]);
  await capture(page, join(DOCS_DIR, `${docs.as}.png`));
}

/**
 * The whole page at the window's width. Tall pages are taken with the window made as tall as the page
 * (not Playwright's fullPage stitching), so the sticky sidebar runs the full height and its "Live"
 * indicator sits at the bottom instead of floating mid-page.
 */
async function capture(page: Page, file: string): Promise<void> {
  const size = page.viewportSize();
  const height = Number(await page.evaluate('document.documentElement.scrollHeight'));
  const taller = size !== null && height > size.height;
  if (taller) await page.setViewportSize({ width: size.width, height });
  await page.screenshot({ path: file });
  if (taller) await page.setViewportSize(size);
}

/**
 * Docs screenshots only: `replacements` in the page's text and form fields. The raw JSON editor is
 * left alone: CodeMirror would take a change to its DOM for typing. Page-side code is a string: the
 * tests have no DOM types.
 */
async function tidy(page: Page, replacements: [string, string][]): Promise<void> {
  await page.evaluate(`(() => {
    const replacements = ${JSON.stringify(replacements)};
    const tidy = (text) => replacements.reduce((out, [from, to]) => out.split(from).join(to), text);
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement?.closest('.cm-editor')) continue;
      const next = tidy(node.nodeValue ?? '');
      if (next !== node.nodeValue) node.nodeValue = next;
    }
    for (const field of document.querySelectorAll('input, textarea')) field.value = tidy(field.value);
  })()`);
}
