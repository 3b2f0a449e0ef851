import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppStateStore } from '../../../electron/core/trust/app-state.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { editorFile, engineFor, install } from './helpers.ts';

// Discovery mode in an editor's file: one entry, "switchboard", for the aggregate /mcp (where the
// editor gets find_tools and call_tool) instead of one entry per server; off again, the entries per
// server come back and "switchboard" goes. Real files in a temp HOME.

let t: TempHome;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

const servers = [{ name: 'alpha' }, { name: 'beta' }];

function entries(file: string): Record<string, { url?: string; args?: string[] }> {
  return (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, { url?: string }> })
    .mcpServers;
}

describe('discovery mode in editor files', () => {
  it('gives the editor one entry for /mcp instead of one per server, and back', async () => {
    const file = install(t, 'cursor', '{"mcpServers": {"mine": {"command": "my-server"}}}\n');
    const state = new AppStateStore(t.home.stateFile);
    const engine = engineFor(t);
    await engine.sync(servers, { editors: ['cursor'] });
    expect(Object.keys(entries(file))).toEqual(['mine', 'alpha', 'beta']);

    state.updateEditorSettings('cursor', (s) => void (s.discovery = true));
    const [report] = await engine.sync(servers, { editors: ['cursor'] });
    expect(report?.status, report?.problem).toBe('written');
    expect(Object.keys(entries(file))).toEqual(['mine', 'switchboard']);
    expect(entries(file).switchboard?.url).toBe('http://127.0.0.1:43117/mcp');
    // Counted as the servers it reaches through that entry (issue 24 item 10), not as one "switchboard".
    expect(report?.servers).toEqual(['alpha', 'beta']);
    const [again] = await engine.sync(servers, { editors: ['cursor'], dryRun: true });
    expect(again?.status).toBe('unchanged');
    expect(again?.servers).toEqual(['alpha', 'beta']);

    state.updateEditorSettings('cursor', (s) => void delete s.discovery);
    await engine.sync(servers, { editors: ['cursor'] });
    expect(Object.keys(entries(file))).toEqual(['mine', 'alpha', 'beta']);
  });

  it('counts no server when your own entry named "switchboard" keeps the one entry out', async () => {
    const file = install(t, 'cursor', '{"mcpServers": {"switchboard": {"command": "mine"}}}\n');
    new AppStateStore(t.home.stateFile).updateEditorSettings('cursor', (s) => void (s.discovery = true));
    const [report] = await engineFor(t).sync(servers, { editors: ['cursor'] });
    expect(report?.clashes).toEqual(['switchboard']);
    expect(report?.servers).toEqual([]);
    expect(Object.keys(entries(file))).toEqual(['switchboard']);
  });

  it('runs Claude Desktop’s relay for every server (--all)', async () => {
    install(t, 'claude-desktop');
    new AppStateStore(t.home.stateFile).updateEditorSettings(
      'claude-desktop',
      (s) => void (s.discovery = true),
    );
    await engineFor(t).sync(servers, { editors: ['claude-desktop'] });
    const entry = entries(editorFile(t, 'claude-desktop')).switchboard;
    expect(entry?.args).toContain('--all');
    expect(entry?.args).not.toContain('--server');
  });
});
