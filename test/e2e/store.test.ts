import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiRoutes } from '../../shared/api.ts';
import { StatusReportSchema, type ServerStatus } from '../../shared/status.ts';
import { startNpmRegistry, type NpmRegistry } from '../helpers/npm-registry.ts';
import { fixtureServer, waitFor } from '../helpers/servers.ts';
import type { TempHome } from '../helpers/temp-home.ts';
import { ARTIFACTS } from './browser.ts';
import { useSignedInServe } from './signed-in-serve.ts';

/**
 * The package store in the UI, in Chromium against a real `switchboard serve` whose npm installs from
 * a real local registry (packages get in only through `npm publish`): the approvals list shows every
 * waiting server at once while the registry hangs, the package one as resolving; Servers finds a newer
 * release, the server's page reviews its diff, and Update approves exactly what was shown (a resolution
 * that changed since is refused and shown again).
 */

const FIXTURES = join(import.meta.dirname, '../fixtures/store');
const MINI = fixtureServer('mini-server.mjs');

let t: TempHome;
let registry: NpmRegistry;
let release: () => void;
let page: Page;
let origin: string;

const e2e = useSignedInServe({
  name: 'store',
  viewport: { width: 1280, height: 900 },
  editorSyncNoticeAnswered: true,
  async prepare(t, defer) {
    registry = await startNpmRegistry();
    defer(async () => {
      release?.();
      await registry.close();
    });
    await registry.publish(join(FIXTURES, 'sb-store-dep'));
    await registry.publish(join(FIXTURES, 'sb-store-pkg'));
    t.writeServers({
      mcpServers: {
        pkg: { command: 'npx', args: ['-y', 'sb-store-pkg'] },
        mini: { command: MINI.command, args: MINI.args },
      },
    });
    // The registry answers nothing until the first test lets it.
    release = registry.hold();
    return registry.npmEnv(join(t.dir, 'npm-cache'));
  },
});
beforeAll(() => ({ t, page, origin } = e2e));
// Before serve stops: the npm requests still held end.
afterAll(() => release?.());

async function control(method: string, path: string): Promise<unknown> {
  const token = readFileSync(join(t.home.tokens, 'control'), 'utf8').trim();
  const res = await fetch(origin + path, { method, headers: { authorization: `Bearer ${token}` } });
  return res.json();
}

async function statusOf(name: string): Promise<ServerStatus | undefined> {
  return StatusReportSchema.parse(await control('GET', '/api/status')).servers.find((s) => s.name === name);
}

function running(name: string): Promise<ServerStatus> {
  return waitFor(
    async () => {
      const s = await statusOf(name);
      return s?.state === 'running' && s.toolCount !== null ? s : undefined;
    },
    90_000,
    `${name} running`,
  );
}

/** The package version state.json says pkg is approved to run. */
function approvedVersion(): string | undefined {
  const state = JSON.parse(readFileSync(t.home.stateFile, 'utf8')) as {
    approvals?: Record<string, { config: { package?: { version: string } } }>;
  };
  return state.approvals?.pkg?.config.package?.version;
}

describe('the package store in the UI', { timeout: 240_000 }, () => {
  it('lists every waiting server while a package resolves, and approves that one once it is shown', async () => {
    await page.evaluate("window.location.hash = '#/approvals'");
    const pkg = page.locator('article[data-approval="pkg"]');
    const mini = page.locator('article[data-approval="mini"]');
    // The registry hangs: the list is there anyway, pkg says it is resolving and cannot be approved.
    await pkg.getByTestId('approval-resolving').waitFor();
    await mini.waitFor();
    await waitFor(() => registry.held > 0 || undefined, 60_000, 'npm waiting on the registry');
    expect(await pkg.getByTestId('approval-resolving').count()).toBe(1);
    expect(await pkg.getByRole('button', { name: 'Approve pkg' }).isDisabled()).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'store-approval-resolving.png') });
    await mini.getByRole('button', { name: 'Approve mini' }).click();
    await mini.waitFor({ state: 'detached' });
    await running('mini');

    release();
    // The resolution arrives by itself (an event), with the exact version to approve.
    const shown = pkg.getByTestId('approval-package');
    await shown.waitFor({ timeout: 90_000 });
    expect(await shown.textContent()).toMatch(/package: sb-store-pkg 1\.0\.0 \(published /);
    expect(await pkg.getByTestId('approval-resolving').count()).toBe(0);
    await pkg.getByRole('button', { name: 'Approve pkg' }).click();
    await pkg.waitFor({ state: 'detached' });
    await running('pkg');
    expect(approvedVersion()).toBe('1.0.0');
  });

  it('shows a newer release on Servers, reviews its diff, and updates to exactly what was shown', async () => {
    await registry.publishAs(join(FIXTURES, 'sb-store-dep'), '1.0.1');
    await registry.publishAs(join(FIXTURES, 'sb-store-pkg'), '1.1.0');
    await page.evaluate("window.location.hash = '#/servers'");
    const bar = page.getByTestId('updates-bar');
    await bar.getByRole('button', { name: 'Check for updates' }).click();
    const tag = page.getByTestId('update-tag');
    await tag.waitFor({ timeout: 90_000 });
    expect(await tag.textContent()).toBe('update: 1.1.0');
    expect(await bar.textContent()).toContain('1 update available');
    await page.screenshot({ path: join(ARTIFACTS, 'store-update-found.png') });

    await tag.click();
    const card = page.locator('article[data-update="pkg"]');
    expect(await card.getByTestId('update-summary').textContent()).toBe('sb-store-pkg 1.0.0 → 1.1.0');
    await card.getByRole('button', { name: 'Review update' }).click();
    const changes = card.getByTestId('update-package-changes');
    await changes.waitFor({ timeout: 90_000 });
    expect(await changes.locator('li').allTextContents()).toEqual([
      'sb-store-dep 1.0.0 → 1.0.1',
      'sb-store-pkg 1.0.0 → 1.1.0',
    ]);
    await page.screenshot({ path: join(ARTIFACTS, 'store-update-review.png') });

    // A newer release lands and a check resolves it before the click: what was shown is not what
    // approving would install any more. Refused, nothing changes, and the new one is shown instead.
    await registry.publishAs(join(FIXTURES, 'sb-store-pkg'), '1.2.0');
    await control('POST', ApiRoutes.updatesCheck);
    await card.getByRole('button', { name: 'Update to 1.1.0' }).click();
    await card.getByTestId('update-changed').waitFor();
    await card.getByRole('button', { name: 'Update to 1.2.0' }).waitFor({ timeout: 90_000 });
    expect(approvedVersion()).toBe('1.0.0');
    expect(await card.getByTestId('update-package-changes').locator('li').allTextContents()).toEqual([
      'sb-store-dep 1.0.0 → 1.0.1',
      'sb-store-pkg 1.0.0 → 1.2.0',
    ]);

    await card.getByRole('button', { name: 'Update to 1.2.0' }).click();
    expect(await page.getByTestId('update-done').textContent()).toContain('Updated pkg to 1.2.0.');
    expect(approvedVersion()).toBe('1.2.0');
    await running('pkg');
    // Servers no longer offers it.
    await page.evaluate("window.location.hash = '#/servers'");
    await page.getByTestId('servers-table').waitFor();
    await waitFor(
      async () => ((await page.getByTestId('update-tag').count()) === 0 ? true : undefined),
      10_000,
      'the tag gone',
    );
  });
});
