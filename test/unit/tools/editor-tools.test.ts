import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { editorToolsView, type EditorToolFacts } from '../../../electron/core/tools/editor-tools.ts';
import { EditorSettingsSchema } from '../../../shared/schema/state.ts';

const tool = (name: string): Tool => ({ name, description: `does ${name}`, inputSchema: { type: 'object' } });

function facts(count: number, extra: Partial<EditorToolFacts> = {}): EditorToolFacts {
  const all = Array.from({ length: count }, (_, i) => tool(`tool_${i}`));
  return {
    servers: ['big'],
    listing: () => ({ all, gate: undefined }),
    filter: () => undefined,
    settings: EditorSettingsSchema.parse({}),
    called: new Map(),
    ...extra,
  };
}

describe('an editor’s tools against its client’s limits', () => {
  it('warns before VS Code’s 128 is reached, and says when it is crossed', () => {
    expect(editorToolsView('vscode', facts(90)).warnings).toEqual([]);
    const near = editorToolsView('vscode', facts(100)).warnings;
    expect(near).toEqual([expect.objectContaining({ level: 'near' })]);
    expect(near[0]?.message).toMatch(/VS Code gets 100 of the 128 tools it can take/);
    const over = editorToolsView('vscode', facts(140)).warnings;
    expect(over[0]).toMatchObject({ level: 'over' });
    expect(over[0]?.message).toMatch(/more than its limit of 128/);
  });

  it('discovery mode brings any number of tools down to two', () => {
    const settings = EditorSettingsSchema.parse({ discovery: true });
    const view = editorToolsView('cursor', facts(300, { settings }));
    expect(view.current.tools).toBe(2);
    expect(view.costs.everything.tools).toBe(300);
    expect(view.current.tokens).toBeLessThan(view.costs.everything.tokens / 20);
    expect(view.warnings).toEqual([]);
  });

  it('counts what the server filter and the editor’s selection leave, and a server not listed yet', () => {
    const settings = EditorSettingsSchema.parse({ tools: { big: { include: ['tool_1*'] } } });
    const view = editorToolsView(
      'windsurf',
      facts(30, {
        servers: ['big', 'later'],
        listing: (s) =>
          s === 'big'
            ? { all: Array.from({ length: 30 }, (_, i) => tool(`tool_${i}`)), gate: undefined }
            : undefined,
        filter: () => ({ exclude: ['tool_10'] }),
        settings,
      }),
    );
    expect(view.costs.everything.tools).toBe(30);
    expect(view.costs.serverFilters.tools).toBe(29);
    expect(view.current.tools).toBe(10); // tool_1, tool_11 … tool_19
    expect(view.servers[1]).toMatchObject({ server: 'later', known: false });
    expect(view.warnings.map((w) => w.message).join()).toMatch(/Not counted yet: later/);
  });
});
