import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { EDITORS } from '../../electron/core/editors/registry.ts';
import { OsKeychain } from '../../electron/core/secrets/keychain.ts';
import { userDirs } from '../../electron/core/user-dirs.mjs';
import { startHeadless, type Headless } from '../../electron/headless/serve.ts';
import { launchChromium } from '../e2e/browser.ts';
import { everythingServer, waitFor } from '../helpers/servers.ts';
import { tempHome, type TempHome } from '../helpers/temp-home.ts';
import { install } from '../integration/editors/helpers.ts';

// Opt-in (`npm run test:vscode`, which installs code-server into test/vscode): VS Code's own engine,
// code-server, with its user data folder where Switchboard synced VS Code's mcp.json. Opened in
// Chromium, the file's code lens starts the server through the bridge and shows it running with its
// tools — VS Code itself reading what `sync` wrote.

const CODE_SERVER = fileURLToPath(new URL('./node_modules/.bin/code-server', import.meta.url));
const installed = existsSync(CODE_SERVER);

describe.runIf(!installed && process.env.SWITCHBOARD_REQUIRE_VSCODE === '1')('VS Code (code-server)', () => {
  it('is installed', () => {
    throw new Error('code-server is not installed: run  npm run test:vscode');
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe.skipIf(!installed)('VS Code (code-server) reads the mcp.json sync writes', () => {
  let t: TempHome | undefined;
  let h: Headless | undefined;
  let codeServer: ChildProcess | undefined;
  let browser: Browser | undefined;

  afterAll(async () => {
    await browser?.close();
    codeServer?.kill('SIGTERM');
    await h?.stop();
    t?.cleanup();
  });

  it('starts the synced server and shows it running with its tools', async () => {
    t = tempHome();
    const file = install(t, 'vscode');
    t.writeServers({ mcpServers: { everything: everythingServer() } });
    h = await startHeadless({
      home: t.home,
      keychain: new OsKeychain(),
      env: t.env,
      port: 0,
      editorSync: { log: () => {} },
    });
    const headless = h;
    headless.core.approvals.approve('everything', headless.core.approvals.review('everything').fingerprint);
    await waitFor(
      () => existsSync(file) && readFileSync(file, 'utf8').includes('/mcp/everything'),
      60_000,
      'mcp.json synced',
    );
    expect(file).toBe(EDITORS.vscode.file(userDirs(t.env)));

    // code-server's user data folder is VS Code's: <it>/User/mcp.json is the file Switchboard wrote.
    const port = await freePort();
    const workspace = join(t.dir, 'workspace');
    mkdirSync(workspace, { recursive: true });
    let log = '';
    codeServer = spawn(
      CODE_SERVER,
      [
        '--bind-addr',
        `127.0.0.1:${port}`,
        '--auth',
        'none',
        '--user-data-dir',
        dirname(dirname(file)),
        '--extensions-dir',
        join(t.dir, 'extensions'),
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        '--disable-getting-started-override',
        workspace,
      ],
      {
        env: { ...t.env, PATH: `${dirname(process.execPath)}:${t.env.PATH ?? ''}` },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    codeServer.stdout?.on('data', (d: Buffer) => (log += d.toString()));
    codeServer.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    await waitFor(() => log.includes('HTTP server listening'), 60_000, `code-server listening\n${log}`);

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
    // Open the user-level mcp.json as VS Code knows it (code-server calls it the remote user's).
    await page.locator('.monaco-workbench').click({ position: { x: 700, y: 400 } });
    await page.keyboard.press('F1');
    await page.waitForSelector('.quick-input-widget input', { timeout: 30_000 });
    await page.keyboard.type('MCP: Open Remote User Configuration');
    await page
      .locator('.quick-input-list .monaco-list-row', { hasText: 'MCP: Open Remote User Configuration' })
      .first()
      .click();
    await page.locator('.view-lines', { hasText: '/mcp/everything' }).first().waitFor({ timeout: 30_000 });
    const lens = page.locator('.codelens-decoration');
    await lens.locator('a', { hasText: 'Start' }).first().click({ timeout: 60_000 });
    await expect
      .poll(async () => (await lens.allTextContents()).join(' '), { timeout: 60_000 })
      .toMatch(/Running.*\b\d+ tools\b/);
    const tools = Number(/(\d+) tools/.exec((await lens.allTextContents()).join(' '))?.[1]);
    const running = headless.core.status.report().servers.find((s) => s.name === 'everything');
    expect(tools).toBe(running?.toolCount);
    await page.screenshot({ path: join(t.dir, 'vscode.png') });
  }, 300_000);
});
