import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EditorViewSchema } from '../../../shared/ui-api.ts';
import { TokenStore } from '../../../electron/core/tokens/token-store.ts';
import { Core } from '../../../electron/core/core.ts';
import { syncResult } from '../../../electron/core/editors/report.ts';
import { EditorSyncService } from '../../../electron/core/editors/service.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';
import { NODE, waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { install } from './helpers.ts';

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

describe('the editor sync service (what the UI and serve use)', () => {
  it('shows each editor’s state, the diff a sync would make, its backups; syncs and restores', async () => {
    t.writeServers({ mcpServers: { alpha: { command: NODE, args: ['a.js'] } } });
    const keychain = new MemoryKeychain();
    const core = new Core({ home: t.home, keychain, env: t.env });
    core.servers.load();
    core.approvals.approve('alpha', core.approvals.review('alpha').fingerprint);
    const zed = install(t, 'zed', '{\n  "theme": "One Dark"\n}\n');
    const cursor = install(t, 'cursor', '{ "mcpServers": ');
    install(t, 'vscode');
    const logs: string[] = [];
    service = new EditorSyncService({
      core,
      tokens: new TokenStore(t.home.tokens),
      home: t.home,
      env: t.env,
      port: 43117,
      log: (l) => logs.push(l),
    });

    const before = await service.views();
    for (const view of before) EditorViewSchema.parse(view);
    const byId = (views: typeof before) => Object.fromEntries(views.map((v) => [v.id, v]));
    expect(byId(before).zed?.state).toBe('not-synced');
    expect(byId(before).zed?.diff).toContain('+  "context_servers": {');
    expect(byId(before).cursor?.state).toBe('error');
    expect(byId(before).cursor?.problem).toMatch(/line 1, column 17: expected a value/);
    expect(byId(before).windsurf?.state).toBe('not-installed');
    expect(readFileSync(zed, 'utf8')).toBe('{\n  "theme": "One Dark"\n}\n'); // views write nothing

    const result = syncResult(await service.syncNow());
    expect(result.changed.sort()).toEqual(['vscode', 'zed']);
    expect(result.problems.map((p) => p.editor)).toEqual(['cursor']);
    expect(readFileSync(cursor, 'utf8')).toBe('{ "mcpServers": ');
    const after = byId(await service.views());
    expect(after.zed?.state).toBe('in-sync');
    expect(after.zed?.diff).toBe('');
    expect(after.zed?.backups).toHaveLength(1);

    writeFileSync(zed, readFileSync(zed, 'utf8').replace('/mcp/alpha', '/mcp/beta'));
    expect(byId(await service.views()).zed?.state).toBe('drift');

    await service.restore('zed', after.zed?.backups[0]?.id ?? '', () => keychain);
    expect(readFileSync(zed, 'utf8')).toBe('{\n  "theme": "One Dark"\n}\n');
    expect(byId(await service.views()).zed?.state).toBe('disabled');
    await expect(service.restore('vscode', after.zed?.backups[0]?.id ?? '', () => keychain)).rejects.toThrow(
      /is of zed/,
    );
  });

  it('rewrites an editor’s entries when its token is rotated, so the editor keeps working', async () => {
    t.writeServers({ mcpServers: { alpha: { command: NODE, args: ['a.js'] } } });
    const core = new Core({ home: t.home, keychain: new MemoryKeychain(), env: t.env });
    core.servers.load();
    core.approvals.approve('alpha', core.approvals.review('alpha').fingerprint);
    const zed = install(t, 'zed', '{\n  "theme": "One Dark"\n}\n');
    const tokens = new TokenStore(t.home.tokens, { watch: true });
    service = new EditorSyncService({ core, tokens, home: t.home, env: t.env, port: 43117, log: () => {} });
    await service.start();
    const first = tokens.ensure('zed');
    expect(readFileSync(zed, 'utf8')).toContain(`Bearer ${first}`);

    const rotated = tokens.create('zed').token; // what `switchboard token create zed` does
    await waitFor(
      () => readFileSync(zed, 'utf8').includes(`Bearer ${rotated}`),
      5_000,
      'the new token in Zed',
    );
    expect(readFileSync(zed, 'utf8')).not.toContain(first);
    tokens.close();
  });
});
