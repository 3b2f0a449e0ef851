import { describe, expect, it } from 'vitest';
import { checkSnippet } from '../../../renderer/src/lib/server-snippet.ts';

/** Add server → Paste JSON: what a server's README gives, read into the servers it adds. */

const none = { name: '', existing: new Set<string>() };
const marked = (text: string, p: { from: number; to: number } | undefined) => text.slice(p?.from, p?.to);

const README = `{
  "mcpServers": {
    // from the README
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "<YOUR_TOKEN>" },
    },
    "docs": { "url": "https://example.com/mcp" }
  }
}`;

describe('checkSnippet', () => {
  it('reads {"mcpServers": {…}} with several servers, comments and trailing commas', () => {
    const check = checkSnippet(README, none);
    expect(check).toMatchObject({ shape: 'mcpServers', ok: true, problems: [] });
    expect(check.servers).toEqual([
      {
        name: 'github',
        config: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-github'],
          env: { GITHUB_PERSONAL_ACCESS_TOKEN: '<YOUR_TOKEN>' },
        },
      },
      { name: 'docs', config: { url: 'https://example.com/mcp' } },
    ]);
  });

  it('reads the servers without their wrapper', () => {
    const check = checkSnippet('{ "memory": { "command": "npx", "args": ["-y", "m"] } }', none);
    expect(check).toMatchObject({ shape: 'servers', ok: true });
    expect(check.servers.map((s) => s.name)).toEqual(['memory']);
  });

  it('reads one bare entry, which needs a name', () => {
    const text = '{ "command": "uvx", "args": ["mcp-server-fetch"] }';
    const unnamed = checkSnippet(text, none);
    expect(unnamed).toMatchObject({ shape: 'entry', ok: false, nameProblem: 'give this server a name' });
    const named = checkSnippet(text, { name: ' fetch ', existing: new Set() });
    expect(named).toMatchObject({ ok: true, nameProblem: undefined });
    expect(named.servers).toEqual([
      { name: 'fetch', config: { command: 'uvx', args: ['mcp-server-fetch'] } },
    ]);
    expect(checkSnippet(text, { name: 'bad name', existing: new Set() }).nameProblem).toContain(
      'letters, digits',
    );
    expect(checkSnippet(text, { name: 'fetch', existing: new Set(['fetch']) }).nameProblem).toBe(
      'a server named "fetch" already exists; rename this one, or remove that one first',
    );
    // A typo in "command" is still one entry, with the hint.
    const typo = checkSnippet('{ "comand": "npx" }', { name: 'x', existing: new Set() });
    expect(typo.problems.map((p) => p.message)).toEqual([
      'a server needs "command" (a local program) or "url" (a remote server); is "comand" meant to be "command"?',
    ]);
  });

  it('marks names that are taken, invalid or given twice on the name in the text', () => {
    const text =
      '{"mcpServers": {"github": {"command": "a"}, "bad name": {"command": "b"}, "x": {"command": "c"}, "x": {"command": "d"}}}';
    const check = checkSnippet(text, { name: '', existing: new Set(['github']) });
    expect(check.ok).toBe(false);
    expect(check.problems.map((p) => [marked(text, p), p.message])).toEqual([
      ['"github"', 'a server named "github" already exists; rename this one, or remove that one first'],
      ['"bad name"', expect.stringContaining('server name "bad name": server names may use only letters')],
      ['"x"', '"x" is given twice; each server needs its own name'],
    ]);
    expect(check.problems[2]?.from).toBe(text.lastIndexOf('"x"'));
  });

  it('puts each schema problem at its field, named by server', () => {
    const text = '{"mcpServers": {"a": {"command": "node", "args": "x"}, "b": {"args": []}}}';
    const check = checkSnippet(text, none);
    expect(check.problems.map((p) => [marked(text, p), p.message])).toEqual([
      [
        '"args": "x"',
        'a: args: must be a list of strings, one per argument, like ["-y", "some-package"] (found a string)',
      ],
      ['"b"', 'b: a server needs "command" (a local program) or "url" (a remote server)'],
    ]);
  });

  it('says what is wrong with the shape, and gives one syntax error, not a cascade', () => {
    expect(checkSnippet('', none)).toMatchObject({ shape: undefined, ok: false, problems: [] });
    expect(checkSnippet('[1]', none).problems[0]?.message).toMatch(/^not a JSON object: paste/);
    expect(checkSnippet('{"mcpServers": {}}', none).problems[0]?.message).toBe(
      'there is no server in "mcpServers"',
    );
    expect(
      checkSnippet('{"mcpServers": {"a": {"command": "x"}}, "globalShortcut": "x"}', none).problems,
    ).toEqual([
      expect.objectContaining({
        message: '"globalShortcut": only "mcpServers" is read here; take "globalShortcut" out',
      }),
    ]);
    expect(checkSnippet('{"servers": {"a": {"command": "x"}}}', none).problems[0]?.message).toContain(
      'how VS Code wraps its servers',
    );
    const broken = '{"mcpServers": {"a": {"command": "x, "args": ["1", "2", "3"]}}}';
    expect(checkSnippet(broken, none).problems).toHaveLength(1);
  });
});
