import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { runCli } from '../../helpers/cli.ts';
import { fixtureServer } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { install } from './helpers.ts';

// An editor in discovery mode gets one entry, "switchboard", for every server. Importing its own
// entries must take them out of its file as per-server mode replaces them (kept for unsync), or the
// editor would run its own copy of each server beside Switchboard's, with the pasted secret in its
// file. An entry import did not take stays as it is. Real CLI, real files in a temp HOME, a real keychain.

const TOKEN = 'ghp_' + 'Wd4pK9sLq2VnXc7HbYt1FmRz8GaUe3JoNiTq';
const github = fixtureServer('env-echo-server.mjs', 'GH_TOKEN');
const memory = fixtureServer('mini-server.mjs');
const keychain = new OsKeychain();

let t: TempHome;
beforeEach(() => {
  t = tempHome();
});
// A secret name of this file's own: other files use the same keychain at the same time.
afterEach(async () => {
  await keychain.delete('gh-cursor-gh_token').catch(() => false);
  t.cleanup();
});

async function ok(args: string[]) {
  const run = await runCli(args, t.env);
  expect(run.code, `${args.join(' ')}\n${run.stdout}\n${run.stderr}`).toBe(0);
  return run;
}

type Entries = Record<string, { url?: string; command?: string }>;
const entriesOf = (file: string) =>
  (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Entries }).mcpServers;

// The person's Cursor file, as they wrote it: two servers (one with a pasted token) around one entry
// import cannot take (a ws:// URL), and a setting of theirs.
const cursorText = `{
  "mcpServers": {
    "gh-cursor": {
      "command": ${JSON.stringify(github.command)},
      "args": ${JSON.stringify(github.args)},
      "env": { "GH_TOKEN": "${TOKEN}" }
    },
    "socket": { "url": "ws://127.0.0.1:9/mcp" },
    "memory": { "command": ${JSON.stringify(memory.command)}, "args": ${JSON.stringify(memory.args)} }
  },
  "theme": "mine"
}
`;

describe('import into an editor in discovery mode', () => {
  it('replaces the imported entries by the one "switchboard" entry, leaves the others, and unsync gives the file back byte for byte', async () => {
    const cursor = install(t, 'cursor', cursorText);
    await ok(['editors', 'tools', 'cursor', '--discovery', 'on']);

    const imported = await ok(['import', '--from', 'cursor', '--yes']);
    expect(imported.stdout + imported.stderr).not.toContain(TOKEN);

    // Cursor reaches both servers through Switchboard only: its own entries of them are gone, the
    // one it could not import is untouched, and so is its setting.
    const after = readFileSync(cursor, 'utf8');
    expect(Object.keys(entriesOf(cursor))).toEqual(['switchboard', 'socket']);
    expect(entriesOf(cursor).switchboard?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(after).toContain('\n    "socket": { "url": "ws://127.0.0.1:9/mcp" }\n');
    expect(after).toContain('"theme": "mine"');
    expect(after).not.toContain(github.args[0]);
    expect(after).not.toContain(memory.args[0]);
    // The pasted token is in no file under the temp folder (Cursor's, servers.json, state, backups).
    expect(await keychain.get('gh-cursor-gh_token')).toBe(TOKEN);
    const files = readdirSync(t.dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));
    for (const file of files) expect(readFileSync(file, 'utf8').includes(TOKEN), file).toBe(false);

    // A sync later keeps it so (nothing of the person's comes back, nothing doubles).
    await ok(['sync', '--editor', 'cursor']);
    expect(readFileSync(cursor, 'utf8')).toBe(after);

    // Unsync with the secrets put back: the person's own file, every byte.
    await ok(['unsync', '--editor', 'cursor', '--restore-secrets']);
    expect(readFileSync(cursor, 'utf8')).toBe(cursorText);
  });

  it('leaves alone what was not imported: another editor and entries of servers this editor does not get', async () => {
    const cursor = install(t, 'cursor', cursorText);
    const claudeText = `{\n  "mcpServers": {\n    "memory": { "command": ${JSON.stringify(memory.command)}, "args": ${JSON.stringify(memory.args)} }\n  }\n}\n`;
    const claude = install(t, 'claude-desktop', claudeText);
    await ok(['editors', 'tools', 'cursor', '--discovery', 'on']);
    await ok(['import', '--from', 'claude-desktop', '--yes']);
    await ok(['sync', '--editor', 'cursor']);
    // Importing Claude Desktop's "memory" takes nothing out of Cursor's file: Cursor's own entries,
    // "memory" too, were not imported; Cursor gets the one entry beside them.
    expect(Object.keys(entriesOf(cursor))).toEqual(['gh-cursor', 'socket', 'memory', 'switchboard']);
    expect(
      readFileSync(cursor, 'utf8').startsWith(cursorText.slice(0, cursorText.lastIndexOf('\n  },'))),
    ).toBe(true);
    expect(Object.keys(entriesOf(claude))).toEqual(['memory']);
    // Claude Desktop's own entry was imported: it is Switchboard's relay now, no longer the server's own line.
    expect(JSON.stringify(entriesOf(claude).memory)).not.toContain(memory.args[0]);
  });
});
