import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Core } from '../../../electron/core/core.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import type { ServerStatus } from '../../../shared/status.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

/**
 * A running serve follows servers.json with the real file and a real chokidar watcher. serve reads
 * the file at its start and only then starts watching it (seconds under load): an edit made in that
 * gap raised no event, so the old config kept running without a word until the next edit. Each edit
 * here is made at exactly that moment (right after the read at start, before the watcher exists), so
 * the first test fails every time on the unfixed code, not now and then.
 */

let t: TempHome;
let core: Core | undefined;

beforeEach(() => {
  t = tempHome();
});

afterEach(async () => {
  await core?.lifecycle.shutdown();
  core = undefined;
  t.cleanup();
});

const mini = (tools: number) => ({
  mcpServers: { mini: fixtureServer('mini-server.mjs', `--tools=${tools}`) },
});

/** A core for serve (watching servers.json) with "mini" (2 tools) approved as it is in the file. */
function approvedCore(): Core {
  t.writeServers(mini(2));
  const made = new Core({ home: t.home, keychain: new MemoryKeychain(), env: t.env, watch: true });
  made.servers.load();
  made.approvals.approve('mini', made.approvals.review('mini').fingerprint);
  return (core = made);
}

/** Runs `edit` right after the core's next read of servers.json (the read at the lifecycle's start). */
function afterFirstRead(c: Core, edit: () => void): void {
  const load = c.servers.load.bind(c.servers);
  let first = true;
  c.servers.load = () => {
    load();
    if (!first) return;
    first = false;
    edit();
  };
}

function statusOf(c: Core, name: string): ServerStatus | undefined {
  return c.status.report().servers.find((s) => s.name === name);
}

function args(c: Core): readonly string[] {
  const config = c.servers.entries().get('mini')?.config;
  return config && 'args' in config ? config.args : [];
}

describe('servers.json followed by a running serve', () => {
  it('an edit made after serve read it at its start and before its watcher was ready is applied', async () => {
    const c = approvedCore();
    let configEvents = 0;
    c.events.on('config', () => configEvents++);
    afterFirstRead(c, () => t.writeServers(mini(3)));
    await c.lifecycle.start();
    // The edited command is another program than the one approved: it waits for approval instead of
    // the approved old one running on as if nothing had been edited.
    const waiting = await waitFor(
      () => (statusOf(c, 'mini')?.state === 'pending-approval' ? true : undefined),
      10_000,
      `the edit made before the watcher was ready applied (mini: ${JSON.stringify(statusOf(c, 'mini'))})`,
    );
    expect(waiting).toBe(true);
    expect(args(c)).toContain('--tools=3');
    expect(statusOf(c, 'mini')?.pid ?? null).toBeNull();
    // The UI is told, as for any edit.
    expect(configEvents).toBeGreaterThan(0);
    // And the watcher follows later edits.
    t.writeServers(mini(4));
    await waitFor(() => args(c).includes('--tools=4') || undefined, 10_000, 'a later edit');
  });

  it('a save that changes nothing in that gap reloads nothing: no event, the server is not restarted', async () => {
    const c = approvedCore();
    let configEvents = 0;
    c.events.on('config', () => configEvents++);
    afterFirstRead(c, () => t.writeServers(mini(2)));
    await c.lifecycle.start();
    const running = await waitFor(
      () => (statusOf(c, 'mini')?.state === 'running' ? statusOf(c, 'mini') : undefined),
      45_000,
      `mini running (last: ${JSON.stringify(statusOf(c, 'mini'))})`,
    );
    // Longer than the watcher's debounce and write-finish wait together.
    await new Promise((r) => setTimeout(r, 400));
    expect(configEvents).toBe(0);
    expect(statusOf(c, 'mini')).toMatchObject({ state: 'running', pid: running.pid });
  });
});
