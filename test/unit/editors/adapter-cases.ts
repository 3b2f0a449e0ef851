import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import type { EditorId } from '../../../shared/editors.ts';
import { userDirs } from '../../../electron/core/user-dirs.mjs';
import { EDITORS } from '../../../electron/core/editors/registry.ts';
import { desiredFor, ownership, syncText } from './helpers.ts';

export interface AdapterCase {
  /** where the settings file is, for a user "ann" on each OS */
  paths: { linux: string; darwin: string; win32: string };
  /** the exact managed entry for server "alpha" (port 43117, token "tok-<editor>") */
  entry: Record<string, unknown>;
  /** a realistic file of this editor, full of the user's own settings */
  before: string;
}

const GOLDEN = fileURLToPath(new URL('../../golden/editors/', import.meta.url));
const ENVS = {
  linux: { HOME: '/home/ann', XDG_CONFIG_HOME: '/home/ann/.config' },
  darwin: { HOME: '/Users/ann' },
  win32: { USERPROFILE: 'C:\\Users\\ann', APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' },
} as const;

/** Compares with test/golden/editors/<editor>/<step>.golden (UPDATE_GOLDEN=1 rewrites them). */
function golden(editor: EditorId, step: string, text: string | undefined): void {
  const file = `${GOLDEN}${editor}/${step}.golden`;
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(`${GOLDEN}${editor}`, { recursive: true });
    writeFileSync(file, text ?? '');
  }
  expect(existsSync(file), `${file} is missing: create it with UPDATE_GOLDEN=1 and review it`).toBe(true);
  expect(text, `${editor} ${step} (golden file ${file})`).toBe(readFileSync(file, 'utf8'));
}

/** The tests every editor adapter gets: paths on three OSes, entry shape, ownership, golden files. */
export function adapterCases(editor: EditorId, c: AdapterCase): void {
  const adapter = EDITORS[editor];

  it('finds its settings file on Linux, macOS and Windows from the user folders passed in', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(adapter.file(userDirs(ENVS[platform], platform)), platform).toBe(c.paths[platform]);
    }
  });

  it('writes exactly the managed entry of the design, and recognises it as its own', () => {
    const entry = desiredFor(editor, ['alpha']).get('alpha');
    expect(entry).toEqual(c.entry);
    expect(adapter.pointsAtBridge(entry, ownership())).toBe(true);
    // Never a secret of a server: only the bridge URL and this editor's own bridge token (or the relay).
    expect(JSON.stringify(entry)).not.toMatch(/secret|GITHUB|ghp_/i);
  });

  it("never takes the user's entries for its own (other hosts, other ports, other homes)", () => {
    const own = ownership();
    for (const entry of [
      { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] },
      { url: 'http://127.0.0.1:3000/mcp/alpha' },
      { serverUrl: 'http://127.0.0.1:3000/mcp/alpha' },
      { httpUrl: 'https://example.com/mcp/alpha' },
      { url: 'http://127.0.0.1:43117/other/alpha' },
      {
        command: '/usr/bin/node',
        args: ['/opt/x/relay/main.ts', '--server', 'a'],
        env: { SWITCHBOARD_HOME: '/someone/else' },
      },
      null,
      'text',
      [],
    ]) {
      expect(adapter.pointsAtBridge(entry, own), JSON.stringify(entry)).toBe(false);
    }
  });

  it('add, update, remove: golden files; unsync gives back the exact original bytes', () => {
    golden(editor, 'before', c.before);
    const added = syncText(editor, c.before, ['alpha', 'beta']);
    golden(editor, 'add', added.text);
    expect(added.result.added).toEqual(['alpha', 'beta']);
    // The bridge moved to another port and the token was rotated: values change in place.
    const updated = syncText(editor, added.text, ['alpha', 'beta'], added.layout, {
      port: 43200,
      token: 'tok2-' + editor,
    });
    golden(editor, 'update', updated.text);
    // Claude Desktop's relay entry names neither port nor token: nothing to update there.
    expect(updated.result.updated).toEqual(editor === 'claude-desktop' ? [] : ['alpha', 'beta']);
    const removed = syncText(editor, updated.text, ['alpha'], updated.layout, {
      port: 43200,
      token: 'tok2-' + editor,
    });
    golden(editor, 'remove', removed.text);
    expect(removed.result.removed).toEqual(['beta']);
    const back = syncText(editor, removed.text, [], removed.layout, { port: 43200 });
    expect(back.text).toBe(c.before);
  });

  it('creates the file when there is none, and unsync removes it again', () => {
    const created = syncText(editor, undefined, ['alpha']);
    expect(created.text).toBeDefined();
    if (adapter.format.name.startsWith('JSON'))
      expect(JSON.parse(created.text ?? '')).toEqual({ [adapter.serversKey]: { alpha: c.entry } });
    expect(adapter.format.entries(created.text ?? '', adapter.serversKey)).toEqual({
      ok: true,
      entries: [['alpha', c.entry]],
    });
    expect(syncText(editor, created.text, [], created.layout).text).toBeUndefined();
  });

  it(`says truly whether its file holds the bridge token (${adapter.tokenInFile ? 'it does' : 'it does not'})`, () => {
    const text = syncText(editor, c.before, ['alpha', 'beta']).text ?? '';
    expect(text.includes('tok-' + editor)).toBe(adapter.tokenInFile);
  });

  it("lists the file's entries in order, Switchboard's and the user's", () => {
    const text = syncText(editor, c.before, ['alpha']).text ?? '';
    const listed = adapter.format.entries(text, adapter.serversKey);
    if (!listed.ok) throw new Error(listed.problem);
    const own = ownership();
    expect(listed.entries.filter(([, e]) => adapter.pointsAtBridge(e, own))).toEqual([['alpha', c.entry]]);
  });
}
