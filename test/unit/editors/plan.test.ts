import { describe, expect, it } from 'vitest';
import { planFile } from '../../../electron/core/editors/jsonc-plan.ts';
import { EDITORS } from '../../../electron/core/editors/registry.ts';
import { desiredFor, ownership, syncText } from './helpers.ts';

const cursor = EDITORS.cursor;
function plan(text: string | undefined, servers: string[]) {
  return planFile({
    text,
    serversKey: 'mcpServers',
    desired: desiredFor('cursor', servers),
    isManaged: (_name, e) => cursor.pointsAtBridge(e, ownership()),
    layout: undefined,
    file: '/f',
  });
}

describe('planning one editor file', () => {
  it('reports a file that does not parse with its line and column, and plans no change', () => {
    const result = plan('{\n  "mcpServers": {\n    "a": { "url": "x" }\n    "b": 1\n  }\n}\n', ['alpha']);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problem).toMatch(/line 4, column 5/);
      expect(result.line).toBe(4);
      expect(result.column).toBe(5);
    }
  });

  it('refuses a servers key that is not an object, and a file that is not an object', () => {
    const a = plan('{ "mcpServers": [] }', ['alpha']);
    expect(a.ok === false && a.problem).toMatch(/"mcpServers" is not a JSON object/);
    const b = plan('[1, 2]', ['alpha']);
    expect(b.ok === false && b.problem).toMatch(/not a JSON object/);
  });

  it('never overwrites a user entry of the same name: reports the clash and skips it', () => {
    const text = '{ "mcpServers": { "alpha": { "command": "mine" } } }';
    const result = plan(text, ['alpha', 'beta']);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.clashes).toEqual(['alpha']);
    expect(result.added).toEqual(['beta']);
    expect(JSON.parse(result.text ?? '').mcpServers.alpha).toEqual({ command: 'mine' });
  });

  it('removes managed entries of servers that are gone, never user entries', () => {
    const first = syncText('cursor', '{ "mcpServers": { "mine": { "url": "https://example.com/mcp" } } }', [
      'alpha',
      'beta',
    ]);
    const second = syncText('cursor', first.text, ['beta'], first.layout);
    expect(second.result.removed).toEqual(['alpha']);
    expect(Object.keys(JSON.parse(second.text ?? '').mcpServers)).toEqual(['mine', 'beta']);
  });

  it('puts back a managed entry someone edited (drift), keeping the comments around it', () => {
    const first = syncText('zed', '{\n  // mine\n  "context_servers": {}\n}\n', ['alpha']);
    const tampered = (first.text ?? '').replace('/mcp/alpha', '/mcp/alpha-edited');
    const again = syncText('zed', tampered, ['alpha'], first.layout);
    expect(again.result.updated).toEqual(['alpha']);
    expect(again.text).toBe(first.text);
  });

  it('keeps a BOM and CRLF line endings', () => {
    const text = '\ufeff{\r\n  "mcpServers": {}\r\n}\r\n';
    const synced = syncText('cursor', text, ['alpha']);
    expect(synced.text?.startsWith('\ufeff{\r\n')).toBe(true);
    expect(synced.text?.replace(/\r\n/g, '')).not.toMatch(/\n/);
  });

  it('import: replaces a user entry by the managed one, in place or under the server name', () => {
    const text =
      '{\n  "mcpServers": {\n    "gh": { "command": "npx", "args": ["gh"] },\n    "alpha": { "command": "x" }\n  }\n}\n';
    const result = syncText('cursor', text, ['github', 'alpha'], undefined, {
      adopt: new Map([
        ['gh', 'github'],
        ['alpha', 'alpha'],
      ]),
    });
    expect(result.result.adopted.sort()).toEqual(['alpha', 'gh']);
    const servers = JSON.parse(result.text ?? '').mcpServers as Record<string, unknown>;
    expect(Object.keys(servers).sort()).toEqual(['alpha', 'github']);
    expect(cursor.pointsAtBridge(servers.alpha, ownership())).toBe(true);
  });

  it('does not drop a user entry for import when the server could not take its place', () => {
    const text = '{ "mcpServers": { "gh": { "command": "npx" }, "github": { "command": "mine" } } }';
    const result = syncText('cursor', text, ['github'], undefined, { adopt: new Map([['gh', 'github']]) });
    expect(result.result.adopted).toEqual([]);
    expect(result.result.clashes).toEqual(['github']);
    expect(result.result.changed).toBe(false);
  });

  it('leaves a missing file missing when there is nothing to write', () => {
    const result = plan(undefined, []);
    expect(result.ok && result.changed).toBe(false);
  });

  it('gives back an empty or whitespace-only file exactly', () => {
    for (const original of ['', '\n', '  \r\n', '\ufeff']) {
      const synced = syncText('gemini-cli', original, ['alpha']);
      expect(syncText('gemini-cli', synced.text, [], synced.layout).text).toBe(original);
    }
  });
});
