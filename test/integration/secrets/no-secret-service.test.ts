import { existsSync, readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { missingKeychain } from '../../../electron/core/secrets/keychain-check.ts';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { exited, runCli, startServe } from '../../helpers/cli.ts';
import { waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Issue 24 item 14, on a Linux machine without a Secret Service (a D-Bus address where nothing
// listens): storing a secret says it could not be stored (not "could not read"), and says what to
// install; `serve` says so when it starts, before any secret is needed.

const TOKEN = 'ghp_' + 'Vb7Qm2Xk9LrTz4Wn8Hc1Yp6Ds3Ga5UeJoFi0';
let t: TempHome;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  t = tempHome();
  env = { ...t.env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${t.dir}/no-bus` };
});
afterEach(() => t.cleanup());

describe.runIf(process.platform === 'linux')('without a Secret Service', () => {
  it('a token given to add is reported as not stored, with what to install; nothing is added', async () => {
    const run = await runCli(['add', 'gh', '--env', `GITHUB_TOKEN=${TOKEN}`, '--', 'npx', '-y', 'x'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'could not store GITHUB_TOKEN of server "gh" in the keychain: no Secret Service reachable',
    );
    expect(run.stderr).not.toContain('could not read');
    expect(run.stderr).toContain('sudo apt install gnome-keyring');
    expect(run.stderr).not.toContain(TOKEN);
    expect(existsSync(t.home.serversFile) ? readFileSync(t.home.serversFile, 'utf8') : '').not.toContain(
      'gh',
    );
  });

  it('serve says at start that there is no keychain and what to install', async () => {
    const serve = await startServe(env);
    try {
      await waitFor(() => serve.output().includes('No keychain:'), 15_000, 'the keychain hint');
      expect(serve.output()).toMatch(/Servers that use \$\{secret:…\} cannot start/);
      expect(serve.output()).toContain('install and start a Secret Service: GNOME Keyring');
    } finally {
      serve.child.kill('SIGTERM');
      await exited(serve.child);
    }
  });

  it('the start-up check finds the real keychain of this test session (no false alarm)', async () => {
    // (The dead bus is the serve test's: the keychain library keeps its D-Bus connection per process.)
    expect(await missingKeychain(new OsKeychain())).toBeUndefined();
  });
});
