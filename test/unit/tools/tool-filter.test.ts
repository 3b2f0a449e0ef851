import { describe, expect, it } from 'vitest';
import { ServersFileSchema } from '../../../shared/schema/servers.ts';
import {
  compileToolFilter,
  exactPattern,
  toggleTool,
  toolPattern,
  unmatchedPatterns,
} from '../../../shared/tool-filter.ts';

describe('tool filters (servers.json "tools")', () => {
  it('globs: * any run, ? one character, everything else itself', () => {
    expect(toolPattern('search*').test('search_issues')).toBe(true);
    expect(toolPattern('search*').test('research')).toBe(false);
    expect(toolPattern('get-?').test('get-a')).toBe(true);
    expect(toolPattern('get-?').test('get-ab')).toBe(false);
    // Regex characters are themselves: "a.b" is not "a?b", "(x)" is not a group.
    expect(toolPattern('a.b').test('axb')).toBe(false);
    expect(toolPattern('(x)+[y]').test('(x)+[y]')).toBe(true);
    expect(toolPattern('Read').test('read')).toBe(false);
  });

  it('include keeps only matches, exclude wins over include', () => {
    const offered = compileToolFilter({ include: ['search*', 'read'], exclude: ['search_secret*'] });
    expect(['search_repos', 'search_secrets', 'read', 'write'].filter(offered)).toEqual([
      'search_repos',
      'read',
    ]);
    expect(['a', 'b'].filter(compileToolFilter({ exclude: ['a'] }))).toEqual(['b']);
    expect(['a', 'b'].filter(compileToolFilter({ include: [] }))).toEqual([]);
    expect(['a', 'b'].filter(compileToolFilter(undefined))).toEqual(['a', 'b']);
  });

  it('names the patterns that match no tool (a likely typo)', () => {
    expect(
      unmatchedPatterns({ include: ['read*'], exclude: ['delte_*'] }, ['read_file', 'delete_file']),
    ).toEqual(['delte_*']);
  });

  it('is checked in servers.json: an empty pattern or an unknown key is an error at its path', () => {
    const bad = ServersFileSchema.safeParse({
      mcpServers: { s: { command: 'x', tools: { exclude: [''], only: ['a'] } } },
    });
    expect(bad.success).toBe(false);
    const paths = bad.error?.issues.map((i) => i.path.join('.')) ?? [];
    expect(paths.some((p) => p.startsWith('mcpServers.s'))).toBe(true);
    const good = ServersFileSchema.parse({
      mcpServers: { s: { command: 'x', tools: { include: ['a*'], exclude: ['a_b'] } } },
    });
    expect(good.mcpServers.s?.tools).toEqual({ include: ['a*'], exclude: ['a_b'] });
  });
});

describe('switching one tool (the UI\u2019s switches, `editors tools … --off/--on`)', () => {
  it('off adds its exact name to exclude; on takes it out again, leaving no empty field', () => {
    const off = toggleTool(undefined, 'delete_repo', false);
    expect(off).toEqual({ filter: { exclude: ['delete_repo'] } });
    expect(toggleTool({ exclude: ['delete_repo'] }, 'delete_repo', true)).toEqual({ filter: undefined });
  });

  it('on under an include that misses it adds it to include', () => {
    expect(toggleTool({ include: ['search*'] }, 'read', true)).toEqual({
      filter: { include: ['search*', 'read'] },
    });
  });

  it('on for a tool a wider pattern turns off names that pattern instead', () => {
    expect(toggleTool({ exclude: ['delete_*'] }, 'delete_repo', true)).toEqual({ blockedBy: 'delete_*' });
  });

  it('a tool whose name has glob characters is matched exactly, not as a glob', () => {
    const result = toggleTool(undefined, 'a*b?', false);
    expect(result).toEqual({ filter: { exclude: [exactPattern('a*b?')] } });
    const offered = compileToolFilter('filter' in result ? result.filter : undefined);
    expect(offered('a*b?')).toBe(false);
    expect(offered('axxbz')).toBe(true);
  });
});
