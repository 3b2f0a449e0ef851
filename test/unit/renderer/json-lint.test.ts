import { describe, expect, it } from 'vitest';
import { checkServerJson, problemList } from '../../../renderer/src/lib/json-lint.ts';

/** The text a problem is marked on. */
function marked(text: string, from: number, to: number): string {
  return text.slice(from, to);
}

describe('checkServerJson (the raw JSON editor as you type)', () => {
  it('accepts an entry as people paste it, with comments and a trailing comma', () => {
    const text = '{\n  // from the README\n  "command": "npx",\n  "args": ["-y", "pkg"],\n}';
    const check = checkServerJson(text);
    expect(check.ok).toBe(true);
    expect(check.value).toEqual({ command: 'npx', args: ['-y', 'pkg'] });
  });

  it('says in words where the JSON is broken', () => {
    const text = '{\n  "command": "npx"\n  "args": []\n}';
    const check = checkServerJson(text);
    expect(check.ok).toBe(false);
    expect(check.problems[0]?.message).toBe('not valid JSON: expected ","');
    expect(marked(text, check.problems[0]?.from ?? 0, check.problems[0]?.to ?? 0)).toBe('"args"');
  });

  it('marks a wrong field on its property, in the same clear words as the form', () => {
    const text = '{\n  "command": "node",\n  "args": "not-a-list"\n}';
    const check = checkServerJson(text);
    expect(check.ok).toBe(false);
    expect(check.problems).toHaveLength(1);
    const [problem] = check.problems;
    expect(problem?.message).toBe(
      'args: must be a list of strings, one per argument, like ["-y", "some-package"] (found a string)',
    );
    expect(problem?.message).not.toMatch(/Invalid input|received/);
    expect(marked(text, problem?.from ?? 0, problem?.to ?? 0)).toBe('"args": "not-a-list"');
  });

  it('marks an unknown field, and the opening brace when a required field is missing', () => {
    const typo = '{ "command": "node", "arg": ["x"] }';
    const unknown = checkServerJson(typo);
    expect(unknown.problems.map((p) => p.message)).toEqual([
      'arg: unknown field "arg" (did you mean "args"?)',
    ]);
    // A list or object value: only its key is marked, not the whole (possibly long) value.
    expect(marked(typo, unknown.problems[0]?.from ?? 0, unknown.problems[0]?.to ?? 0)).toBe('"arg"');

    const empty = checkServerJson('{ "args": [] }');
    expect(empty.problems).toEqual([
      {
        from: 0,
        to: 1,
        message: 'a server needs "command" (a local program) or "url" (a remote server)',
      },
    ]);
  });

  it('says what a nested value must be, marked on that value', () => {
    const text = '{ "command": "node", "env": { "PORT": 8080 } }';
    const check = checkServerJson(text);
    expect(check.problems.map((p) => p.message)).toEqual([
      'env.PORT: must be a string in double quotes, like "8080" or "true" (found a number)',
    ]);
    expect(marked(text, check.problems[0]?.from ?? 0, check.problems[0]?.to ?? 0)).toBe('"PORT": 8080');
  });

  it('never repeats a value it complains about (it could be a secret)', () => {
    const check = checkServerJson('{ "command": "node", "args": "ghp_secretvalue123" }');
    expect(JSON.stringify(check.problems)).not.toContain('ghp_secretvalue123');
  });

  it('reports the first syntax error only: a missing quote is one problem, not a cascade', () => {
    // A quote typed before an existing line: the parser then loses its way for the rest of the entry.
    const text =
      '{\n  "command": "npx",\n  "args": [\n    "-y",\n"    "a",\n    "b",\n    "c"\n  ],\n  "env": {}\n}';
    const check = checkServerJson(text);
    expect(check.problems).toHaveLength(1);
    expect(check.problems[0]?.message).toMatch(/^not valid JSON: /);
  });

  it('lists each problem once, with the line it is on', () => {
    const text = '{\n  "command": "node",\n  "env": { "A": 1, "B": 2 }\n}';
    const same = [
      { from: text.indexOf('"A"'), to: text.indexOf('"A"') + 6, message: 'must be a string' },
      { from: text.indexOf('"B"'), to: text.indexOf('"B"') + 6, message: 'must be a string' },
      { from: 0, to: 1, message: 'other' },
    ];
    expect(problemList(text, same)).toEqual([
      { line: 3, message: 'must be a string' },
      { line: 1, message: 'other' },
    ]);
  });
});
