import { afterEach, describe, expect, it } from 'vitest';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import type { ApiEvent } from '../../../shared/api.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { install } from '../editors/helpers.ts';

// The desktop app's window gets its live updates from BridgeServer.onEvent (no HTTP in between):
// it must see every kind of event /api/events sends, editor sync included.

let t: TempHome | undefined;
let headless: Headless | undefined;
afterEach(async () => {
  await headless?.stop();
  headless = undefined;
  t?.cleanup();
});

describe('in-process events (what the desktop window is sent)', () => {
  it('delivers status, log and config changes, and editor sync reports', async () => {
    t = tempHome();
    t.writeServers({ mcpServers: { worker: fixtureServer('env-echo-server.mjs') } });
    install(t, 'zed', '{}\n');
    headless = await startHeadless({
      home: t.home,
      keychain: new MemoryKeychain(),
      env: t.env,
      port: 0,
      editorSync: { log: () => {} },
    });
    const seen: ApiEvent[] = [];
    const stop = headless.bridge.onEvent((event) => seen.push(event));
    headless.core.approvals.approve('worker', headless.core.approvals.review('worker').fingerprint);
    const h = headless;
    await waitFor(() => h.core.status.report().servers[0]?.state === 'running', 30_000, 'worker running');
    await h.editors?.syncNow();
    await waitFor(() => seen.some((e) => e.type === 'editors'), 5_000, 'an editors event');
    const kinds = new Set(seen.map((e) => e.type));
    expect([...kinds].sort()).toEqual(expect.arrayContaining(['editors', 'log', 'status']));
    stop();
    const before = seen.length;
    await h.core.lifecycle.restartServer('worker');
    expect(seen.length).toBe(before); // unsubscribed
  });
});
