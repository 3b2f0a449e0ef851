import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, platform, release } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium: Playwright cannot download browsers on these machines. */
export const CHROMIUM = process.env.SWITCHBOARD_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export const UI_DIST = fileURLToPath(new URL('../../renderer/dist/', import.meta.url));
/** Screenshots and figures of the e2e run (gitignored). */
export const ARTIFACTS = fileURLToPath(new URL('../../test-results/e2e/', import.meta.url));

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: install it with: sudo apt-get install -y chromium (bash .ci/run does)`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
}

/**
 * A home whose person has already answered the first-run notice of editor sync
 * (editor-sync-notice.test.ts covers it), so that views and docs screenshots show the everyday UI.
 */
export function answeredEditorSyncNotice(stateFile: string): void {
  const state = existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as object) : {};
  writeFileSync(stateFile, JSON.stringify({ ...state, notices: { editorSync: Date.now() } }));
}

/** The one-time sign-in link a `serve` printed (its banner is whole once startServe has resolved). */
export function signInLink(output: string): string {
  const url = /Open the UI: (http:\/\/127\.0\.0\.1:\d+\/login\?code=[A-Za-z0-9_-]+)/.exec(output)?.[1];
  if (!url) throw new Error(`serve printed no sign-in link:\n${output}`);
  return url;
}

/** Where the UI keeps this browser's session secret (renderer/src/api/session.ts). */
export const SESSION_STORAGE_KEY = 'switchboard.session';

/**
 * Opens a sign-in link and waits until the page has traded its code for the session it keeps in
 * localStorage (it shows nothing before that). Polled with evaluate, from outside the page: the UI's
 * CSP refuses the string evaluation waitForFunction does in the page.
 */
export async function signIn(page: Page, link: string): Promise<void> {
  await page.goto(link);
  const read = `localStorage.getItem(${JSON.stringify(SESSION_STORAGE_KEY)})`;
  for (let i = 0; i < 300; i++) {
    if ((await page.evaluate(read)) !== null) return;
    if (page.url().includes('signin=expired')) throw new Error(`the sign-in link was refused: ${link}`);
    await page.waitForTimeout(50);
  }
  throw new Error(`the page never signed in with ${link} (now at ${page.url()})`);
}

/** The e2e tests drive the production build: test/run.sh builds it when it is missing or stale. */
export function requireBuiltUi(): void {
  const index = `${UI_DIST}index.html`;
  if (!existsSync(index) || statSync(index).size === 0) {
    throw new Error(
      'renderer/dist is missing: build it with `npm run build:renderer` (test/run.sh does this)',
    );
  }
  mkdirSync(ARTIFACTS, { recursive: true });
}

/** One measured figure: its value, unit and what exactly was measured. */
export interface Figure {
  value: number;
  unit: 'ms' | 'lines' | 'rows' | 'score';
  what: string;
}

/**
 * Writes measured figures to test-results/e2e/<file> with what they mean and where they were taken
 * (browser, CPU), so a number read later (docs/performance.md) carries its context.
 */
export function writeFigures(
  file: string,
  browser: Browser,
  about: string,
  figures: Record<string, Figure>,
): void {
  const cpu = cpus();
  const report = {
    about,
    measuredAt: new Date().toISOString(),
    browser: `Chromium ${browser.version()} (${CHROMIUM}), headless, ${CHROMIUM_FLAGS.join(' ')}`,
    machine: `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${platform()} ${release()}`,
    figures,
  };
  writeFileSync(join(ARTIFACTS, file), JSON.stringify(report, null, 2) + '\n');
}
