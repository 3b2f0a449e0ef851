import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Backups } from '../../../electron/core/editors/backups.ts';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { startHeadless, type Headless } from '../../../electron/headless/serve.ts';
import { closeAll, textOf } from '../../helpers/bridge.ts';
import { runCli } from '../../helpers/cli.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';
import { filesUnder, tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { editorFile, install } from './helpers.ts';

// The newcomer: Claude Desktop, Zed and VS Code already configured by hand, full of their own
// settings and comments, one server with a literal GitHub token pasted into two of them. `switchboard
// import` then `switchboard sync`: every editor has the same servers, every comment and setting is
// intact, and the token is in the keychain and in no file anywhere under the temp folder.

const TOKEN = 'ghp_' + 'Zq8vN3kLr2TfXw7HcYp1BmDs9GaUe4JoQiRt';
const github = fixtureServer('env-echo-server.mjs', 'GITHUB_TOKEN');
const memory = fixtureServer('mini-server.mjs');

let t: TempHome;
let headless: Headless | undefined;
const clients: Client[] = [];
const keychain = new OsKeychain();

beforeEach(() => {
  t = tempHome();
});

afterEach(async () => {
  await closeAll(clients);
  await headless?.stop();
  headless = undefined;
  // Only this file's secret: other test files use the same keychain at the same time.
  await keychain.delete('github-github_token').catch(() => false);
  t.cleanup();
});

describe('import', () => {
  it('moves a literal GITHUB_TOKEN into the keychain; afterwards it is in no file; editors get the server through Switchboard', async () => {
    const claude = install(
      t,
      'claude-desktop',
      JSON.stringify(
        { mcpServers: { github: { ...github, env: { GITHUB_TOKEN: TOKEN } } }, globalShortcut: 'Alt+Space' },
        null,
        2,
      ),
    );
    const zedText = `// Zed settings
{
  "theme": "One Dark", // my theme
  "context_servers": {
    // the same GitHub server, pasted here too
    "gh": {
      "command": ${JSON.stringify(github.command)},
      "args": ${JSON.stringify(github.args)},
      "env": { "GITHUB_TOKEN": "${TOKEN}" },
    },
  },
}
`;
    const zed = install(t, 'zed', zedText);
    const vscodeText = `{
\t// servers I use in VS Code
\t"servers": {
\t\t"memory": { "type": "stdio", "command": ${JSON.stringify(memory.command)}, "args": ${JSON.stringify(memory.args)} }
\t}
}
`;
    const vscode = install(t, 'vscode', vscodeText);

    // Listing only (no --yes, no terminal): the exact commands, never the secret, and nothing changes.
    const listing = await runCli(['import'], t.env);
    expect(listing.code, listing.stderr).toBe(0);
    expect(listing.stdout).toContain(
      `Claude Desktop: "github" — imports as "github"; GITHUB_TOKEN moves to the keychain`,
    );
    expect(listing.stdout).toContain(`command: ${github.command} ${github.args.join(' ')}`);
    expect(listing.stdout).toContain('GITHUB_TOKEN=<literal secret: moves to the keychain>');
    expect(listing.stdout).toContain('Zed: "gh" — same server as "github" (imported once)');
    expect(listing.stdout).toContain('VS Code: "memory" — imports as "memory"');
    expect(listing.stdout + listing.stderr).not.toContain(TOKEN);
    expect(readFileSync(zed, 'utf8')).toBe(zedText);

    const imported = await runCli(['import', '--yes'], t.env);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    expect(imported.stdout + imported.stderr).not.toContain(TOKEN);
    expect(imported.stdout).toContain('GITHUB_TOKEN moved to the keychain as ${secret:github-github_token}');

    // The token: in the keychain, and in no file under the temp folder (editor files, servers.json,
    // state.json, backups, logs…).
    expect(await keychain.get('github-github_token')).toBe(TOKEN);
    for (const file of filesUnder(t.dir))
      expect(readFileSync(file, 'utf8').includes(TOKEN), file).toBe(false);

    // servers.json: imported once, with the reference; approved with source "import".
    const servers = JSON.parse(readFileSync(t.home.serversFile, 'utf8')) as {
      mcpServers: Record<string, { env?: Record<string, string> }>;
    };
    expect(Object.keys(servers.mcpServers).sort()).toEqual(['github', 'memory']);
    expect(servers.mcpServers.github?.env).toEqual({ GITHUB_TOKEN: '${secret:github-github_token}' });
    const state = JSON.parse(readFileSync(t.home.stateFile, 'utf8')) as {
      approvals: Record<string, { source: string }>;
    };
    expect(state.approvals.github?.source).toBe('import');
    expect(state.approvals.memory?.source).toBe('import');

    // The editors' own entries are now Switchboard's; everything else in the files is as it was.
    const zedNow = readFileSync(zed, 'utf8');
    expect(zedNow).toContain(
      '// Zed settings\n{\n  "theme": "One Dark", // my theme\n  "context_servers": {',
    );
    const zedServers = (parse(zedNow) as { context_servers: Record<string, { url?: string }> })
      .context_servers;
    expect(Object.keys(zedServers).sort()).toEqual(['github', 'memory']);
    expect(zedServers.github?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp\/github$/);
    const vscodeNow = readFileSync(vscode, 'utf8');
    expect(vscodeNow).toContain('\t// servers I use in VS Code\n');
    expect(Object.keys((parse(vscodeNow) as { servers: object }).servers).sort()).toEqual([
      'github',
      'memory',
    ]);
    const claudeNow = JSON.parse(readFileSync(claude, 'utf8')) as {
      globalShortcut: string;
      mcpServers: Record<string, { args: string[] }>;
    };
    expect(claudeNow.globalShortcut).toBe('Alt+Space');
    expect(Object.keys(claudeNow.mcpServers).sort()).toEqual(['github', 'memory']);
    expect(claudeNow.mcpServers.github?.args).toContain('--server');

    // The backups taken before import hold a reference, and give back the exact original bytes.
    const backups = new Backups(t.home.backups);
    const claudeBackup = backups.list().find((b) => b.editor === 'claude-desktop' && b.existed);
    expect(claudeBackup?.secrets.length).toBe(1);
    if (!claudeBackup) throw new Error('no backup of the Claude Desktop file');
    const original = await backups.content(claudeBackup, () => keychain);
    expect(original.exact).toBe(true);
    expect(original.text).toContain(TOKEN);

    // A second sync has nothing to do; a second import finds nothing new.
    const again = await runCli(['sync'], t.env);
    expect(again.stdout).toMatch(/Zed: up to date \(2 servers/);
    const reimport = await runCli(['import'], t.env);
    expect(reimport.stdout).toMatch(/No servers to import/);

    // And it runs: Claude Desktop's relay entry reaches the server, which got the token from the keychain.
    headless = await startHeadless({
      home: t.home,
      keychain,
      env: t.env,
      port: 0,
      editorSync: { log: () => undefined },
    });
    const h = headless;
    await waitFor(
      () => h.core.status.report().servers.find((s) => s.name === 'github' && s.state === 'running'),
      45_000,
      'github running',
    );
    const entry = (
      JSON.parse(readFileSync(editorFile(t, 'claude-desktop'), 'utf8')) as {
        mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string> }>;
      }
    ).mcpServers.github;
    const client = new Client({ name: 'claude-desktop-as-configured', version: '1.0.0' });
    clients.push(client);
    await client.connect(
      new StdioClientTransport({
        command: entry?.command ?? '',
        args: entry?.args ?? [],
        env: { HOME: t.env.HOME ?? '', PATH: t.env.PATH ?? '', ...entry?.env },
        stderr: 'pipe',
      }),
    );
    expect(textOf(await client.callTool({ name: 'read-env', arguments: {} }))).toBe(TOKEN);
  });

  it('moves secrets out of args and urls too: a key after --api-key and a password in a url end up in no file', async () => {
    const KEY = 'BSA' + 'k3Jr9QwZx7TmV2pLc8NhY4bGf6DsEa1U';
    const PASSWORD = 'Pg' + 'S3cr3tPassw0rd2024x';
    install(
      t,
      'claude-desktop',
      JSON.stringify(
        { mcpServers: { brave: { command: memory.command, args: [...memory.args, '--api-key', KEY] } } },
        null,
        2,
      ),
    );
    install(
      t,
      'cursor',
      JSON.stringify(
        { mcpServers: { db: { url: `https://admin:${PASSWORD}@db.example.com/mcp` } } },
        null,
        2,
      ),
    );
    try {
      const listing = await runCli(['import'], t.env);
      expect(listing.code, listing.stderr).toBe(0);
      expect(listing.stdout).toContain('--api-key <literal secret: moves to the keychain>');
      expect(listing.stdout).toContain(
        'url: https://admin:<literal secret: moves to the keychain>@db.example.com/mcp',
      );
      expect(listing.stdout + listing.stderr).not.toContain(KEY);
      expect(listing.stdout + listing.stderr).not.toContain(PASSWORD);

      const imported = await runCli(['import', '--yes'], t.env);
      expect(imported.code, imported.stdout + imported.stderr).toBe(0);
      expect(await keychain.get('brave-api-key')).toBe(KEY);
      expect(await keychain.get('db-url')).toBe(PASSWORD);
      for (const file of filesUnder(t.dir)) {
        const text = readFileSync(file, 'utf8');
        expect(text.includes(KEY) || text.includes(PASSWORD), file).toBe(false);
      }
      const servers = JSON.parse(readFileSync(t.home.serversFile, 'utf8')) as {
        mcpServers: Record<string, { args?: string[]; url?: string }>;
      };
      expect(servers.mcpServers.brave?.args?.slice(-2)).toEqual(['--api-key', '${secret:brave-api-key}']);
      expect(servers.mcpServers.db?.url).toBe('https://admin:${secret:db-url}@db.example.com/mcp');
    } finally {
      await keychain.delete('brave-api-key').catch(() => false);
      await keychain.delete('db-url').catch(() => false);
    }
  });

  it('says which imported servers still wait for one approval: a package run (npx) is pinned only by approve', async () => {
    // The store pins a package at approval (docs/decisions/store-and-packages.md); import approves the
    // command line but pins nothing, so "approved" alone sent people to a server that never started.
    install(
      t,
      'cursor',
      JSON.stringify({
        mcpServers: {
          notes: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
          local: memory,
        },
      }),
    );
    const imported = await runCli(['import', '--yes'], t.env);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    expect(imported.stdout).toContain('and approved: notes, local');
    expect(imported.stdout).toContain(
      'notes runs an npm package: it starts once you approve the exact version to install: switchboard approve notes',
    );
    expect(imported.stdout).not.toContain('switchboard approve local');

    // What the line says is what Switchboard then shows: notes waits, local runs.
    headless = await startHeadless({ home: t.home, keychain, env: t.env, port: 0, editorSync: false });
    const h = headless;
    await waitFor(() =>
      h.core.status.report().servers.find((s) => s.name === 'local' && s.state === 'running'),
    );
    const notes = h.core.status.report().servers.find((s) => s.name === 'notes');
    expect(notes?.state).toBe('pending-approval');
    expect(notes?.lastError).toContain('its package is not pinned yet');
  });
  it('says when an entry maps to a server Switchboard has but sets another key or value: which names differ, never the values', async () => {
    // servers.json's github reads its token from the keychain and one folder; Cursor's copy of the
    // same command has another pasted token and another folder. Import maps it to servers.json's, so
    // Cursor would get servers.json's values: the listing says so, per entry, naming what differs.
    const OTHER = 'ghp_' + 'Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0KkLlMm';
    t.writeServers({
      mcpServers: { github: { ...github, env: { GITHUB_TOKEN: '${secret:gh}', ALLOWED_DIR: '/srv/kept' } } },
    });
    install(
      t,
      'cursor',
      JSON.stringify({
        mcpServers: {
          'github-mine': { ...github, env: { GITHUB_TOKEN: OTHER, ALLOWED_DIR: '/srv/other' } },
          'github-same': { ...github, env: { GITHUB_TOKEN: '${secret:gh}', ALLOWED_DIR: '/srv/kept' } },
        },
      }),
    );
    // The same server in two editors, the second with one more variable whose name hides characters.
    install(t, 'claude-desktop', JSON.stringify({ mcpServers: { memory } }));
    install(
      t,
      'zed',
      JSON.stringify({ context_servers: { mem: { ...memory, env: { 'MODE\u202Etxt': '1' } } } }),
    );

    const listing = await runCli(['import'], t.env);
    expect(listing.code, listing.stderr).toBe(0);
    const lines = listing.stdout.split('\n');
    const noteAfter = (head: string) => {
      const at = lines.findIndex((l) => l.startsWith(head));
      expect(at, listing.stdout).toBeGreaterThanOrEqual(0);
      return lines.slice(at + 1).find((l) => !l.startsWith('    ') || l.startsWith('    note: '));
    };
    expect(noteAfter('Cursor: "github-mine" — already in servers.json as "github"')).toBe(
      `    note: same command as servers.json's "github", but its GITHUB_TOKEN and ALLOWED_DIR differ ` +
        `(compared as written; values not shown): this editor will get servers.json's values. To keep ` +
        `this one as a separate server, add it under another name as listed above: ` +
        `switchboard add NEW-NAME --env KEY=VALUE… -- COMMAND ARGS…`,
    );
    // Written exactly as servers.json has it: nothing to say.
    expect(noteAfter('Cursor: "github-same" — already in servers.json as "github"')).not.toMatch(/note:/);
    expect(noteAfter('Zed: "mem" — same server as "memory" (imported once)')).toBe(
      `    note: same command as "memory" (imported from another editor), but its MODE\\u{202E}txt differs ` +
        `(compared as written; values not shown): this editor will get that entry's value. To keep ` +
        `this one as a separate server, add it under another name as listed above: ` +
        `switchboard add NEW-NAME --env KEY=VALUE… -- COMMAND ARGS…`,
    );
    expect(listing.stdout + listing.stderr).not.toContain(OTHER);
    expect(listing.stdout).not.toContain('\u202E');

    // --json says the same, names only.
    const json = await runCli(['import', '--json'], t.env);
    const parsed = JSON.parse(json.stdout) as {
      candidates: { entry: string; differs: string[]; differenceNote: string | null }[];
    };
    const of = (entry: string) => parsed.candidates.find((c) => c.entry === entry);
    expect(of('github-mine')?.differs).toEqual(['GITHUB_TOKEN', 'ALLOWED_DIR']);
    expect(of('github-same')?.differs).toEqual([]);
    expect(of('github-same')?.differenceNote).toBeNull();
    expect(of('mem')?.differs).toEqual(['MODE\u202Etxt']);
    expect(json.stdout).not.toContain(OTHER);
  });
});
