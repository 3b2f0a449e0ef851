import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

/**
 * serve's watchers of servers.json, of the projects' folders and of the token folder when the system
 * refuses a watch (inotify's limit of watched files reached, ENOSPC): chokidar reports it as an
 * 'error' event, which unhandled threw and ended serve; node's fs.watch (the token folder) throws at
 * once, so serve did not start. The limit is real: a user namespace of the test's own whose
 * limit of inotify watches is 0 (Linux 5.11+), so nothing outside that one process is touched.
 */

let t: TempHome;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

const host = fileURLToPath(new URL('../../fixtures/watch-host.ts', import.meta.url));

describe.runIf(process.platform === 'linux')('a watcher the system refuses', () => {
  it('serve keeps running and its log names the file or folder and what to do', () => {
    t.writeServers({ mcpServers: {} });
    const run = spawnSync(
      'unshare',
      [
        '--user',
        '--map-root-user',
        'sh',
        '-c',
        'echo 0 > /proc/sys/user/max_inotify_watches && exec "$0" "$@"',
        process.execPath,
        host,
        t.home.root,
      ],
      { env: t.env, encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.stdout, run.stderr).toContain('started');
    expect(run.status, run.stderr).toBe(0);
    const fix =
      "To fix it: raise the system's limit of watched files (sudo sysctl fs.inotify.max_user_watches=524288), then restart Switchboard.";
    expect(run.stderr).toContain(`cannot watch ${t.home.serversFile} (ENOSPC`);
    expect(run.stderr).toContain(`cannot watch the folder ${t.home.root} (ENOSPC`);
    expect(run.stderr).toContain(fix);
    // The token folder unwatched: tokens written there by another process (the CLI when it finds no
    // instance) are still honoured at once, and stop working once their file is deleted.
    expect(run.stderr).toContain(`cannot watch the token folder ${t.home.tokens} (ENOSPC`);
    expect(run.stdout).toContain('token ci created elsewhere: ci\n');
    expect(run.stdout).toContain('token ci deleted elsewhere: refused\n');
  });
});
