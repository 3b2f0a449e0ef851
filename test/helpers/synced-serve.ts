import { readFileSync } from 'node:fs';
import type { EditorId } from '../../shared/editors.ts';
import { EDITORS } from '../../electron/core/editors/registry.ts';
import { OsKeychain } from '../../electron/core/secrets/keychain.ts';
import { userDirs } from '../../electron/core/user-dirs.mjs';
import { startHeadless, type Headless } from '../../electron/headless/serve.ts';
import { approveRunning } from './headless.ts';
import { everythingServer, waitFor } from './servers.ts';
import type { TempHome } from './temp-home.ts';

/**
 * What the real-client tests (test/clients) start before any client runs: a headless Switchboard on
 * home `t` (the real keychain, editor sync on) serving @modelcontextprotocol/server-everything as
 * "everything", approved as reviewed, running with its tools known, and written into the file of
 * each of `editors` (their user files installed beforehand). Stopped again if it gets no further.
 */
export async function startSyncedEverything(t: TempHome, editors: readonly EditorId[]): Promise<Headless> {
  t.writeServers({ mcpServers: { everything: everythingServer() } });
  const h = await startHeadless({
    home: t.home,
    keychain: new OsKeychain(),
    env: t.env,
    port: 0,
    editorSync: { log: () => {} },
  });
  try {
    await approveRunning(h.core, ['everything'], 60_000);
    const file = (editor: EditorId) => EDITORS[editor].file(userDirs(t.env));
    await waitFor(
      () => editors.every((e) => readFileSync(file(e), 'utf8').includes('/mcp/everything')),
      15_000,
      'every client file synced',
    );
    return h;
  } catch (error) {
    await h.stop();
    throw error;
  }
}
