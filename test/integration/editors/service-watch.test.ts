import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Core } from '../../../electron/core/core.ts';
import { EditorSyncService } from '../../../electron/core/editors/service.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { TokenStore } from '../../../electron/core/tokens/token-store.ts';
import { NODE, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { install } from './helpers.ts';

/**
 * A running serve follows each synced editor's settings file with a real chokidar watcher, to put
 * back Switchboard's entries when someone changes them. At start it writes the file and only then
 * starts watching it (seconds under load): an edit made in that gap raised no event, so the drifted
 * entry stayed until the file's next change. Each edit here is made at exactly that moment (right
 * after the start's sync wrote the file, before its watcher exists), so the first test fails every
 * time on the unfixed code, not now and then.
 */

let t: TempHome;
let service: EditorSyncService | undefined;
beforeEach(() => {
  t = tempHome();
});
afterEach(async () => {
  await service?.close();
  service = undefined;
  t.cleanup();
});

const URL = 'http://127.0.0.1:43117/mcp/alpha';

function zedAlphaUrl(file: string): string | undefined {
  const settings = parse(readFileSync(file, 'utf8')) as {
    context_servers?: Record<string, { url?: string }>;
  };
  return settings.context_servers?.alpha?.url;
}

/** The service serve runs, with "alpha" approved and Zed installed; `edit` runs right after its first write. */
function startingService(
  logs: string[],
  edit: (zed: string) => void,
): { service: EditorSyncService; zed: string } {
  t.writeServers({ mcpServers: { alpha: { command: NODE, args: ['a.js'] } } });
  const core = new Core({ home: t.home, keychain: new MemoryKeychain(), env: t.env });
  core.servers.load();
  core.approvals.approve('alpha', core.approvals.review('alpha').fingerprint);
  const zed = install(t, 'zed', '{\n  "theme": "One Dark"\n}\n');
  const made = new EditorSyncService({
    core,
    tokens: new TokenStore(t.home.tokens),
    home: t.home,
    env: t.env,
    port: 43117,
    log: (line) => logs.push(line),
  });
  const sync = made.engine.sync.bind(made.engine);
  let first = true;
  made.engine.sync = async (servers, request) => {
    const reports = await sync(servers, request);
    if (first && !request?.dryRun) {
      first = false;
      edit(zed);
    }
    return reports;
  };
  return { service: (service = made), zed };
}

describe('editors’ files followed by a running serve', () => {
  it('an entry changed after the start’s sync wrote the file and before its watcher was ready is put back', async () => {
    const logs: string[] = [];
    const drifts: string[][] = [];
    const { service: s, zed } = startingService(logs, (file) =>
      writeFileSync(file, readFileSync(file, 'utf8').replace(URL, 'http://127.0.0.1:9999/mcp/alpha')),
    );
    s.on('drift', (_editor, servers) => drifts.push(servers));
    // Put back by the time the service says it is ready (its first sync and watchers in place).
    await s.start();
    expect(zedAlphaUrl(zed), logs.join('\n')).toBe(URL);
    expect(drifts).toEqual([['alpha']]);
    expect(logs.join('\n')).toMatch(/Zed: alpha changed outside Switchboard/);
    // And the watcher follows later edits.
    writeFileSync(zed, readFileSync(zed, 'utf8').replace(URL, 'http://127.0.0.1:9998/mcp/alpha'));
    await waitFor(() => zedAlphaUrl(zed) === URL || undefined, 10_000, 'a later edit put back');
  });

  it('an edit in that gap that leaves Switchboard’s entries alone changes nothing', async () => {
    const logs: string[] = [];
    const drifts: string[][] = [];
    let edited = '';
    const { service: s, zed } = startingService(logs, (file) => {
      edited = readFileSync(file, 'utf8').replace('"One Dark"', '"One Light"');
      writeFileSync(file, edited);
    });
    s.on('drift', (_editor, servers) => drifts.push(servers));
    await s.start();
    // Longer than the watcher's debounce and write-finish wait together.
    await new Promise((r) => setTimeout(r, 500));
    expect(edited).toContain('"One Light"');
    expect(readFileSync(zed, 'utf8')).toBe(edited);
    expect(drifts).toEqual([]);
    expect(logs.join('\n')).not.toMatch(/changed outside Switchboard/);
  });
});
