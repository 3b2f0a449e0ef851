import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { ApproveCliResultSchema } from '../../../shared/api.ts';
import { runCli } from '../../helpers/cli.ts';
import { fixtureServer } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';
import { install } from '../editors/helpers.ts';

// Switchboard's own edits of servers.json at the person's command (`grant`, `secret move`) keep where
// the entry came from and say what Switchboard changed; only a real hand edit says "edited by hand".
const keychain = new OsKeychain();
let t: TempHome;

beforeEach(() => {
  t = tempHome();
});

afterEach(async () => {
  await keychain.delete('x-api_mode').catch(() => false);
  t.cleanup();
});

async function preview(name: string) {
  const run = await runCli(['approve', name, '--json'], t.env);
  return ApproveCliResultSchema.parse(JSON.parse(run.stdout)).preview;
}

/** The "from …" of `approve NAME` as a person reads it (no terminal: nothing is approved). */
async function fromLine(name: string): Promise<string> {
  const run = await runCli(['approve', name], t.env);
  const line = run.stdout.split('\n').find((l) => l.startsWith(`"${name}" (`));
  if (!line) throw new Error(`approve ${name} printed no header:\n${run.stdout}\n${run.stderr}`);
  return line;
}

async function ok(args: string[]): Promise<void> {
  const run = await runCli(args, t.env);
  expect(run.code, `${args.join(' ')}\n${run.stdout}\n${run.stderr}`).toBe(0);
}

describe('where an approval says a server came from, after Switchboard edited it', () => {
  it('a grant keeps "the command line" and says Switchboard added the path; a hand edit after it is a hand edit', async () => {
    await ok(['add', 'x', '--', 'node', 'server.mjs']);
    await ok(['approve', 'x', '--yes']);
    await ok(['grant', 'x', 'read', '~/notes']);

    const shown = await preview('x');
    expect(shown.state).toBe('pending-approval');
    expect(shown.source).toBe('cli');
    expect(shown.edits).toEqual(['sandbox-grant']);
    const from = await fromLine('x');
    expect(from).toContain('from the switchboard command line');
    expect(from).toContain('a path added to its sandbox (switchboard grant)');
    expect(from).not.toContain('edited by hand');

    // Approved, the record stays with the entry: a second grant adds to it, it still says the command line.
    await ok(['approve', 'x', '--yes']);
    await ok(['grant', 'x', 'write', '~/out']);
    expect((await preview('x')).source).toBe('cli');

    // The person edits the file themselves: now it is a hand edit, and nothing else is claimed.
    t.writeServers({ mcpServers: { x: { command: 'node', args: ['other.mjs'] } } });
    const edited = await preview('x');
    expect(edited.source).toBe('hand-edit');
    expect(edited.edits).toEqual([]);
    expect(await fromLine('x')).toContain('edited by hand');
  });

  it('a hand-written entry that Switchboard then granted a path says both', async () => {
    t.writeServers({ mcpServers: { y: { command: 'node', args: ['server.mjs'] } } });
    await ok(['grant', 'y', 'read', '~/notes']);
    const shown = await preview('y');
    expect(shown.source).toBe('hand-edit');
    expect(shown.edits).toEqual(['sandbox-grant']);
    expect(await fromLine('y')).toMatch(
      /edited by hand.*then changed by Switchboard at your command: a path added/,
    );
  });

  it('an entry imported from an editor says "imported" after a grant too', async () => {
    install(t, 'cursor', JSON.stringify({ mcpServers: { mini: fixtureServer('mini-server.mjs') } }));
    await ok(['import', '--yes']);
    await ok(['grant', 'mini', 'read', '~/notes']);
    const shown = await preview('mini');
    expect(shown.state).toBe('pending-approval');
    expect(shown.source).toBe('import');
    expect(shown.edits).toEqual(['sandbox-grant']);
    expect(await fromLine('mini')).toContain(
      'from imported from an editor’s config, then changed by Switchboard at your command: a path added',
    );
  });

  it('secret move keeps "the command line" and says the secret moved to the keychain', async () => {
    // A value detection does not take for a secret stays literal; `secret move` moves it as asked.
    await ok(['add', 'x', '--env', 'API_MODE=fast-lane', '--', 'node', 'server.mjs']);
    await ok(['secret', 'move', 'x', 'API_MODE']);

    const shown = await preview('x');
    expect(shown.source).toBe('cli');
    expect(shown.edits).toEqual(['secret-move']);
    const from = await fromLine('x');
    expect(from).toContain('from the switchboard command line');
    expect(from).toContain('a pasted secret moved to the keychain (switchboard secret move)');
    expect(from).not.toContain('edited by hand');
  });
});
