import { readFileSync } from 'node:fs';
import { parse } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { heldBackPlaceholder } from '../../../electron/core/editors/give-back.ts';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { runCli, runCliInTerminal } from '../../helpers/cli.ts';
import { fixtureServer } from '../../helpers/servers.ts';
import { useSecretsCleanup } from '../../helpers/secrets.ts';
import { filesHolding, tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { install } from './helpers.ts';

// A person imports the servers they had configured by hand (`switchboard import --yes`), then changes
// their mind (`switchboard unsync`): their own entries come back as they were. The literal secrets
// import moved into the keychain come back only when they ask — then every byte of each file is the
// original — and otherwise each secret's place says where it is and how to put it back.

const TOKEN = 'ghp_' + 'Zq8vN3kLr2TfXw7HcYp1BmDs9GaUe4JoQiRt';
const memory = fixtureServer('mini-server.mjs');
const github = fixtureServer('env-echo-server.mjs', 'UNSYNC_GH_TOKEN');
const keychain = new OsKeychain();

let t: TempHome;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());
// The secrets import stored: gone with the test.
useSecretsCleanup(keychain, '_unsync_gh_token');

const json = (value: unknown) => JSON.stringify(value);

describe('unsync after import gives back the entries import replaced', () => {
  it('Claude Code: `memory` comes back, its secret held back until asked for, then every byte is the original', async () => {
    const original = `{
  "numStartups": 3,
  "projects": { "/home/you/code": { "allowedTools": [], "history": [{ "display": "hi" }] } },
  "mcpServers": {
    "memory": {
      "type": "stdio",
      "command": ${json(memory.command)},
      "args": ${json(memory.args)},
      "env": { "UNSYNC_GH_TOKEN": "${TOKEN}" }
    }
  },
  "theme": "dark"
}
`;
    const file = install(t, 'claude-code', original);
    const imported = await runCli(['import', '--yes'], t.env);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    expect(imported.stdout).toContain('Claude Code: replaced your entry memory');
    expect(await keychain.get('memory-unsync_gh_token')).toBe(TOKEN);
    // The record unsync needs is in state.json, and the secret is in no file.
    expect(filesHolding(t.dir, TOKEN)).toEqual([]);
    expect(readFileSync(t.home.stateFile, 'utf8')).toContain('"entry": "memory"');

    // A script (no terminal, no flag): the entry comes back without its secret, and says so.
    const unsync = await runCli(['unsync'], t.env);
    expect(unsync.code, unsync.stdout + unsync.stderr).toBe(0);
    expect(unsync.stdout).toContain('Claude Code: removed memory; gave back your entry memory');
    expect(unsync.stdout).toContain(
      'held back (in the keychain; their places in the file say so): memory-unsync_gh_token. To put them back: switchboard unsync --editor claude-code --restore-secrets',
    );
    const placeholder = heldBackPlaceholder('memory-unsync_gh_token', 'claude-code');
    expect(placeholder).toBe(
      '<secret memory-unsync_gh_token is in your keychain; to put it here run switchboard unsync --editor claude-code --restore-secrets>',
    );
    expect(readFileSync(file, 'utf8')).toBe(original.replace(TOKEN, placeholder));
    expect(filesHolding(t.dir, TOKEN)).toEqual([]);

    // Asked for while the secret is gone from the keychain: said, and the placeholder stays.
    expect(await keychain.delete('memory-unsync_gh_token')).toBe(true);
    const gone = await runCli(['unsync', '--restore-secrets'], t.env);
    expect(gone.code, gone.stdout + gone.stderr).toBe(0);
    expect(gone.stdout).toContain(
      'not in the keychain any more, so their places in the file still say so: memory-unsync_gh_token (store each again with: switchboard secret set NAME, then: switchboard unsync --editor claude-code --restore-secrets)',
    );
    expect(readFileSync(file, 'utf8')).toBe(original.replace(TOKEN, placeholder));
    expect((await runCli(['secret', 'set', 'memory-unsync_gh_token'], t.env, TOKEN)).code).toBe(0);

    // Asked for: the secret goes back where it was, and the file is the original, byte for byte.
    const again = await runCli(['unsync', '--restore-secrets'], t.env);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain(
      'put back into the file as plain text (they stay in the keychain too): memory-unsync_gh_token',
    );
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect(readFileSync(t.home.stateFile, 'utf8')).not.toContain('"entry": "memory"');
  });

  it('Zed (JSONC, comments) and Claude Desktop: asked once on a terminal; yes gives back the exact bytes, no leaves placeholders', async () => {
    const claudeOriginal = json({
      mcpServers: { github: { ...github, env: { UNSYNC_GH_TOKEN: TOKEN } } },
      globalShortcut: 'Alt+Space',
    });
    const zedOriginal = `// Zed settings
{
  "theme": "One Dark", // my theme
  "context_servers": {
    // the same GitHub server, pasted here too
    "gh": {
      "command": ${json(github.command)},
      "args": ${json(github.args)},
      "env": { "UNSYNC_GH_TOKEN": "${TOKEN}" }, // keep this
    },
    /* notes */ "memory": { "command": ${json(memory.command)}, "args": ${json(memory.args)} },
  },
  "vim_mode": true,
}
`;
    const claude = install(t, 'claude-desktop', claudeOriginal);
    const zed = install(t, 'zed', zedOriginal);
    // Imported at a terminal, answering the question with "y".
    const imported = await runCliInTerminal(['import'], t.env, 'y\n');
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    expect(imported.stdout).toContain('Imported into');
    expect(filesHolding(t.dir, TOKEN)).toEqual([]);
    // Zed's "gh" is the server Claude Desktop calls "github": Switchboard's entry takes its place.
    const zedNow = readFileSync(zed, 'utf8');
    expect(zedNow).toContain('    // the same GitHub server, pasted here too\n    "github": {');
    expect(zedNow).toContain('    /* notes */ "memory": {');
    expect(Object.keys((parse(zedNow) as { context_servers: object }).context_servers)).toEqual([
      'github',
      'memory',
    ]);

    // On a terminal, unsync asks once (naming the secret and the files); "n" holds it back.
    const no = await runCliInTerminal(['unsync'], t.env, 'n\n');
    expect(no.code, no.stdout + no.stderr).toBe(0);
    expect(no.stdout.match(/Put them back into those files as plain text\?/g)).toHaveLength(1);
    expect(no.stdout).toContain(`  Zed (${zed}): github-unsync_gh_token`);
    expect(no.stdout).toContain(`  Claude Desktop (${claude}): github-unsync_gh_token`);
    expect(no.stdout).toContain('Zed: removed github, memory; gave back your entries gh, memory');
    expect(readFileSync(zed, 'utf8')).toBe(
      zedOriginal.replace(TOKEN, heldBackPlaceholder('github-unsync_gh_token', 'zed')),
    );
    expect(readFileSync(claude, 'utf8')).toBe(
      claudeOriginal.replace(TOKEN, heldBackPlaceholder('github-unsync_gh_token', 'claude-desktop')),
    );
    expect(filesHolding(t.dir, TOKEN)).toEqual([]);

    // Asked again later, "y": the placeholders make way for the secret; both files are the originals.
    const yes = await runCliInTerminal(['unsync', '--editor', 'zed'], t.env, 'y\n');
    expect(yes.code, yes.stdout + yes.stderr).toBe(0);
    expect(readFileSync(zed, 'utf8')).toBe(zedOriginal);
    expect((await runCli(['unsync', '--editor', 'claude-desktop', '--restore-secrets'], t.env)).code).toBe(0);
    expect(readFileSync(claude, 'utf8')).toBe(claudeOriginal);
  });

  it('import then unsync --restore-secrets at once gives back every byte; --no-restore-secrets on a terminal asks nothing', async () => {
    const zedOriginal = `{
\t// mine
\t"context_servers": {
\t\t"gh": { "command": ${json(github.command)}, "args": ${json(github.args)}, "env": { "UNSYNC_GH_TOKEN": "${TOKEN}" } }
\t}
}
`;
    const zed = install(t, 'zed', zedOriginal);
    const claude = install(t, 'claude-desktop', json({ mcpServers: { gh2: { ...github, env: {} } } }));
    expect((await runCli(['import', '--yes'], t.env)).code).toBe(0);

    const quiet = await runCliInTerminal(
      ['unsync', '--editor', 'claude-desktop', '--no-restore-secrets'],
      t.env,
      '',
    );
    expect(quiet.code, quiet.stdout).toBe(0);
    expect(quiet.stdout).not.toMatch(/\[y\/N\]/);
    expect(readFileSync(claude, 'utf8')).toBe(json({ mcpServers: { gh2: { ...github, env: {} } } }));

    expect((await runCli(['unsync', '--editor', 'zed', '--restore-secrets'], t.env)).code).toBe(0);
    expect(readFileSync(zed, 'utf8')).toBe(zedOriginal);
    expect((await runCli(['unsync', '--restore-secrets', '--no-restore-secrets'], t.env)).code).toBe(2);
  });
});
