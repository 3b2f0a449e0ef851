import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page, Route } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { StatusReportSchema } from '../../shared/status.ts';
import { runCli } from '../helpers/cli.ts';
import { fixtureServer, NODE, waitFor } from '../helpers/servers.ts';
import type { TempHome } from '../helpers/temp-home.ts';
import { ARTIFACTS } from './browser.ts';
import { useSignedInServe } from './signed-in-serve.ts';

/**
 * The approval card in Chromium against a real `switchboard serve`: a command whose arguments carry a
 * right-to-left override, an ESC sequence and a line break shows them escaped, with the keychain
 * secret it passes on spelled out; and Approve approves the configuration the card showed, so an edit
 * of servers.json that lands between showing and clicking is refused and shown for review.
 */

const RLO_ARG = 'x\u202Eexe.txt';
const ESC_ARG = '\u001b[2K\u001b[1Gclean';
const NEWLINE_ARG = 'ok\ncwd: /home/you/safe';
const ECHO = fixtureServer('env-echo-server.mjs');
const spoof = (extra: string[] = []) => ({
  command: NODE,
  args: [...ECHO.args, RLO_ARG, ESC_ARG, NEWLINE_ARG, ...extra],
  env: { GITHUB_TOKEN: '${secret:github-token}' },
});

let t: TempHome;
let page: Page;
let origin: string;

const e2e = useSignedInServe({
  name: 'approvals',
  prepare(t) {
    t.writeServers({ mcpServers: { spoof: spoof() } });
  },
});
beforeAll(() => ({ t, page, origin } = e2e));

/** spoof's fingerprint as the running serve sees it (the control API, as the CLI reads it). */
async function fingerprintNow(): Promise<string | undefined> {
  const control = readFileSync(join(t.home.tokens, 'control'), 'utf8').trim();
  const res = await fetch(`${origin}/api/status`, { headers: { authorization: `Bearer ${control}` } });
  return StatusReportSchema.parse(await res.json()).servers.find((s) => s.name === 'spoof')?.fingerprint;
}

function approvedFingerprint(): string | undefined {
  if (!existsSync(t.home.stateFile)) return undefined;
  const state = JSON.parse(readFileSync(t.home.stateFile, 'utf8')) as {
    approvals?: Record<string, { fingerprint: string }>;
  };
  return state.approvals?.spoof?.fingerprint;
}

describe('the approval card', () => {
  it('shows control, bidi and line-break characters escaped, and the secret the server gets', async () => {
    await page.evaluate("window.location.hash = '#/approvals'");
    const card = page.locator('article[data-approval="spoof"]');
    await card.waitFor();
    expect(await card.getByTestId('approval-command').textContent()).toBe(
      `command: ${NODE} ${ECHO.args.join(' ')} 'x\\u{202E}exe.txt' '\\u{1B}[2K\\u{1B}[1Gclean' ` +
        `'ok\\u{0A}cwd: /home/you/safe'\nruns in: ${join(t.home.data, 'spoof')} (its own folder)\n` +
        `env GITHUB_TOKEN=\${secret:github-token}`,
    );
    expect(await card.getByTestId('approval-references').textContent()).toBe(
      `gives your keychain secret "github-token" to ${NODE} in env GITHUB_TOKEN`,
    );
    // What it may reach in its sandbox, in words (docs/decisions/sandbox.md)
    const access = await card.getByTestId('approval-access').locator('li').allTextContents();
    expect(access[0]).toMatch(
      /^reads and writes only: .*\/data\/spoof \(its own folder\), a private temp folder$/,
    );
    expect(access).toContain(
      "network: any host on the internet over HTTP(S), through Switchboard's proxy; nothing on this computer",
    );
    // Nothing on the card is drawn from the raw characters: no reordering, no erased or extra lines.
    const text = await card.innerText();
    for (const raw of ['\u202E', '\u001b']) expect(text).not.toContain(raw);
    expect(text.split('\n').some((line) => line.trim().startsWith('cwd: /home/you/safe'))).toBe(false);
    await page.screenshot({ path: join(ARTIFACTS, 'approval-escaped.png') });
  });

  it('refuses an approval when servers.json changed after the card was shown, and shows the new config', async () => {
    const card = page.locator('article[data-approval="spoof"]');
    const shown = await fingerprintNow();
    // Hold the UI's refetches of the approvals list: the card stays as the person saw it while
    // servers.json changes underneath (the window a slow click or a stale tab leaves).
    const held: Route[] = [];
    let holding = true;
    await page.route('**/api/approvals', (route) => (holding ? held.push(route) : route.continue()));
    t.writeServers({ mcpServers: { spoof: spoof(['--allow-all']) } });
    await waitFor(async () => (await fingerprintNow()) !== shown, 15_000, 'serve reading the edit');
    expect(await card.getByTestId('approval-command').textContent()).not.toContain('--allow-all');

    await card.getByRole('button', { name: 'Approve spoof' }).click();
    await card
      .getByText('server "spoof" was not approved: its configuration changed since it was shown')
      .waitFor();
    expect(approvedFingerprint()).toBeUndefined();

    // Released: the card now shows what is configured, and says it changed while shown.
    holding = false;
    for (const route of held) await route.continue();
    const changed = page.getByTestId('approval-changed');
    await changed.waitFor();
    expect(await changed.textContent()).toContain(
      'The configuration of spoof changed while it was shown here.',
    );
    expect(await card.getByTestId('approval-command').textContent()).toContain('--allow-all');
    await page.screenshot({ path: join(ARTIFACTS, 'approval-changed.png') });

    // Approving what is shown now works, and approves exactly that.
    await card.getByRole('button', { name: 'Approve spoof' }).click();
    await page.getByText('Nothing waits for approval').waitFor();
    expect(approvedFingerprint()).toBe(await fingerprintNow());
    await page.unroute('**/api/approvals');
  });

  it('says a server from `switchboard add` came from the command line, and that you approved it (issue 24 item 13)', async () => {
    const added = await runCli(['add', 'fromcli', '--', NODE, ...ECHO.args], t.env);
    expect(added.code, added.stderr).toBe(0);
    await page.evaluate("window.location.hash = '#/approvals/fromcli'");
    const card = page.locator('article[data-approval="fromcli"]');
    await card.waitFor();
    expect(await card.locator('dd').first().textContent()).toBe('the switchboard command line');

    await card.getByRole('button', { name: 'Approve fromcli' }).click();
    const notice = page.getByTestId('approval-notice');
    await notice.getByText('You approved “fromcli”.').waitFor();
    expect(await notice.textContent()).not.toContain('decided already');
  });
});
