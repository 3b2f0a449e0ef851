import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { ApprovalPreviews } from '../../../electron/desktop/approval-previews.ts';
import { buildTrayMenu, type TrayItem } from '../../../electron/desktop/tray-menu.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { ApiRoutes, type ApiEvent } from '../../../shared/api.ts';
import type { ServerStatus } from '../../../shared/status.ts';
import { UpdatesReportSchema } from '../../../shared/store.ts';
import { ApprovalViewSchema, UiRoutes, type ApprovalView } from '../../../shared/ui-api.ts';
import { closeAll, editorToken, httpClient, textOf } from '../../helpers/bridge.ts';
import { startNpmRegistry, type NpmRegistry } from '../../helpers/npm-registry.ts';
import { defined, fixtureServer, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// The store's follow-ups as the UI and the tray reach them, with a real npm, a real local registry
// (packages get in only through `npm publish`), a real `serve` over HTTP and a real MCP client: the
// approvals list answers while a registry hangs; the tray's Approve approves a package server; the
// UI's update (check, review, approve exactly what was shown) runs the new code.

const FIXTURES = join(import.meta.dirname, '../../fixtures/store');

let t: TempHome;
let registry: NpmRegistry;
let headless: Headless | undefined;
const clients: Client[] = [];

beforeEach(async () => {
  t = tempHome();
  registry = await startNpmRegistry();
  await registry.publish(join(FIXTURES, 'sb-store-dep'));
  await registry.publish(join(FIXTURES, 'sb-store-pkg'));
});

afterEach(async () => {
  await closeAll(clients);
  await headless?.stop();
  headless = undefined;
  await registry.close();
  t.cleanup();
});

async function serve(servers: Record<string, unknown>): Promise<Headless> {
  t.writeServers({ mcpServers: servers });
  headless = await startHeadless({
    home: t.home,
    keychain: new MemoryKeychain(),
    env: { ...t.env, ...registry.npmEnv(join(t.dir, 'npm-cache')) },
    port: 0,
    editorSync: false,
  });
  return headless;
}

/** The control API over real HTTP, as the UI calls it. */
async function api(h: Headless, method: string, path: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${h.port}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${h.tokens.controlToken()}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

async function approvals(h: Headless): Promise<ApprovalView[]> {
  const { body } = await api(h, 'GET', UiRoutes.approvals);
  return ApprovalViewSchema.array().parse((body as { approvals: unknown }).approvals);
}

function statusOf(h: Headless, name: string): ServerStatus | undefined {
  return h.core.status.report().servers.find((s) => s.name === name);
}

function running(h: Headless, name: string): Promise<ServerStatus> {
  return waitFor(
    () => {
      const s = statusOf(h, name);
      return s?.state === 'running' && s.toolCount !== null ? s : undefined;
    },
    60_000,
    `${name} running`,
  );
}

async function greet(h: Headless, name: string): Promise<string> {
  const client = await httpClient(`http://127.0.0.1:${h.port}/mcp/${name}`, editorToken(h.tokens));
  clients.push(client);
  return textOf(await client.callTool({ name: 'greet', arguments: { name: 'ada' } }));
}

describe('approvals of package servers', { timeout: 180_000 }, () => {
  it('lists every waiting server at once while a registry hangs, the package one as resolving', async () => {
    const release = registry.hold();
    const echo = fixtureServer('mini-server.mjs');
    const h = await serve({
      pkg: { command: 'npx', args: ['-y', 'sb-store-pkg'] },
      echo: { command: echo.command, args: echo.args },
    });
    const events: ApiEvent[] = [];
    h.core.events.on('approval', (server) => events.push({ type: 'approval', server }));

    // The registry answers nothing; the list answers anyway, with the other server approvable.
    const listed = await approvals(h);
    expect(listed.map((a) => [a.name, a.resolving, a.package])).toEqual([
      ['pkg', true, null],
      ['echo', false, null],
    ]);
    await waitFor(() => registry.held > 0 || undefined, 30_000, 'npm asking the registry');
    const other = defined(
      listed.find((a) => a.name === 'echo'),
      'echo',
    );
    expect(
      (await api(h, 'POST', `/api/servers/echo/approve`, { fingerprint: other.fingerprint })).status,
    ).toBe(200);
    await running(h, 'echo');
    // Asking again starts no second resolution and still does not wait.
    expect((await approvals(h)).map((a) => [a.name, a.resolving])).toEqual([['pkg', true]]);

    // Nothing can be approved for it while it resolves: the bare command is not what would run.
    const resolvingCard = defined((await approvals(h))[0], 'pkg');
    expect(
      (await api(h, 'POST', `/api/servers/pkg/approve`, { fingerprint: resolvingCard.fingerprint })).status,
    ).toBe(400);

    release();
    await waitFor(() => events.length > 0 || undefined, 60_000, 'the approval event');
    expect(events).toEqual([{ type: 'approval', server: 'pkg' }]);
    const [card] = await approvals(h);
    expect(card).toMatchObject({ name: 'pkg', resolving: false, packageError: null });
    expect(card?.package).toMatchObject({ name: 'sb-store-pkg', version: '1.0.0', dependencies: 1 });
    const approved = await api(h, 'POST', `/api/servers/pkg/approve`, { fingerprint: card?.fingerprint });
    expect(approved.status).toBe(200);
    await running(h, 'pkg');
    expect(await greet(h, 'pkg')).toBe('hello ada (sb-store-pkg 1.0.0, sb-store-dep 1.0.0)');
  });

  it('says why a package could not be resolved, on the card, without waiting for it again', async () => {
    const h = await serve({ gone: { command: 'npx', args: ['-y', 'sb-store-no-such-package'] } });
    expect((await approvals(h))[0]?.resolving).toBe(true);
    const failed = await waitFor(
      async () => {
        const [card] = await approvals(h);
        return card?.packageError ? card : undefined;
      },
      60_000,
      'the resolution to fail',
    );
    expect(failed.packageError).toContain('sb-store-no-such-package');
    expect(failed.resolving).toBe(false);
    // The list does not ask the registry again by itself; the card's "Try again" (preview) does.
    const asked = registry.requests.length;
    await approvals(h);
    expect(registry.requests.length).toBe(asked);
    expect((await api(h, 'GET', '/api/servers/gone/approval')).status).toBe(400);
    expect(registry.requests.length).toBeGreaterThan(asked);
  });

  it('the tray menu approves a package server with what it shows: the exact version resolved', async () => {
    const h = await serve({ pkg: { command: 'npx', args: ['-y', 'sb-store-pkg'] } });
    // As the desktop shell does (electron/shell/main.ts): ask for the preview of each newly waiting
    // server, rebuild the menu once it is in.
    const previews = new ApprovalPreviews();
    const menu = () =>
      buildTrayMenu(h.core.status.report(), { startAtLogin: false, loginItemSupported: false }, [], (s) =>
        previews.get(s.name, s.fingerprint),
      );
    const submenu = (): TrayItem[] => menu().find((i) => i.label === 'pkg')?.submenu ?? [];
    const wanted = previews.wanted(h.core.status.report(), Date.now());
    expect(wanted.map((w) => w.name)).toEqual(['pkg']);
    // While it resolves, "Approve…" opens the window: nothing unseen is approved from the menu.
    expect(submenu().find((i) => i.label === 'Approve…')?.action).toEqual({
      type: 'open',
      view: 'approvals',
      server: 'pkg',
    });
    for (const { name, fingerprint } of wanted)
      previews.resolved(name, fingerprint, await h.core.approvals.preview(name));

    const items = submenu();
    const labels = items.map((i) => i.label);
    expect(labels.some((l) => l.startsWith('package: sb-store-pkg 1.0.0 (published '))).toBe(true);
    expect(labels.some((l) => /^command: \S*npx -y sb-store-pkg$/.test(l))).toBe(true);
    const approve = defined(items.find((i) => i.label === 'Approve')?.action, 'the menu’s Approve');
    if (approve.type !== 'approve') throw new Error(`Approve does ${approve.type}`);
    // What the shell does on the click.
    h.core.approvals.approve(approve.server, approve.fingerprint, 'ui');
    await running(h, 'pkg');
    expect(await greet(h, 'pkg')).toBe('hello ada (sb-store-pkg 1.0.0, sb-store-dep 1.0.0)');
  });
});

describe('updates from the UI', { timeout: 180_000 }, () => {
  it('finds a newer release, reviews its diff, refuses a resolution that changed since, and runs the one approved', async () => {
    const h = await serve({ pkg: { command: 'npx', args: ['-y', 'sb-store-pkg'] } });
    h.core.approvals.approve('pkg', (await h.core.approvals.preview('pkg')).fingerprint);
    await running(h, 'pkg');
    const none = UpdatesReportSchema.parse((await api(h, 'POST', ApiRoutes.updatesCheck)).body);
    expect(none).toMatchObject({ checking: false, packages: 1, servers: [] });
    expect(none.checkedAt).toEqual(expect.any(Number));

    await registry.publishAs(join(FIXTURES, 'sb-store-dep'), '1.0.1');
    await registry.publishAs(join(FIXTURES, 'sb-store-pkg'), '1.1.0');
    const found = UpdatesReportSchema.parse((await api(h, 'POST', ApiRoutes.updatesCheck)).body);
    expect(found.servers).toEqual([
      expect.objectContaining({
        server: 'pkg',
        current: '1.0.0',
        wanted: '1.1.0',
        changes: ['sb-store-dep 1.0.0 → 1.0.1', 'sb-store-pkg 1.0.0 → 1.1.0'],
      }),
    ]);
    // Kept: the list reads it without asking the registry, and after a restart of Switchboard too.
    const asked = registry.requests.length;
    expect(UpdatesReportSchema.parse((await api(h, 'GET', ApiRoutes.updates)).body).servers).toEqual(
      found.servers,
    );
    expect(registry.requests.length).toBe(asked);

    // Review: the diff, and the fingerprint of exactly that resolution.
    const shown = (await api(h, 'GET', '/api/servers/pkg/approval?fresh=1')).body as {
      fingerprint: string;
      package: { version: string; changes: string[] };
    };
    expect(shown.package.version).toBe('1.1.0');
    expect(shown.package.changes).toEqual(['sb-store-dep 1.0.0 → 1.0.1', 'sb-store-pkg 1.0.0 → 1.1.0']);

    // Another release lands and something resolves again (a check) before the click: the shown one
    // is not what approving would install any more, so it is refused and nothing changes.
    await registry.publishAs(join(FIXTURES, 'sb-store-pkg'), '1.2.0');
    await api(h, 'POST', ApiRoutes.updatesCheck);
    const stale = await api(h, 'POST', '/api/servers/pkg/approve', { fingerprint: shown.fingerprint });
    expect(stale.status).toBe(409);
    expect(await greet(h, 'pkg')).toBe('hello ada (sb-store-pkg 1.0.0, sb-store-dep 1.0.0)');

    const again = (await api(h, 'GET', '/api/servers/pkg/approval?fresh=1')).body as {
      fingerprint: string;
      package: { version: string };
    };
    expect(again.package.version).toBe('1.2.0');
    expect(
      (await api(h, 'POST', '/api/servers/pkg/approve', { fingerprint: again.fingerprint })).status,
    ).toBe(200);
    await waitFor(
      async () => ((await greet(h, 'pkg')).includes('1.2.0') ? true : undefined),
      60_000,
      'the new version to answer',
    );
    expect(await greet(h, 'pkg')).toBe('hello ada (sb-store-pkg 1.2.0, sb-store-dep 1.0.1)');
    // Approved: what the check found no longer applies.
    expect(UpdatesReportSchema.parse((await api(h, 'GET', ApiRoutes.updates)).body).servers).toEqual([]);
  });
});
