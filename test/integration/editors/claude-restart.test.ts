import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TokenStore } from '../../../electron/core/tokens/token-store.ts';
import { Core } from '../../../electron/core/core.ts';
import { linuxApps } from '../../../electron/core/desktop-apps/linux.ts';
import { claudeDesktop } from '../../../electron/core/editors/claude-desktop.ts';
import { desktopAppOf } from '../../../electron/core/editors/processes.ts';
import { EditorSyncService } from '../../../electron/core/editors/service.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { EditorRestartResultSchema, type EditorView } from '../../../shared/ui-api.ts';
import { runCli } from '../../helpers/cli.ts';
import { argvOf, fakeApps, isAlive, type FakeApps } from '../../helpers/fake-claude-desktop.ts';
import { NODE, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { install } from './helpers.ts';

/**
 * "Restart Claude Desktop" with real processes: a copy of /bin/sleep named `claude-desktop` is what
 * Linux community builds of Claude Desktop run as. The hint is pending only while such a process that
 * started before Switchboard's last write of claude_desktop_config.json runs; restarting it ends it
 * and starts the same program with the same argv; processes of other names are never touched.
 */
const linux = process.platform === 'linux';
const app = desktopAppOf(claudeDesktop);
if (!app) throw new Error('Claude Desktop is a desktop app');

let t: TempHome;
let apps: FakeApps;
let service: EditorSyncService | undefined;
beforeEach(() => {
  t = tempHome();
  apps = fakeApps(t.dir);
  // Core, EditorSyncService and the CLI see only this test's fake apps (others run side by side).
  Object.assign(t.env, apps.env);
});
afterEach(async () => {
  await service?.close();
  service = undefined;
  apps.cleanup();
  t.cleanup();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

function setup(servers: string[]): Core {
  t.writeServers({
    mcpServers: Object.fromEntries(servers.map((n) => [n, { command: NODE, args: [`${n}.js`] }])),
  });
  const core = new Core({ home: t.home, keychain: new MemoryKeychain(), env: t.env });
  core.servers.load();
  for (const name of servers) core.approvals.approve(name, core.approvals.review(name).fingerprint);
  install(t, 'claude-desktop');
  return core;
}

async function claudeView(s: EditorSyncService): Promise<EditorView> {
  const view = (await s.views()).find((v) => v.id === 'claude-desktop');
  if (!view) throw new Error('no Claude Desktop view');
  return view;
}

describe.runIf(linux)('the "restart Claude Desktop" hint and restart, with real processes', () => {
  it('sees a process named claude-desktop by its program name, with its start time', async () => {
    const before = Date.now();
    const pid = await apps.start();
    const found = (await apps.control().list(app)) ?? [];
    const mine = found.find((p) => p.pid === pid);
    expect(mine).toBeDefined();
    // Started between `before` and now, within the clock's precision.
    expect(mine?.startedAt).toBeGreaterThanOrEqual(before - 50);
    expect(mine?.startedAt).toBeLessThanOrEqual(Date.now() + 50);
    // A bystander of another name is not Claude Desktop.
    const other = await apps.start('claude-desktop-helper');
    expect(((await apps.control().list(app)) ?? []).some((p) => p.pid === other)).toBe(false);
  });

  it('is pending while Claude Desktop runs since before the write, and clears by itself when it exits', async () => {
    const core = setup(['alpha']);
    const old = await apps.start();
    await pause(100);
    service = new EditorSyncService({
      core,
      tokens: new TokenStore(t.home.tokens),
      home: t.home,
      env: t.env,
      port: 43117,
      log: () => {},
      restartCheckMs: 100,
    });
    const changes: string[][] = [];
    service.on('restart', (editors) => changes.push(editors));
    expect((await claudeView(service)).restartRequired).toBe(false); // not written yet

    const [report] = await service.syncNow('claude-desktop');
    expect(report?.status).toBe('written');
    expect(report?.running).toBe(true);
    const pending = await claudeView(service);
    expect(pending.restartRequired).toBe(true);
    expect(pending.canRestart).toBe(true);

    // Quit by the person: the core's own re-check (no view asked) clears it and says so.
    process.kill(old, 'SIGTERM');
    await waitFor(() => !service?.restartWatch.state('claude-desktop').pending, 5_000, 'the hint to clear');
    await waitFor(() => changes.some((c) => c.includes('claude-desktop')), 5_000, 'a restart event');
    expect((await claudeView(service)).restartRequired).toBe(false);

    // Started after the write: it read the new file.
    await pause(100);
    await apps.start();
    expect((await claudeView(service)).restartRequired).toBe(false);
  });

  it('restarts it: ends the old process, starts the same program with the same argv, hint cleared, nothing else touched', async () => {
    const core = setup(['alpha']);
    const old = await apps.start('claude-desktop', ['600', '0.25']);
    const bystanders = [
      await apps.start('claude'),
      await apps.start('claude-desktop-helper'),
      await apps.start('Claude Desktop'),
    ];
    await pause(100);
    service = new EditorSyncService({
      core,
      tokens: new TokenStore(t.home.tokens),
      home: t.home,
      env: t.env,
      port: 43117,
      log: () => {},
    });
    await service.syncNow('claude-desktop');
    const writtenAt = core.state.editorSettings('claude-desktop').writtenAt ?? 0;
    expect(writtenAt).toBeGreaterThan(0);
    expect((await claudeView(service)).restartRequired).toBe(true);

    const oldArgv = argvOf(old);
    const result = EditorRestartResultSchema.parse(await service.restart('claude-desktop'));
    expect(result.outcome).toBe('restarted');
    expect(result.message).toMatch(/Claude Desktop restarted/);
    expect(result.pids).toHaveLength(1);
    const [fresh = 0] = result.pids;
    expect(fresh).not.toBe(old);
    expect(isAlive(old)).toBe(false);
    expect(isAlive(fresh)).toBe(true);
    expect(argvOf(fresh)).toEqual(oldArgv);
    const started = ((await apps.control().list(app)) ?? []).find((p) => p.pid === fresh);
    expect(started?.startedAt).toBeGreaterThan(writtenAt);
    expect((await claudeView(service)).restartRequired).toBe(false);
    for (const pid of bystanders) expect(isAlive(pid), `bystander ${pid}`).toBe(true);
    expect(apps.running().filter((p) => p.exe.endsWith('/claude-desktop'))).toHaveLength(1);
  });

  it("never sees another test's fake Claude Desktop: listing and restarting, in-process and from the CLI", async () => {
    // Two test files, side by side, each with its own home and fake app of the same name.
    const other = tempHome();
    const theirs = fakeApps(other.dir);
    try {
      const mine = await apps.start();
      const foreign = await theirs.start();
      // To the OS (and to a person with two Claude Desktops) both are Claude Desktop…
      const all = ((await linuxApps().list(app)) ?? []).map((p) => p.pid);
      expect(all).toEqual(expect.arrayContaining([mine, foreign]));
      // …but a test scoped to its own folder sees, ends and restarts only its own.
      expect(((await apps.control().list(app)) ?? []).map((p) => p.pid)).toEqual([mine]);
      const result = await apps.control().restart(app);
      expect(result).toMatchObject({ outcome: 'restarted', pids: [expect.any(Number)] });
      expect(isAlive(mine)).toBe(false);
      expect(isAlive(foreign), "the other home's app").toBe(true);

      const cli = await runCli(['editors', 'restart', 'claude-desktop', '--json'], t.env);
      expect(cli.code, cli.stderr).toBe(0);
      expect(EditorRestartResultSchema.parse(JSON.parse(cli.stdout)).outcome).toBe('restarted');
      expect(isAlive(foreign), "the other home's app, after the CLI's restart").toBe(true);
      expect(theirs.running().map((p) => p.pid)).toEqual([foreign]);
    } finally {
      theirs.cleanup();
      other.cleanup();
    }
  });

  it('starts an AppImage again from its file, not from its mount (gone once it quits)', async () => {
    // What an AppImage's runtime sets: APPDIR is the mount its program runs from, APPIMAGE the file.
    const mount = join(t.dir, 'fake-apps');
    const image = apps.program('Claude.AppImage');
    const child = spawn(apps.program('claude-desktop'), ['600', '0.75'], {
      stdio: 'ignore',
      detached: true,
      env: { ...process.env, APPIMAGE: image, APPDIR: mount, MARK: 'kept' },
    });
    child.unref();
    await waitFor(() => apps.running().some((p) => p.pid === child.pid), 5_000, 'the fake AppImage');
    const result = await apps.control().restart(app);
    expect(result.outcome).toBe('restarted');
    const [fresh = 0] = result.outcome === 'restarted' ? result.pids : [];
    expect(apps.running().find((p) => p.pid === fresh)).toMatchObject({
      exe: image,
      argv: [image, '600', '0.75'],
    });
    const env = readFileSync(`/proc/${fresh}/environ`, 'utf8').split('\0');
    expect(env).toContain('MARK=kept');
    expect(env.some((kv) => kv.startsWith('APPDIR='))).toBe(false);
  });

  it('never starts Claude Desktop when it is not running: it reads the file at its next start', async () => {
    const core = setup(['alpha']);
    service = new EditorSyncService({
      core,
      tokens: new TokenStore(t.home.tokens),
      home: t.home,
      env: t.env,
      port: 43117,
      log: () => {},
    });
    const [report] = await service.syncNow('claude-desktop');
    expect(report?.running).toBe(false);
    expect((await claudeView(service)).restartRequired).toBe(false);
    const result = await service.restart('claude-desktop');
    expect(result).toMatchObject({ outcome: 'not-running', pids: [] });
    expect(result.message).toMatch(/not running: it reads its settings when it next starts/);
    expect(apps.running()).toEqual([]);
    await expect(service.restart('zed')).rejects.toThrow(/Zed needs no restart/);
  });

  it('from the CLI: sync names the command, editors shows it pending, editors restart restarts it', async () => {
    setup(['alpha']);
    const old = await apps.start();
    await pause(100);
    const sync = await runCli(['sync', '--editor', 'claude-desktop'], t.env);
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stdout).toContain(
      'It is running now: switchboard editors restart claude-desktop restarts it',
    );

    const listed = await runCli(['editors', '--json'], t.env);
    const claude = (
      JSON.parse(listed.stdout) as { id: string; restartPending: boolean; detail: string }[]
    ).find((e) => e.id === 'claude-desktop');
    expect(claude).toMatchObject({ restartPending: true });
    expect(claude?.detail).toContain('switchboard editors restart claude-desktop');

    const restarted = await runCli(['editors', 'restart', 'claude-desktop', '--json'], t.env);
    expect(restarted.code, restarted.stderr).toBe(0);
    const result = EditorRestartResultSchema.parse(JSON.parse(restarted.stdout));
    expect(result.outcome).toBe('restarted');
    expect(isAlive(old)).toBe(false);
    expect(result.pids.every(isAlive)).toBe(true);
    const after = await runCli(['editors', '--json'], t.env);
    expect(
      (JSON.parse(after.stdout) as { id: string; restartPending: boolean }[]).find(
        (e) => e.id === 'claude-desktop',
      )?.restartPending,
    ).toBe(false);

    apps.cleanup();
    await waitFor(() => apps.running().length === 0, 5_000, 'the fake app to end');
    const idle = await runCli(['editors', 'restart', 'claude-desktop'], t.env);
    expect(idle.code).toBe(0);
    expect(idle.stdout).toMatch(/Claude Desktop is not running: it reads its settings when it next starts/);
    expect(apps.running()).toEqual([]);

    const zed = await runCli(['editors', 'restart', 'zed'], t.env);
    expect(zed.code).toBe(2);
    expect(zed.stderr).toMatch(/Zed needs no restart/);
  });
});
