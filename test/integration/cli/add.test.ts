import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { ApproveCliResultSchema } from '../../../shared/api.ts';
import { runCli } from '../../helpers/cli.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

const TOKEN = 'ghp_' + 'Vb7Qm2Xk9LrTz4Wn8Hc1Yp6Ds3Ga5UeJoFi0';
const keychain = new OsKeychain();
let t: TempHome;

beforeEach(() => {
  t = tempHome();
});

afterEach(async () => {
  await keychain.delete('gh-github_token').catch(() => false);
  t.cleanup();
});

describe('switchboard add', () => {
  it('puts a token given on the command line into the keychain, never into servers.json', async () => {
    const added = await runCli(
      // A program, not a package runner: approving an npx line would resolve its package at the registry.
      ['add', 'gh', '--env', `GITHUB_TOKEN=${TOKEN}`, '--', 'node', 'server-github.mjs'],
      t.env,
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(
      'GITHUB_TOKEN looked like a secret: stored in the keychain as ${secret:gh-github_token}',
    );
    expect(added.stdout + added.stderr).not.toContain(TOKEN);
    expect(await keychain.get('gh-github_token')).toBe(TOKEN);
    const files = readdirSync(t.dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));
    for (const file of files) expect(readFileSync(file, 'utf8').includes(TOKEN), file).toBe(false);

    // It can be approved as it is: nothing literal is left to refuse.
    const approved = await runCli(['approve', 'gh', '--yes'], t.env);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain('GITHUB_TOKEN=${secret:gh-github_token}');
  });

  it('stores a relative command as the absolute path it named where it was typed', async () => {
    const added = await runCli(['add', 'local', '--', './bin/my-server', '--stdio'], { ...t.env });
    expect(added.code, added.stderr).toBe(0);
    const servers = JSON.parse(readFileSync(t.home.serversFile, 'utf8')) as {
      mcpServers: Record<string, { command: string }>;
    };
    expect(servers.mcpServers.local?.command).toBe(join(process.cwd(), 'bin', 'my-server'));
  });

  it('refuses a name that exists, saying what would change; --replace replaces it (and it asks again)', async () => {
    const first = await runCli(['add', 'tool', '--', 'node', 'server.js', '--port', '1'], t.env);
    expect(first.code, first.stderr).toBe(0);
    expect((await runCli(['approve', 'tool', '--yes'], t.env)).code).toBe(0);
    const bytes = readFileSync(t.home.serversFile, 'utf8');
    const state = async () =>
      (JSON.parse((await runCli(['status', '--json'], t.env)).stdout) as { servers: { state: string }[] })
        .servers[0]?.state;
    const approved = await state();
    expect(approved).not.toBe('pending-approval');

    // Same name, another config (with a token in it): refused, the file and the approval untouched.
    const refused = await runCli(
      ['add', 'tool', '--env', `GITHUB_TOKEN=${TOKEN}`, '--', 'node', 'server.js', '--port', '2'],
      t.env,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('a server named "tool" exists already');
    expect(refused.stderr).toMatch(/^- +"1"$/m);
    expect(refused.stderr).toMatch(/^\+ +"2"$/m);
    expect(refused.stderr).toMatch(/^\+ +"GITHUB_TOKEN": "•+ \(hidden\)"/m);
    expect(refused.stderr).not.toContain(TOKEN);
    expect(refused.stderr).toContain('switchboard add tool --replace');
    expect(readFileSync(t.home.serversFile, 'utf8')).toBe(bytes);
    expect(await state()).toBe(approved);

    // The same config again changes nothing, and says so.
    const same = await runCli(['add', 'tool', '--', 'node', 'server.js', '--port', '1'], t.env);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain('nothing changed');
    expect(readFileSync(t.home.serversFile, 'utf8')).toBe(bytes);

    const replaced = await runCli(
      ['add', 'tool', '--replace', '--', 'node', 'server.js', '--port', '2'],
      t.env,
    );
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout).toContain('Replaced "tool"');
    expect(replaced.stdout).toMatch(/^\+ +"2"$/m);
    expect(readFileSync(t.home.serversFile, 'utf8')).toContain('"2"');
    expect(await state()).toBe('pending-approval');
  });

  it('an added server is shown as from the command line until it is edited by hand (issue 24 item 13)', async () => {
    const preview = async () =>
      ApproveCliResultSchema.parse(JSON.parse((await runCli(['approve', 'x', '--json'], t.env)).stdout))
        .preview;
    expect((await runCli(['add', 'x', '--', 'node', 'server.js'], t.env)).code).toBe(0);
    expect((await preview()).source).toBe('cli');
    t.writeServers({ mcpServers: { x: { command: 'node', args: ['other.js'] } } });
    expect((await preview()).source).toBe('hand-edit');
  });
});
