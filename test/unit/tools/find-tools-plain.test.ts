import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolIndex } from '../../../electron/core/tools/discovery.ts';

// Issue 36 item 11: find_tools on plain-language requests, over the real tool lists of 18 MCP servers
// (bench/tool-lists/, recorded from the servers themselves). bench/tools.ts measures recall@5 on the
// held-out sets; these are the issue's own examples.

const LISTS = join(import.meta.dirname, '../../../bench/tool-lists');
const index = new ToolIndex();
index.update(
  readdirSync(LISTS)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({
      name: f.replace(/\.json$/, ''),
      tools: (JSON.parse(readFileSync(join(LISTS, f), 'utf8')) as { tools: Tool[] }).tools,
    })),
);

function found(query: string): string[] {
  return index
    .search(query, 5, () => true)
    .map(({ doc }) => {
      const { server, tool } = index.docs[doc] ?? { server: '?', tool: { name: '?' } };
      return `${server}__${tool.name}`;
    });
}

describe('find_tools on plain-language requests', () => {
  it('"store a fact about a person in the knowledge graph" finds a tool that stores it, first', () => {
    const top = found('store a fact about a person in the knowledge graph');
    expect(['memory__create_entities', 'memory__add_observations']).toContain(top[0]);
    expect(top).toContain('memory__create_entities');
    expect(top).not.toContain('filesystem__get_file_info');
  });

  it('"add two numbers" finds get-sum first, above tools that merely add things', () => {
    const top = found('add two numbers');
    expect(top[0]).toBe('everything__get-sum');
    expect(top.indexOf('everything__get-sum')).toBeLessThan(top.indexOf('github__add_issue_comment'));
  });

  it('a request wrapped in a sentence finds what its task words find', () => {
    expect(found('could you please tell me how I would merge a pull request')[0]).toBe(
      found('merge a pull request')[0],
    );
  });
});
