import { describe, expect, it } from 'vitest';
import {
  checkDraft,
  configFromDraft,
  draftFromConfig,
  emptyDraft,
  fieldKey,
  newRow,
  splitArgs,
} from '../../../renderer/src/lib/server-draft.ts';

const github = {
  $comment: 'from the README',
  command: 'npx',
  args: ['-y', '@modelcontextprotocol/server-github'],
  env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${secret:github-token}' },
  enabled: false,
  editors: ['zed', 'vscode'],
};

describe('server form drafts', () => {
  it('round-trips an entry through the form unchanged, keeping fields the form does not show', () => {
    const draft = draftFromConfig(github);
    expect(draft).toMatchObject({
      kind: 'stdio',
      command: 'npx',
      args: '-y\n@modelcontextprotocol/server-github',
      editorsMode: 'some',
      editors: ['zed', 'vscode'],
    });
    expect(draft.env.map((r) => [r.key, r.value])).toEqual([
      ['GITHUB_PERSONAL_ACCESS_TOKEN', '${secret:github-token}'],
    ]);
    expect(configFromDraft(draft, github)).toEqual(github);
  });

  it('leaves out fields that were absent and are left empty; drops emptied ones that were there', () => {
    const written = { command: 'node', args: ['server.js'] };
    const draft = { ...draftFromConfig(written), args: '' };
    // "args" was there: emptied, it stays as an empty list (the person cleared it on purpose).
    expect(configFromDraft(draft, written)).toEqual({ command: 'node', args: [] });
    // "env" and "cwd" were never there: no empty env object, no empty cwd appears.
    expect(configFromDraft(draftFromConfig({ command: 'node' }), { command: 'node' })).toEqual({
      command: 'node',
    });
  });

  it('switching to a remote URL drops the local fields (and a stdio type) and keeps the rest', () => {
    const draft = { ...draftFromConfig({ ...github, type: 'stdio' }), kind: 'remote' as const };
    draft.url = ' https://example.com/mcp ';
    draft.headers = [newRow('Authorization', 'Bearer ${secret:docs}')];
    draft.editorsMode = 'all';
    expect(configFromDraft(draft, { ...github, type: 'stdio' })).toEqual({
      $comment: 'from the README',
      enabled: false,
      url: 'https://example.com/mcp',
      headers: { Authorization: 'Bearer ${secret:docs}' },
    });
  });

  it("keeps a local server's sandbox through the form, and drops it when it becomes a remote URL", () => {
    const local = { command: 'node', args: ['s.js'], sandbox: { write: ['~/projects'], network: 'none' } };
    expect(configFromDraft(draftFromConfig(local), local)).toEqual(local);
    const remote = { ...draftFromConfig(local), kind: 'remote' as const, url: 'https://example.com/mcp' };
    expect(configFromDraft(remote, local)).toEqual({ url: 'https://example.com/mcp' });
  });

  it('marks a server isolated only when asked, and drops the mark when switched back', () => {
    const shared = draftFromConfig({ command: 'node' });
    expect(shared.isolated).toBe(false);
    expect(configFromDraft({ ...shared, isolated: true }, { command: 'node' })).toEqual({
      command: 'node',
      isolated: true,
    });
    const isolated = draftFromConfig({ command: 'node', isolated: true });
    expect(isolated.isolated).toBe(true);
    expect(configFromDraft({ ...isolated, isolated: false }, { command: 'node', isolated: true })).toEqual({
      command: 'node',
    });
  });

  it('takes arguments one per line, exactly (no quoting), ignoring trailing blank lines', () => {
    expect(splitArgs('-y\r\n@scope/pkg\n--dir\n/path with spaces\n\n')).toEqual([
      '-y',
      '@scope/pkg',
      '--dir',
      '/path with spaces',
    ]);
    expect(splitArgs('')).toEqual([]);
  });

  it('puts each problem at the field it is about', () => {
    expect(fieldKey(['command'])).toBe('command');
    expect(fieldKey(['env', 'TOKEN'])).toBe('env:TOKEN');
    expect(fieldKey(['args', 2])).toBe('args');
    expect(fieldKey([])).toBe('');
    expect(fieldKey(['$comment'])).toBe('');
  });

  it('checks like the core would, plus the rows a schema cannot see', () => {
    const draft = emptyDraft();
    draft.command = 'npx -y @modelcontextprotocol/server-everything';
    const nameless = newRow('', 'value');
    const first = newRow('TOKEN', 'a');
    const twice = newRow('TOKEN', 'b');
    draft.env = [first, nameless, twice];
    const check = checkDraft(draft, {}, 'bad name!');
    expect(check.errors.get('name')).toEqual([expect.stringContaining('letters, digits')]);
    expect(check.errors.get('command')).toEqual([
      'command must be a program, not a shell command line: put arguments in "args"',
    ]);
    expect(check.errors.get(`row:${nameless.id}`)).toEqual(['give this variable a name']);
    expect(check.errors.get(`row:${twice.id}`)).toEqual(['"TOKEN" is listed twice; keep one']);
    expect(check.errors.has(`row:${first.id}`)).toBe(false);

    const ok = checkDraft({ ...emptyDraft(), command: 'npx', args: '-y\npkg' }, {}, 'github');
    expect(ok.errors.size).toBe(0);
    expect(ok.config).toEqual({ command: 'npx', args: ['-y', 'pkg'] });
  });

  it('asks for a name when adding, and an empty command says so once', () => {
    const check = checkDraft(emptyDraft(), {}, '');
    expect(check.errors.get('name')).toEqual(['give the server a name']);
    expect(check.errors.get('command')).toEqual(['command is empty']);
  });
});
