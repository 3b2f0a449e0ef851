import { chmodSync, readFileSync, statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { heldBackPlaceholder } from '../../../electron/core/editors/give-back.ts';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { runCli } from '../../helpers/cli.ts';
import { fixtureServer } from '../../helpers/servers.ts';
import { useSecretsCleanup } from '../../helpers/secrets.ts';
import { filesHolding, tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { install } from './helpers.ts';

// The same promise as unsync-import.test.ts, for the editors whose files are TOML (Codex) and YAML
// (Goose, Continue): after `import --yes` and `unsync`, the user's own entries come back with their
// comments and layout — the secrets import moved to the keychain only when asked, and then every byte
// is the original. A file that holds a bridge token (Goose, Continue) is made owner-only; Codex's,
// which names the header helper instead, keeps its mode.

const TOKEN = 'ghp_' + 'Zq8vN3kLr2TfXw7HcYp1BmDs9GaUe4JoQiRt';
const memory = fixtureServer('mini-server.mjs');
const github = fixtureServer('env-echo-server.mjs', 'GH_FORMATS_TOKEN');
const keychain = new OsKeychain();
const json = (value: unknown) => JSON.stringify(value);
const mode = (file: string) => statSync(file).mode & 0o777;

let t: TempHome;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());
useSecretsCleanup(keychain, '_gh_formats_token');

describe('unsync after import gives back TOML and YAML entries', () => {
  it('Codex (TOML): a table with its sub-table and a key line come back with their comments; the file keeps its mode', async () => {
    const original = `# Codex settings — mine
model = "gpt-5-codex"   # the default model

[mcp_servers]
docs = { url = "https://docs.example.com/mcp" } # hosted docs

# GitHub, by hand
[mcp_servers.github]
command = ${json(github.command)}
args = ${json(github.args)}   # the fixture
startup_timeout_sec = 20

[mcp_servers.github.env]
GH_FORMATS_TOKEN = "${TOKEN}" # my PAT

[tui]
theme = "dark"`;
    const file = install(t, 'codex', original);
    chmodSync(file, 0o644);
    const imported = await runCli(['import', '--yes'], t.env);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/Codex CLI: replaced your entries (docs, github|github, docs)/);
    expect(await keychain.get('github-gh_formats_token')).toBe(TOKEN);
    expect(filesHolding(t.dir, TOKEN)).toEqual([]);
    // Switchboard's entries stand where the user's stood, in their form; no token in the file.
    const now = readFileSync(file, 'utf8');
    expect(now).toMatch(
      /\[mcp_servers\]\ndocs = \{ url = "http:\/\/127\.0\.0\.1:\d+\/mcp\/docs", http_headers_helper = /,
    );
    expect(now).toMatch(
      /# GitHub, by hand\n\[mcp_servers\.github\]\nurl = "http:\/\/127\.0\.0\.1:\d+\/mcp\/github"\n/,
    );
    expect(now).toMatch(/\n\[tui\]\ntheme = "dark"$/);
    expect(mode(file)).toBe(0o644);
    expect(imported.stdout).not.toContain('0600');

    // A script: the entries come back without the secret, whose place says where it is.
    const unsync = await runCli(['unsync', '--editor', 'codex'], t.env);
    expect(unsync.code, unsync.stdout + unsync.stderr).toBe(0);
    expect(unsync.stdout).toMatch(/Codex CLI: removed (docs, github|github, docs); gave back your entries/);
    expect(readFileSync(file, 'utf8')).toBe(
      original.replace(TOKEN, heldBackPlaceholder('github-gh_formats_token', 'codex')),
    );
    expect(filesHolding(t.dir, TOKEN)).toEqual([]);

    // Asked for: the file is the original, byte for byte.
    const again = await runCli(['unsync', '--editor', 'codex', '--restore-secrets'], t.env);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect(mode(file)).toBe(0o644);
  });

  it('Goose (YAML map): the entry and its comments come back; the file, which holds a token, became 0600', async () => {
    const original = `# Goose config — mine
GOOSE_PROVIDER: openai
GOOSE_MODEL: gpt-4o   # the default model
extensions:
  developer:
    enabled: true
    type: builtin
    name: developer
    timeout: 300
  # GitHub, by hand
  github:
    enabled: true
    type: stdio
    name: github
    cmd: ${json(github.command)}
    args: ${json(github.args)}
    envs:
      GH_FORMATS_TOKEN: ${TOKEN}   # my PAT
    timeout: 300
# the end
`;
    const file = install(t, 'goose', original);
    chmodSync(file, 0o644);
    const imported = await runCli(['import', '--yes'], t.env);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    expect(imported.stdout).toContain('Goose: replaced your entry github');
    expect(imported.stdout).toContain('readable only by you (0600)');
    expect(mode(file)).toBe(0o600);
    expect(filesHolding(t.dir, TOKEN)).toEqual([]);
    const now = readFileSync(file, 'utf8');
    expect(now).toContain(
      '  # GitHub, by hand\n  github:\n    name: github\n    enabled: true\n    type: streamable_http\n',
    );
    expect(now).toContain('    timeout: 300\n# the end\n');

    const unsync = await runCli(['unsync', '--editor', 'goose', '--no-restore-secrets'], t.env);
    expect(unsync.code, unsync.stdout + unsync.stderr).toBe(0);
    const held = readFileSync(file, 'utf8');
    expect(held).toBe(original.replace(TOKEN, heldBackPlaceholder('github-gh_formats_token', 'goose')));
    // The placeholder is a plain YAML value: the file still parses, to the same settings.
    const parsed = parseDocument(held);
    expect(parsed.errors).toEqual([]);
    expect(parsed.getIn(['extensions', 'github', 'envs', 'GH_FORMATS_TOKEN'])).toBe(
      heldBackPlaceholder('github-gh_formats_token', 'goose'),
    );

    expect((await runCli(['unsync', '--editor', 'goose', '--restore-secrets'], t.env)).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(original);
  });

  it('Continue (YAML list): the entry comes back byte for byte; one its lines could not give back is not imported', async () => {
    const original = `name: My Assistant
version: 1.0.0
schema: v1
mcpServers:
  # by hand
  - name: memory
    command: ${json(memory.command)}
    args: ${json(memory.args)}
    env:
      API_KEY: "${TOKEN}"    # quoted
  -
    name: odd
    command: npx
    args: [-y, odd-server]
`;
    const file = install(t, 'continue', original);
    chmodSync(file, 0o644);
    const listed = await runCli(['import'], t.env);
    expect(listed.stdout).toContain(
      'its entry in "mcpServers" does not start on the line of its "-"; put it there to import it',
    );
    const imported = await runCli(['import', '--yes'], t.env);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    expect(imported.stdout).toContain('Continue: replaced your entry memory');
    expect(mode(file)).toBe(0o600);
    const now = readFileSync(file, 'utf8');
    expect(now).toContain('  # by hand\n  - name: memory\n    type: streamable-http\n');
    expect(now).toContain('  -\n    name: odd\n    command: npx\n    args: [-y, odd-server]\n');
    expect(readFileSync(t.home.serversFile, 'utf8')).not.toContain('odd-server');

    expect((await runCli(['unsync', '--editor', 'continue', '--restore-secrets'], t.env)).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(original);
  });
});
