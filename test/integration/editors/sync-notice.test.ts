import { describe, expect, it } from 'vitest';
import { syncNoticeEditors } from '../../../renderer/src/lib/editor-sync-notice.ts';
import { EditorsResponseSchema, SettingsSchema, UiRoutes } from '../../../shared/ui-api.ts';
import { runCli } from '../../helpers/cli.ts';
import { useHeadless } from '../../helpers/headless.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';
import { installAll } from './helpers.ts';

// Issue 36 item 9: after `unsync`, the first-run notice of editor sync said "No editor was found on
// this computer yet" although every editor's file was there. What the notice names is computed from
// GET /api/editors (renderer/src/lib/editor-sync-notice.ts); here from the real route, after a real
// sync by approval and a real `switchboard unsync`.

const setup = useHeadless();

describe('the editor-sync notice after unsync', () => {
  it('names the editors found, with sync turned off, instead of saying none was found', async () => {
    installAll(setup.t);
    setup.t.writeServers({ mcpServers: { mini: fixtureServer('mini-server.mjs') } });
    const h = await setup.start({ editorSync: { log: () => {} } });
    await h.editors?.ready;
    const get = async (path: string): Promise<unknown> => {
      const res = await fetch(setup.base + path, {
        headers: { authorization: `Bearer ${h.tokens.controlToken()}` },
      });
      expect(res.status).toBe(200);
      return res.json();
    };
    const editors = async () => EditorsResponseSchema.parse(await get(UiRoutes.editors)).editors;
    await setup.approveRunning(['mini']);
    await waitFor(
      async () => (await editors()).every((e) => e.state === 'in-sync'),
      30_000,
      'every editor synced',
    );
    const labels = (await editors()).map((e) => e.label);
    expect(labels.length).toBeGreaterThan(1);
    expect(syncNoticeEditors(await editors())).toEqual({ synced: labels, off: [] });

    const unsync = await runCli(['unsync'], setup.t.env);
    expect(unsync.code, unsync.stdout + unsync.stderr).toBe(0);
    // The notice is still to be shown (it was never answered, and sync is still on).
    expect(SettingsSchema.parse(await get(UiRoutes.settings)).editorSyncNotice).toBe(true);

    const named = syncNoticeEditors(await editors());
    expect(named.synced).toEqual([]);
    expect(named.off).toEqual(labels);
  });
});
