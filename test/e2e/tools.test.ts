import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'jsonc-parser';
import { runCli } from '../helpers/cli.ts';
import { fixtureServer, waitFor } from '../helpers/servers.ts';
import type { TempHome } from '../helpers/temp-home.ts';
import { ARTIFACTS } from './browser.ts';
import { useSignedInServe } from './signed-in-serve.ts';

/**
 * Choosing tools in the UI, in Chromium against a real `switchboard serve`: the server page's switch
 * turns a tool off for every editor (a comment-preserving edit of servers.json); an editor's card shows
 * how many tools it gets and what they cost, its switches choose that editor's tools (state.json), and
 * discovery mode rewrites its file to one entry for /mcp.
 */

let t: TempHome;
let page: Page;
let cursorFile: string;

const e2e = useSignedInServe({
  name: 'tools',
  viewport: { width: 1280, height: 900 },
  editorSyncNoticeAnswered: true,
  async prepare(t) {
    const toolsFile = join(t.dir, 'tools.json');
    writeFileSync(
      toolsFile,
      JSON.stringify([
        { name: 'search_code', description: 'Searches code' },
        { name: 'delete_repo', description: 'Deletes a repository' },
      ]),
    );
    t.writeServers(`// my servers
{
  "mcpServers": {
    "gh": ${JSON.stringify(fixtureServer('shifty-server.mjs', toolsFile))} // the fixture
  }
}
`);
    mkdirSync(join(t.dir, 'user', '.cursor'), { recursive: true });
    cursorFile = join(t.dir, 'user', '.cursor', 'mcp.json');
    writeFileSync(cursorFile, '{\n  "mcpServers": {}\n}\n');
    const approved = await runCli(['approve', 'gh', '--yes'], t.env);
    if (approved.code !== 0) throw new Error(`approve failed:\n${approved.stdout}${approved.stderr}`);
  },
});
beforeAll(() => ({ t, page } = e2e));

describe('choosing tools in the UI', () => {
  it('turns a server’s tool off for every editor from its page, keeping the file’s comments', async () => {
    await page.goto(`${new URL(page.url()).origin}/#/servers/gh/tools`);
    const item = page.locator('[data-testid="tools-list"] li[data-tool="delete_repo"]');
    await item.waitFor({ timeout: 30_000 });
    await item.getByRole('switch').click();
    await waitFor(
      () => readFileSync(t.home.serversFile, 'utf8').includes('"exclude"'),
      10_000,
      'servers.json edited',
    );
    const text = readFileSync(t.home.serversFile, 'utf8');
    expect(text).toContain('// my servers');
    expect((parse(text) as { mcpServers: { gh: { tools: unknown } } }).mcpServers.gh.tools).toEqual({
      exclude: ['delete_repo'],
    });
    await expect.poll(() => item.textContent()).toMatch(/no editor gets it/);
    await page.screenshot({ path: join(ARTIFACTS, 'tools-server.png') });
    await item.getByRole('switch').click();
    await waitFor(() => !readFileSync(t.home.serversFile, 'utf8').includes('"tools"'), 10_000, 'filter gone');
  });

  it('shows what Cursor gets, chooses its tools, and turns discovery mode on', async () => {
    await page.goto(`${new URL(page.url()).origin}/#/editors`);
    const card = page.locator('[data-testid="editor-tools-cursor"]');
    await card.waitFor({ timeout: 30_000 });
    // reload + the two tools of gh
    await expect
      .poll(() => card.getByTestId('tool-summary').textContent())
      .toMatch(/^3 tools, about \d+ tokens/);
    await expect.poll(() => card.getByTestId('tool-summary').textContent()).toMatch(/works best under 40/);

    await card.locator('summary').click();
    await card.locator('li[data-tool="delete_repo"]').getByRole('switch').click();
    await expect.poll(() => card.getByTestId('tool-summary').textContent()).toMatch(/^2 tools/);
    const state = JSON.parse(readFileSync(t.home.stateFile, 'utf8')) as {
      editors: { cursor?: { tools?: unknown } };
    };
    expect(state.editors.cursor?.tools).toEqual({ gh: { exclude: ['delete_repo'] } });
    await page.screenshot({ path: join(ARTIFACTS, 'tools-editor.png'), fullPage: true });

    await card.getByRole('switch', { name: 'Discovery mode for Cursor' }).click();
    await waitFor(
      () => {
        const servers = (
          JSON.parse(readFileSync(cursorFile, 'utf8')) as { mcpServers: Record<string, unknown> }
        ).mcpServers;
        return Object.keys(servers).join() === 'switchboard';
      },
      15_000,
      'Cursor’s file with one entry for /mcp',
    );
    await expect.poll(() => card.getByTestId('tool-summary').textContent()).toMatch(/^2 tools/);
    expect(readFileSync(cursorFile, 'utf8')).toMatch(/\/mcp"/);
  });
});
