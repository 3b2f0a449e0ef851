import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EditorId } from '../../../shared/editors.ts';
import { exited, runCli, startServe } from '../../helpers/cli.ts';
import { fixtureServer, NODE, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { editorFile, install } from './helpers.ts';

/**
 * Commands that change editors' files while `switchboard serve` runs, on a busy machine: the CLI's
 * writes and serve's drift repair must never disagree, so that state.json's record of Switchboard's
 * entries is always what the files hold. Real files, a real serve, real CLI processes, and four busy
 * loops competing for the CPU (the issue's reproduction: every editor at once; it failed 6 of 6 times,
 * here in the first round).
 */

const EDITORS: EditorId[] = ['zed', 'vscode', 'cursor', 'windsurf', 'gemini-cli'];
let t: TempHome;
let serve: { child: ChildProcess; output: () => string } | undefined;
const busy: ChildProcess[] = [];

beforeEach(() => {
  t = tempHome();
});
afterEach(async () => {
  for (const child of busy.splice(0)) child.kill('SIGKILL');
  serve?.child.kill('SIGTERM');
  if (serve) await exited(serve.child);
  serve = undefined;
  t.cleanup();
});

interface EditorState {
  enabled: boolean;
  recorded: string[];
  inFile: boolean;
}

/** Per editor: sync on or off, the entries state.json says are Switchboard's, whether the file has one. */
function editorStates(): Record<string, EditorState> {
  const state = JSON.parse(readFileSync(t.home.stateFile, 'utf8')) as {
    editors?: Record<string, { enabled?: boolean; entries?: { names: string[] } }>;
  };
  return Object.fromEntries(
    EDITORS.map((id) => {
      const file = editorFile(t, id);
      const settings = state.editors?.[id];
      return [
        id,
        {
          enabled: settings?.enabled !== false,
          recorded: settings?.entries?.names ?? [],
          inFile: existsSync(file) && readFileSync(file, 'utf8').includes('/mcp/alpha'),
        },
      ];
    }),
  );
}

const synced = (): Record<string, EditorState> =>
  Object.fromEntries(EDITORS.map((id) => [id, { enabled: true, recorded: ['alpha'], inFile: true }]));
const unsynced = (): Record<string, EditorState> =>
  Object.fromEntries(EDITORS.map((id) => [id, { enabled: false, recorded: [], inFile: false }]));

/**
 * Watches for `ms` that the editors stay as expected: serve's drift repair, if it disagreed, would
 * put its entries back within this window (it reacts to a file change in well under a second). This
 * only ever fails a wrong state; a correct one passes whatever the load.
 */
async function staysSo(expected: Record<string, EditorState>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    expect(editorStates()).toEqual(expected);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('editor commands while serve runs, under load', () => {
  // Generous: under four busy loops a CLI start takes seconds; every step waits on a process's exit.
  it(
    'unsync and sync --all from the CLI never leave entries that state.json does not record',
    { timeout: 600_000 },
    async () => {
      for (const id of EDITORS) install(t, id);
      t.writeServers({ mcpServers: { alpha: fixtureServer('mini-server.mjs') } });
      expect((await runCli(['approve', 'alpha', '--yes'], t.env)).code).toBe(0);
      serve = await startServe(t.env);
      await waitFor(
        () => JSON.stringify(editorStates()) === JSON.stringify(synced()),
        30_000,
        'every editor synced',
      );

      for (let i = 0; i < 4; i++) busy.push(spawn(NODE, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
      for (let round = 1; round <= 3; round++) {
        const unsync = await runCli(['unsync', '--no-restore-secrets'], t.env);
        expect(unsync.code, `round ${round}: ${unsync.stderr}`).toBe(0);
        expect(editorStates(), `round ${round}, right after unsync`).toEqual(unsynced());
        await staysSo(unsynced(), 1_500);

        const again = await runCli(['sync', '--all'], t.env);
        expect(again.code, `round ${round}: ${again.stderr}`).toBe(0);
        expect(editorStates(), `round ${round}, right after sync --all`).toEqual(synced());
        await staysSo(synced(), 500);
      }
      expect(serve.output()).not.toContain('changed outside Switchboard');
    },
  );

  it('import, sync --exclude and backups restore go through serve: what they write, serve records', async () => {
    const mini = fixtureServer('mini-server.mjs');
    const zed = install(
      t,
      'zed',
      JSON.stringify(
        { context_servers: { mine: { command: mini.command, args: [...mini.args, '--tools=2'] } } },
        null,
        2,
      ),
    );
    install(t, 'cursor');
    t.writeServers({ mcpServers: { alpha: mini } });
    expect((await runCli(['approve', 'alpha', '--yes'], t.env)).code).toBe(0);
    serve = await startServe(t.env);
    await waitFor(() => readFileSync(zed, 'utf8').includes('/mcp/alpha'), 30_000, 'zed synced');
    const state = () =>
      JSON.parse(readFileSync(t.home.stateFile, 'utf8')) as {
        approvals: Record<string, { source: string }>;
        editors: Record<string, { enabled?: boolean; exclude: string[]; entries?: { names: string[] } }>;
      };

    // A listing that is not what the editors hold now is refused by serve: nothing imported.
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(serve.output())?.[1]);
    const control = readFileSync(join(t.home.tokens, 'control'), 'utf8').trim();
    const stale = await fetch(`http://127.0.0.1:${port}/api/editors/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${control}`, 'content-type': 'application/json' },
      body: JSON.stringify({ listing: 'f'.repeat(64) }),
    });
    expect(stale.status).toBe(409);
    expect(JSON.stringify(await stale.json())).toContain('changed since the servers to import were listed');
    expect(state().approvals.mine).toBeUndefined();

    const imported = await runCli(['import', '--yes'], t.env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(state().approvals.mine?.source).toBe('import');
    expect(state().editors.zed?.entries?.names).toEqual(['alpha', 'mine']);
    expect(readFileSync(zed, 'utf8')).toContain('/mcp/mine');

    const excluded = await runCli(['sync', '--editor', 'zed', '--exclude', 'alpha'], t.env);
    expect(excluded.code, excluded.stderr).toBe(0);
    expect(excluded.stdout).toContain('Switchboard is running');
    expect(state().editors.zed).toMatchObject({ exclude: ['alpha'], entries: { names: ['mine'] } });
    expect(readFileSync(zed, 'utf8')).not.toContain('/mcp/alpha');

    const backup = (
      JSON.parse((await runCli(['backups', '--json'], t.env)).stdout) as {
        backups: { id: string; editor: string; reason: string }[];
      }
    ).backups.find((b) => b.editor === 'zed' && b.reason === 'original');
    const restored = await runCli(['backups', 'restore', backup?.id ?? '?'], t.env);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(`Restored ${zed} from backup`);
    expect(readFileSync(zed, 'utf8')).not.toContain('/mcp/');
    expect(state().editors.zed?.enabled).toBe(false);
    expect(serve.output()).not.toContain('changed outside Switchboard');
  });
});
