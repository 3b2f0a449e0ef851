import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { quitSequence } from '../../../electron/desktop/quit.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { defined, everythingServer, fixtureServer, isAlive, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

let t: TempHome;
let headless: Headless | undefined;

afterEach(async () => {
  await headless?.stop();
  t.cleanup();
});

describe('quitting the app', () => {
  it('stops every server and its grandchildren exactly once, however many quit signals arrive', async () => {
    t = tempHome();
    const pidsFile = join(t.dir, 'pids.json');
    t.writeServers({
      mcpServers: {
        everything: everythingServer(),
        // Host pids from inside the server: unsandboxed (test/integration/sandbox stops sandboxed ones).
        family: {
          ...fixtureServer('mini-server.mjs', '--grandchild', `--pids-file=${pidsFile}`),
          sandbox: false,
        },
      },
    });
    headless = await startHeadless({ home: t.home, keychain: new OsKeychain(), env: t.env, port: 0 });
    headless.core.approvals.approve('everything', headless.core.approvals.review('everything').fingerprint);
    headless.core.approvals.approve('family', headless.core.approvals.review('family').fingerprint);
    const running = await waitFor(
      () => {
        const servers = headless?.core.status.report().servers ?? [];
        return servers.every((s) => s.state === 'running') ? servers : undefined;
      },
      45_000,
      'both running',
    );
    const { grandchild } = JSON.parse(readFileSync(pidsFile, 'utf8')) as { grandchild: number };
    const pids = [...running.map((s) => defined(s.pid, `pid of ${s.name}`)), grandchild];
    for (const pid of pids) expect(isAlive(pid)).toBe(true);

    const exits: number[] = [];
    let stops = 0;
    const quit = quitSequence({
      stopCore: async () => {
        stops++;
        await headless?.stop();
      },
      exit: (code) => exits.push(code),
    });
    // Menu quit, OS logout and SIGTERM can all arrive together.
    await Promise.all([quit.run(), quit.run(), quit.run()]);
    expect(stops).toBe(1);
    expect(exits).toEqual([0]);
    for (const pid of pids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
  });
});
