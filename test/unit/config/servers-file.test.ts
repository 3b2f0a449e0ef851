import { describe, expect, it } from 'vitest';
import { formatProblems, parseServersFile } from '../../../electron/core/config/servers-file.ts';

function problemsOf(text: string): string {
  const result = parseServersFile(text);
  if (result.ok) throw new Error('expected the file to be rejected');
  return formatProblems(result.problems, 'servers.json');
}

describe('servers.json parsing', () => {
  it('accepts JSONC with comments and trailing commas, applying defaults', () => {
    const result = parseServersFile(`{
      // my servers
      "mcpServers": {
        "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything",], },
        /* remote */
        "docs": { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer \${secret:docs}" } },
      },
    }`);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.servers.get('everything')).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-everything'],
      env: {},
      enabled: true,
    });
    expect(result.servers.get('docs')).toMatchObject({ url: 'https://example.com/mcp', enabled: true });
  });

  it('treats an empty or missing file as no servers', () => {
    expect(parseServersFile('')).toMatchObject({ ok: true });
    expect(parseServersFile('\uFEFF{"mcpServers": {}}')).toMatchObject({ ok: true });
  });

  it('reports bad JSON with line and column', () => {
    expect(problemsOf('{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}')).toBe(
      'servers.json:4:5: not valid JSON: expected ","',
    );
  });

  it('reports a wrong type with the server, the field path and its line/column', () => {
    const text =
      '{\n  "mcpServers": {\n    "github": {\n      "command": "npx",\n      "args": "-y server-github"\n    }\n  }\n}';
    expect(problemsOf(text)).toBe(
      'servers.json:5:7: server "github", field "args": must be a list of strings, one per argument, like ["-y", "some-package"] (found a string)',
    );
  });

  it('refuses a shell command line in "command" and says to use args', () => {
    const text = '{"mcpServers": {"gh": {"command": "npx -y @modelcontextprotocol/server-github"}}}';
    expect(problemsOf(text)).toBe(
      'servers.json:1:24: server "gh", field "command": command must be a program, not a shell command line: put arguments in "args"',
    );
    expect(problemsOf('{"mcpServers": {"gh": {"command": "server;rm"}}}')).toContain(
      'put arguments in "args"',
    );
  });

  it('takes an idle timeout in whole seconds, 0 or more, and says what to write otherwise', () => {
    const result = parseServersFile('{"mcpServers": {"a": {"command": "x", "idleTimeout": 0}}}');
    expect(result.ok && result.servers.get('a')).toMatchObject({ idleTimeout: 0 });
    expect(problemsOf('{"mcpServers": {"a": {"command": "x", "idleTimeout": "600"}}}')).toBe(
      'servers.json:1:39: server "a", field "idleTimeout": must be a number of seconds without quotes, like 600 (0: always running) (found a string)',
    );
    expect(problemsOf('{"mcpServers": {"a": {"command": "x", "idleTimeout": -5}}}')).toContain(
      'idleTimeout is a number of seconds, 0 or more (0: always running)',
    );
    expect(problemsOf('{"mcpServers": {"a": {"command": "x", "idleTimeout": 1.5}}}')).toContain(
      'idleTimeout is a whole number of seconds',
    );
  });

  it('names unknown fields, so a typo is not silently ignored, and the field it probably meant', () => {
    expect(problemsOf('{"mcpServers": {"gh": {"command": "npx", "arg": ["x"]}}}')).toBe(
      'servers.json:1:42: server "gh": unknown field "arg" (did you mean "args"?)',
    );
    expect(problemsOf('{"mcpServers": {"gh": {"command": "npx", "ENV": {}}}}')).toContain(
      'unknown field "ENV" (did you mean "env"?)',
    );
    // Nothing close: no guess.
    expect(problemsOf('{"mcpServers": {"gh": {"command": "npx", "approved": true}}}')).toBe(
      'servers.json:1:42: server "gh": unknown field "approved"',
    );
  });

  it('says which key was probably meant as "command" or "url"', () => {
    expect(problemsOf('{"mcpServers": {"x": {"comand": "npx"}}}')).toContain(
      'needs "command" (a local program) or "url" (a remote server); is "comand" meant to be "command"?',
    );
    expect(problemsOf('{"mcpServers": {"x": {"URL": "https://e.com/mcp"}}}')).toContain(
      'is "URL" meant to be "url"?',
    );
  });

  it('requires exactly one of command and url', () => {
    expect(problemsOf('{"mcpServers": {"x": {"args": []}}}')).toContain(
      'needs "command" (a local program) or "url"',
    );
    expect(problemsOf('{"mcpServers": {"x": {"command": "a", "url": "https://e.com"}}}')).toContain(
      'has both',
    );
  });

  it('rejects server names that cannot be URL segments or tool prefixes', () => {
    expect(problemsOf('{"mcpServers": {"my server": {"command": "a"}}}')).toContain(
      'server name "my server"',
    );
  });

  it('rejects non-http urls and unknown editors', () => {
    expect(problemsOf('{"mcpServers": {"x": {"url": "file:///etc/passwd"}}}')).toContain(
      'url must be an http',
    );
    expect(problemsOf('{"mcpServers": {"x": {"command": "a", "editors": ["notepad"]}}}')).toContain(
      'field "editors.0"',
    );
  });
});
