import { describe, expect, it } from 'vitest';
import { differences, settingsOfConfig } from '../../../electron/core/editors/import-match.ts';
import type { ForeignServer } from '../../../electron/core/editors/types.ts';

// What import names when an editor's entry has servers.json's command (or URL) but other settings:
// headers of a remote server, and the folder a local one runs in, as well as its env.

describe('differences between an editor entry and the server it maps to', () => {
  it('names the headers a remote entry sets differently, on either side', () => {
    const entry = {
      kind: 'remote',
      url: 'https://x.example/mcp',
      headers: { Authorization: 'Bearer A', 'X-Team': 't' },
    } satisfies ForeignServer;
    const config = {
      url: 'https://x.example/mcp',
      headers: { Authorization: '${secret:x}', 'X-Region': 'eu' },
    };
    expect(differences(entry, settingsOfConfig(config))).toEqual(['Authorization', 'X-Team', 'X-Region']);
  });

  it('names the folder (cwd) when a local entry runs elsewhere, and nothing when all is written alike', () => {
    const entry = {
      kind: 'stdio',
      command: 'node',
      args: ['s.mjs'],
      env: { A: '1' },
      cwd: '/srv/b',
    } satisfies ForeignServer;
    expect(
      differences(
        entry,
        settingsOfConfig({ command: 'node', args: ['s.mjs'], env: { A: '1' }, cwd: '/srv/a' }),
      ),
    ).toEqual(['cwd']);
    expect(
      differences(
        entry,
        settingsOfConfig({ command: 'node', args: ['s.mjs'], env: { A: '1' }, cwd: '/srv/b' }),
      ),
    ).toEqual([]);
  });
});
