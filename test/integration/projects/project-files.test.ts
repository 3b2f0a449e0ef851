import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readProjectFiles } from '../../../electron/core/projects/project-files.ts';
import { projectServers } from '../../../electron/core/projects/project-servers.ts';
import { addProject } from '../../../electron/core/projects/projects-file.ts';

/**
 * Each editor's committed MCP file, written as that editor's documentation shows it, read from a
 * real folder into Switchboard's project servers: the right entries, named under the project, with
 * the file and its sha256, sandboxed to the folder; what asks for the person's own becomes its own secret.
 */

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(files: Record<string, string>): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'sb-project-')));
  made.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

function servers(dir: string, name = 'acme', given: Record<string, string[]> = {}) {
  return projectServers({ name, dir, addedAt: 0, given }, readProjectFiles(dir));
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('project files', () => {
  it.each([
    ['.mcp.json', '{"mcpServers": {"docs": {"command": "npx", "args": ["-y", "docs-mcp"]}}}'],
    [
      '.vscode/mcp.json',
      '{\n  // VS Code: "servers", comments allowed\n  "servers": {"docs": {"type": "stdio", "command": "npx", "args": ["-y", "docs-mcp"]},},\n}',
    ],
    ['.cursor/mcp.json', '{"mcpServers": {"docs": {"command": "npx", "args": ["-y", "docs-mcp"]}}}'],
    [
      '.gemini/settings.json',
      '{"theme": "x", "mcpServers": {"docs": {"command": "npx", "args": ["-y", "docs-mcp"]}}}',
    ],
    [
      '.roo/mcp.json',
      '{"mcpServers": {"docs": {"command": "npx", "args": ["-y", "docs-mcp"], "alwaysAllow": []}}}',
    ],
    ['.kiro/settings/mcp.json', '{"mcpServers": {"docs": {"command": "npx", "args": ["-y", "docs-mcp"]}}}'],
  ])('%s: its server, named under the project, confined to the folder', (path, text) => {
    const dir = folder({ [path]: text });
    const [one, ...rest] = servers(dir);
    expect(rest).toEqual([]);
    expect(one?.info).toMatchObject({ name: 'acme--docs', entry: 'docs', file: join(dir, path) });
    expect(one?.info.digest).toBe(sha256(join(dir, path)));
    expect(one?.info.problem).toBeUndefined();
    expect(one?.config).toMatchObject({
      command: 'npx',
      args: ['-y', 'docs-mcp'],
      cwd: dir,
      sandbox: { write: [dir] },
    });
  });

  it('remote entries (Gemini httpUrl, VS Code http) and the folder variable', () => {
    const dir = folder({
      '.gemini/settings.json': '{"mcpServers": {"api": {"httpUrl": "https://mcp.example.com/mcp"}}}',
      '.vscode/mcp.json':
        '{"servers": {"fs": {"command": "node", "args": ["${workspaceFolder}/tools/fs.js"]}}}',
    });
    const found = new Map(servers(dir).map((s) => [s.info.name, s.config]));
    expect(found.get('acme--api')).toMatchObject({ url: 'https://mcp.example.com/mcp' });
    expect(found.get('acme--fs')).toMatchObject({ args: [`${dir}/tools/fs.js`] });
  });

  it("turns what asks for the person's environment, secrets or a prompt into a secret of the server's own; refuses a command, cwd or folder it cannot run in", () => {
    const dir = folder({
      '.mcp.json': JSON.stringify({
        mcpServers: {
          gh: { command: 'npx', args: ['gh-mcp'], env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } },
          key: { command: 'npx', args: ['--key=${secret:openai}'] },
          out: { command: 'node', args: ['s.js'], cwd: '../elsewhere' },
          cmd: { command: '${TOOL_PATH}/server', args: [] },
          inCwd: { command: 'node', args: ['s.js'], cwd: '${workspaceFolder}/${SUB}' },
        },
      }),
      '.vscode/mcp.json':
        '{"servers": {"db": {"type": "http", "url": "https://db.example/mcp", "headers": {"Authorization": "Bearer ${input:password}"}}}}',
      '.gemini/settings.json': '{"mcpServers": {"bare": {"command": "x", "env": {"T": "$HOME_TOKEN"}}}}',
    });
    const found = new Map(servers(dir).map((s) => [s.info.name, s]));
    // Not refused: the request is this server's own keychain secret, whether or not a value is given
    // yet, so what is approved is what runs once it is.
    expect(found.get('acme--gh')?.config).toMatchObject({
      env: { GITHUB_TOKEN: '${secret:project.acme--gh.GITHUB_TOKEN}' },
    });
    expect(found.get('acme--key')?.config).toMatchObject({
      args: ['--key=${secret:project.acme--key.openai}'],
    });
    expect(found.get('acme--db')?.config).toMatchObject({
      headers: { Authorization: 'Bearer ${secret:project.acme--db.password}' },
    });
    expect(found.get('acme--bare')?.config).toMatchObject({
      env: { T: '${secret:project.acme--bare.HOME_TOKEN}' },
    });
    for (const [name, request] of [
      ['acme--gh', '${GITHUB_TOKEN}'],
      ['acme--key', '${secret:openai}'],
      ['acme--db', '${input:password}'],
      ['acme--bare', '$HOME_TOKEN'],
    ] as const) {
      expect(found.get(name)?.info.problem).toBeUndefined();
      expect(found.get(name)?.info.requests).toEqual([request]);
    }
    // Never the person's own: nothing of theirs is named.
    expect(JSON.stringify([...found.values()].map((s) => s.config))).not.toMatch(
      /\$\{(?:env:|secret:(?!project\.))|\$\{GITHUB_TOKEN\}/,
    );
    expect(found.get('acme--out')?.config).toBeUndefined();
    expect(found.get('acme--out')?.info.problem).toContain('outside the project folder');
    // A secret cannot be a command or a folder.
    expect(found.get('acme--cmd')?.config).toBeUndefined();
    expect(found.get('acme--cmd')?.info.problem).toContain('its "command" asks for ${TOOL_PATH}');
    expect(found.get('acme--inCwd')?.config).toBeUndefined();
    expect(found.get('acme--inCwd')?.info.problem).toContain('its "cwd" asks for ${SUB}');
  });

  it('shows what a refused entry said with its hidden characters written out (bidi, line breaks)', () => {
    const dir = folder({
      '.mcp.json': JSON.stringify({
        mcpServers: {
          'db\u202eexe.txt': { command: 'node', args: ['s.js'], cwd: '../x\u202egnp.sj\nok' },
        },
      }),
    });
    const [server] = servers(dir);
    expect(server?.info.problem).toContain('outside the project folder');
    expect(server?.info.problem).toContain('db\\u{202E}exe.txt');
    expect(server?.info.problem).toContain('x\\u{202E}gnp.sj\\u{0A}ok');
    expect(server?.info.problem).not.toMatch(/[\u202e\n]/);
  });

  it('a request is the same keychain secret of its own before and after a value is given', () => {
    const dir = folder({
      '.mcp.json': JSON.stringify({
        mcpServers: {
          gh: { command: 'npx', args: ['gh-mcp'], env: { GITHUB_TOKEN: 'token ${GITHUB_TOKEN}' } },
        },
      }),
    });
    const [before] = servers(dir);
    const [after] = servers(dir, 'acme', { 'acme--gh': ['${GITHUB_TOKEN}'] });
    expect(after?.info.problem).toBeUndefined();
    expect(after?.config).toMatchObject({
      env: { GITHUB_TOKEN: 'token ${secret:project.acme--gh.GITHUB_TOKEN}' },
    });
    // The same config, so an approval given before the value holds after it.
    expect(before?.config).toEqual(after?.config);
  });

  it('two projects, the same server name: two servers; the same server in two files: one', () => {
    const text = '{"mcpServers": {"docs": {"command": "npx", "args": ["docs-mcp"]}}}';
    const a = folder({ '.mcp.json': text, '.cursor/mcp.json': text });
    const b = folder({ '.mcp.json': text });
    expect(servers(a, 'alpha').map((s) => s.info.name)).toEqual(['alpha--docs']);
    expect(servers(b, 'beta').map((s) => s.info.name)).toEqual(['beta--docs']);
  });

  it('refuses to add the home folder or a folder holding it', () => {
    const home = folder({ 'user/.keep': '' });
    const file = join(home, 'projects.json');
    const options = { now: 0, userHome: join(home, 'user'), switchboardHome: join(home, 'sb') };
    expect(() => addProject(file, join(home, 'user'), options)).toThrow(/holds your home folder/);
    expect(() => addProject(file, home, options)).toThrow(/holds your home folder/);
  });
});
