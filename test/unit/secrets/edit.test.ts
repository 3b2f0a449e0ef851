import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serversJsonSchema } from '../../../shared/schema/json-schema.ts';
import {
  readServerValue,
  removeServer,
  setServer,
  setServerValue,
} from '../../../electron/core/config/edit.ts';
import { UserError } from '../../../electron/core/errors.ts';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-edit-'));
  file = join(dir, 'servers.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const read = () => readFileSync(file, 'utf8');

function userError(fn: () => unknown): UserError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(UserError);
  return caught as UserError;
}

describe('editing servers.json', () => {
  it('creates a missing file with 2-space indentation, pointing at the schema it writes beside it', () => {
    setServer(file, 'everything', {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-everything'],
    });
    expect(read()).toBe(
      '{\n  "$schema": "./servers.schema.json",\n  "mcpServers": {\n    "everything": {\n      "command": "npx",\n      "args": ["-y", "@modelcontextprotocol/server-everything"]\n    }\n  }\n}\n',
    );
    expect(Object.keys((JSON.parse(read()) as { mcpServers: object }).mcpServers)).toEqual(['everything']);
    // The schema an editor follows that "$schema" to is the one generated from the zod schema.
    const schema = JSON.parse(readFileSync(join(dirname(file), 'servers.schema.json'), 'utf8')) as unknown;
    expect(schema).toEqual(serversJsonSchema());
  });

  it('adds, changes and removes servers in a CRLF, tab-indented file with comments and trailing commas', () => {
    const original = [
      '{',
      '\t// my servers',
      '\t"mcpServers": {',
      '\t\t"memory": { "command": "npx", }, // keeps notes',
      '\t\t/* the docs server */',
      '\t\t"docs": {',
      '\t\t\t"url": "https://example.com/mcp",',
      '\t\t},',
      '\t},',
      '}',
      '',
    ].join('\r\n');
    writeFileSync(file, original);

    setServer(file, 'github', { command: 'npx', env: { GITHUB_TOKEN: '${secret:github-token}' } });
    expect(read()).toBe(
      [
        '{',
        '\t// my servers',
        '\t"mcpServers": {',
        '\t\t"memory": { "command": "npx", }, // keeps notes',
        '\t\t/* the docs server */',
        '\t\t"docs": {',
        '\t\t\t"url": "https://example.com/mcp",',
        '\t\t},',
        '\t\t"github": {',
        '\t\t\t"command": "npx",',
        '\t\t\t"env": {',
        '\t\t\t\t"GITHUB_TOKEN": "${secret:github-token}"',
        '\t\t\t}',
        '\t\t},',
        '\t},',
        '}',
        '',
      ].join('\r\n'),
    );

    setServerValue(file, 'docs', ['headers', 'Authorization'], 'Bearer ${secret:docs}');
    setServerValue(file, 'memory', ['args'], ['-y', '@modelcontextprotocol/server-memory']);
    expect(read()).toContain(
      '\t\t"memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], }, // keeps notes\r\n',
    );
    expect(read()).toContain(
      '\t\t\t"url": "https://example.com/mcp",\r\n\t\t\t"headers": {\r\n\t\t\t\t"Authorization": "Bearer ${secret:docs}"\r\n\t\t\t},\r\n\t\t},',
    );

    expect(removeServer(file, 'memory')).toBe(true);
    expect(removeServer(file, 'github')).toBe(true);
    expect(read()).toBe(
      [
        '{',
        '\t// my servers',
        '\t"mcpServers": {',
        '\t\t/* the docs server */',
        '\t\t"docs": {',
        '\t\t\t"url": "https://example.com/mcp",',
        '\t\t\t"headers": {',
        '\t\t\t\t"Authorization": "Bearer ${secret:docs}"',
        '\t\t\t},',
        '\t\t},',
        '\t},',
        '}',
        '',
      ].join('\r\n'),
    );
    expect(read()).not.toMatch(/(^|[^\r])\n/);
  });

  it('keeps comments on the fields that did not change when a server is replaced', () => {
    writeFileSync(
      file,
      `{
    "mcpServers": {
        "fs": {
            "command": "npx", // pinned on purpose
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
            "cwd": "/tmp"
        }
    }
}
`,
    );
    setServer(file, 'fs', {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me'],
    });
    expect(read()).toBe(`{
    "mcpServers": {
        "fs": {
            "command": "npx", // pinned on purpose
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me"]
        }
    }
}
`);
  });

  it('removes the last server down to an empty object and keeps strict JSON strict', () => {
    writeFileSync(
      file,
      '{\n  "mcpServers": {\n    "a": { "command": "x" },\n    // the b server\n    "b": { "command": "y" }\n  }\n}\n',
    );
    removeServer(file, 'b');
    expect(read()).toBe('{\n  "mcpServers": {\n    "a": { "command": "x" }\n  }\n}\n');
    expect(() => JSON.parse(read()) as unknown).not.toThrow();
    removeServer(file, 'a');
    expect(read()).toBe('{\n  "mcpServers": {}\n}\n');
  });

  it('does not write when removing a server that is not there', () => {
    const text = '{\n  // nothing yet\n  "mcpServers": {}\n}\n';
    writeFileSync(file, text);
    expect(removeServer(file, 'ghost')).toBe(false);
    expect(read()).toBe(text);
    expect(removeServer(join(dir, 'absent.json'), 'ghost')).toBe(false);
    expect(existsSync(join(dir, 'absent.json'))).toBe(false);
  });

  it('leaves an unparseable file byte-identical and says where it is broken', () => {
    const broken = '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": { "command": "y" }\n  }\n}\n';
    writeFileSync(file, broken);
    const before = readFileSync(file);
    for (const attempt of [
      () => setServer(file, 'c', { command: 'z' }),
      () => removeServer(file, 'a'),
      () => setServerValue(file, 'a', ['cwd'], '/tmp'),
      () => readServerValue(file, 'a'),
    ]) {
      const err = userError(attempt);
      expect(err.message).toBe(`${file}:4:5: not valid JSON: expected ","`);
      expect(err.hint).toContain('unchanged');
      expect(readFileSync(file).equals(before)).toBe(true);
    }
    expect(readdirSync(dir)).toEqual(['servers.json']);
  });

  it('counts the line and column as the user sees them in a file with a BOM, and keeps the BOM', () => {
    writeFileSync(file, '\ufeff{\n  "mcpServers": { "a": { "command": "x" } }\n}\n');
    setServerValue(file, 'a', ['cwd'], '/tmp');
    expect(read()).toBe('\ufeff{\n  "mcpServers": { "a": { "command": "x", "cwd": "/tmp" } }\n}\n');
    writeFileSync(file, '\ufeff{ "mcpServers": { ] }');
    expect(userError(() => removeServer(file, 'a')).message).toMatch(/servers\.json:1:19: /);
  });

  it('refuses to change a server that does not exist, or a value that changed meanwhile', () => {
    writeFileSync(file, '{ "mcpServers": { "a": { "command": "x", "env": { "T": "one" } } } }');
    expect(userError(() => setServerValue(file, 'ghost', ['cwd'], '/tmp')).message).toContain(
      'no server named "ghost"',
    );
    const err = userError(() => setServerValue(file, 'a', ['env', 'T'], 'three', { ifCurrentValue: 'two' }));
    expect(err.message).toContain('changed while Switchboard was editing it');
    expect(read()).toBe('{ "mcpServers": { "a": { "command": "x", "env": { "T": "one" } } } }');
    setServerValue(file, 'a', ['env', 'T'], 'three', { ifCurrentValue: 'one' });
    expect(readServerValue(file, 'a', ['env', 'T'])).toBe('three');
  });

  it('writes through a symlinked servers.json to its target', () => {
    const target = join(dir, 'dotfiles-servers.json');
    writeFileSync(target, '{ "mcpServers": {} }\n');
    symlinkSync(target, file);
    setServer(file, 'a', { command: 'x' });
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(readServerValue(target, 'a')).toEqual({ command: 'x' });
  });

  it('removes one value inside a server when given undefined', () => {
    writeFileSync(
      file,
      '{\n  "mcpServers": {\n    "a": {\n      "command": "x",\n      "cwd": "/tmp" // temporary\n    }\n  }\n}\n',
    );
    setServerValue(file, 'a', ['cwd'], undefined);
    expect(read()).toBe('{\n  "mcpServers": {\n    "a": {\n      "command": "x"\n    }\n  }\n}\n');
  });
});
