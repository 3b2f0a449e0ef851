import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { httpClient, textOf } from '../helpers/bridge.ts';
import { runCli } from '../helpers/cli.ts';
import { fixtureServer } from '../helpers/servers.ts';
import { sandboxUnavailable } from '../helpers/sandbox.ts';
import type { TempHome } from '../helpers/temp-home.ts';
import { useSignedInServe } from './signed-in-serve.ts';

/**
 * Issue 33 item 3 in the browser: a tool's answer shows the sandbox hid a repo; the Servers view names
 * it with an "Allow reading" button; the button edits servers.json's sandbox, so the server waits for
 * approval; approved, the tool works. A real serve, real bubblewrap, Debian's Chromium.
 */
const skip = sandboxUnavailable() !== undefined;

let t: TempHome;
let page: Page;
let origin: string;
let repo: string;

const e2e = useSignedInServe({
  name: 'sandbox-grant',
  editorSyncNoticeAnswered: true,
  prepare(home) {
    repo = join(home.env.HOME ?? '', 'work', 'repo');
    mkdirSync(repo, { recursive: true });
    writeFileSync(join(repo, 'README.md'), 'hello\n');
    home.writeServers({ mcpServers: { reach: fixtureServer('reach-server.mjs') } });
    return undefined;
  },
});
beforeAll(() => ({ t, page, origin } = e2e));

describe.skipIf(skip)(
  'a refusal in a tool answer, granted from the Servers view',
  { timeout: 120_000 },
  () => {
    it('shows the hidden repo with a button; the grant waits for approval; approved, the tool works', async () => {
      const state = () => page.locator('tbody[data-server="reach"] .state').getAttribute('data-state');
      await page.evaluate("window.location.hash = '#/servers'");
      expect((await runCli(['approve', 'reach', '--yes'], t.env)).code).toBe(0);
      await expect.poll(state, { timeout: 30_000 }).toBe('running');
      const token = (await runCli(['token', 'create', 'e2e'], t.env)).stdout.trim();
      let client = await httpClient(`${origin}/mcp/reach`, token, 'e2e');
      expect(textOf(await client.callTool({ name: 'repo', arguments: { path: repo } }))).toBe(
        'Working directory does not exist',
      );
      await client.close();

      const refused = page.locator('tbody[data-server="reach"]').getByTestId('sandbox-refused');
      await refused.waitFor({ timeout: 15_000 });
      expect(await refused.textContent()).toContain(
        'sandbox refused reading ~/work/repo: add it to sandbox.read',
      );
      await refused.getByRole('button', { name: 'Allow reading (asks approval)' }).click();
      await expect.poll(state, { timeout: 15_000 }).toBe('pending-approval');
      expect(readFileSync(t.home.serversFile, 'utf8')).toContain(repo);

      expect((await runCli(['approve', 'reach', '--yes'], t.env)).code).toBe(0);
      await expect.poll(state, { timeout: 30_000 }).toBe('running');
      client = await httpClient(`${origin}/mcp/reach`, token, 'e2e');
      expect(textOf(await client.callTool({ name: 'repo', arguments: { path: repo } }))).toBe('README.md');
      await client.close();
    });
  },
);
