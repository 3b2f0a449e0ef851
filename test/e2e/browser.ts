import { existsSync, mkdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

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
