import { describe, expect, it } from 'vitest';
import { entryChanges } from '../../../electron/core/editors/entry-changes.ts';
import { lineEditProblem } from '../../../electron/core/editors/line-edit-guard.ts';

/**
 * The one guard TOML and YAML edits pass before anything is written: a file read back after the edit
 * must differ from the one before only in Switchboard's entries. (Their planners never produce a text
 * that fails it; these are the cases it is there for.)
 */
const ours = { url: 'http://127.0.0.1:43117/mcp/github' };
const mine = { command: 'my-server' };
const input = {
  serversKey: 'mcp_servers',
  desired: new Map([['github', ours]]),
  isManaged: (name: string) => name === 'github',
};
const before = { model: 'o3', mcp_servers: { mine } };
const changes = entryChanges(Object.entries(before.mcp_servers), input);
const none = new Map<string, unknown>();
const readBack = (value: Record<string, unknown>, complete?: boolean) => ({
  value,
  entries: Object.entries((value.mcp_servers ?? {}) as Record<string, unknown>),
  ...(complete === undefined ? {} : { complete }),
});

describe('lineEditProblem', () => {
  it('passes an edit that added exactly the desired entry and left the rest', () => {
    const after = readBack({ model: 'o3', mcp_servers: { mine, github: ours } });
    expect(lineEditProblem(after, before, input, changes, none)).toBeUndefined();
  });

  it("refuses an edit that changed a setting outside the servers collection, or one of the user's entries", () => {
    const outside = /changed settings that are not Switchboard's; nothing was written/;
    const setting = readBack({ model: 'gpt', mcp_servers: { mine, github: ours } });
    expect(lineEditProblem(setting, before, input, changes, none)).toMatch(outside);
    const userEntry = readBack({ model: 'o3', mcp_servers: { mine: { command: 'other' }, github: ours } });
    expect(lineEditProblem(userEntry, before, input, changes, none)).toMatch(outside);
  });

  it('refuses a text that does not parse, a wrong managed entry, and entries the format did not read', () => {
    const invalid = /would have made the file invalid; nothing was written/;
    expect(lineEditProblem('unparsable', before, input, changes, none)).toMatch(invalid);
    const wrong = readBack({ model: 'o3', mcp_servers: { mine, github: { url: 'http://elsewhere/' } } });
    expect(lineEditProblem(wrong, before, input, changes, none)).toMatch(invalid);
    const hidden = readBack({ model: 'o3', mcp_servers: { mine, github: ours } }, false);
    expect(lineEditProblem(hidden, before, input, changes, none)).toMatch(invalid);
  });
});
