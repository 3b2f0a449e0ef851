import { packExtension } from '@anthropic-ai/mcpb';
import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { exited, runCli, startServe } from '../../helpers/cli.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// Issue 36 item 2, the README's headless recipe: `serve` runs inside the D-Bus session that has the
// keychain (here test/run.sh's private session with a real gnome-keyring), and the person types
// commands in another terminal, which has no session bus at all. While serve runs, every keychain
// operation of the CLI goes through it, so each lands in serve's keychain (read back here through
// the real Secret Service).

const TOKEN = 'ghp_' + 'Qe4Rt7Yu1Io9Pa3Sd6Fg2Hj8Kl5Zx0CvBn';
const KEY = 'bundle-key-through-serve-0987654321';
const PASTED = 'ghp_' + 'Mv8Nb2Vc5Xz1Lk4Jh7Gf0Ds3Ap6Oi9Uy2Tr';
const keychain = new OsKeychain();
let t: TempHome;
let serve: { child: ChildProcess; output: () => string } | undefined;
let cliEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
  t = tempHome();
  serve = await startServe(t.env);
  // Another terminal: a D-Bus address where nothing listens.
  cliEnv = { ...t.env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${t.dir}/no-bus` };
}, 120_000);
afterAll(async () => {
  serve?.child.kill('SIGTERM');
  if (serve) await exited(serve.child);
  for (const name of ['through-serve', 'gh-github_token', 'echo-api_key', 'pasted-github_token', 'taken'])
    await keychain.delete(name).catch(() => undefined);
  t.cleanup();
});

describe.runIf(process.platform === 'linux')('keychain commands while serve runs, without a bus', () => {
  it('secret set, list and rm go through serve', async () => {
    const set = await runCli(['secret', 'set', 'through-serve'], cliEnv, 'value-one');
    expect(set.stderr).toBe('');
    expect(await keychain.get('through-serve')).toBe('value-one');

    const list = await runCli(['secret', 'list'], cliEnv);
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('through-serve');

    const rm = await runCli(['secret', 'rm', 'through-serve'], cliEnv);
    expect(rm.stderr).toBe('');
    expect(rm.stdout).toContain('Deleted secret "through-serve".');
    expect(await keychain.get('through-serve')).toBeUndefined();

    const again = await runCli(['secret', 'rm', 'through-serve'], cliEnv);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('no secret named "through-serve" in the keychain');
  });

  it("add --env KEY=literal stores the token in serve's keychain", async () => {
    const run = await runCli(['add', 'gh', '--env', `GITHUB_TOKEN=${TOKEN}`, '--', 'npx', '-y', 'x'], cliEnv);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('stored in the keychain as ${secret:gh-github_token}');
    expect(await keychain.get('gh-github_token')).toBe(TOKEN);
    expect(readFileSync(t.home.serversFile, 'utf8')).not.toContain(TOKEN);
  });

  it("install FILE.mcpb stores its sensitive setting in serve's keychain", async () => {
    const source = join(t.dir, 'bundle');
    cpSync(join(import.meta.dirname, '../../fixtures/store/mcpb-echo'), source, { recursive: true });
    const file = join(t.dir, 'echo.mcpb');
    expect(await packExtension({ extensionPath: source, outputPath: file, silent: true })).toBe(true);
    const run = await runCli(
      ['install', file, '--name', 'echo', '--set', 'greeting=hi', '--set', `api_key=${KEY}`],
      cliEnv,
    );
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('${secret:echo-api_key}');
    expect(await keychain.get('echo-api_key')).toBe(KEY);
    expect(readFileSync(t.home.serversFile, 'utf8')).not.toContain(KEY);
  });

  // The fix `status` and the README give for a token pasted into servers.json, typed while serve runs.
  it("secret move SERVER KEY moves a pasted token into serve's keychain", async () => {
    writeServer('pasted', {
      command: 'node',
      args: ['server.mjs'],
      env: { GITHUB_TOKEN: PASTED, LOG_LEVEL: 'info' },
    });
    const run = await runCli(['secret', 'move', 'pasted', 'GITHUB_TOKEN'], cliEnv);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Moved GITHUB_TOKEN of "pasted" into the keychain as "pasted-github_token"');
    expect(await keychain.get('pasted-github_token')).toBe(PASTED);
    const file = readFileSync(t.home.serversFile, 'utf8');
    expect(file).not.toContain(PASTED);
    expect(file).toContain('${secret:pasted-github_token}');
  });

  it('secret move to a name serve holds with another value is refused, and nothing moves', async () => {
    await keychain.set('taken', 'somebody-elses-value');
    writeServer('pasted2', { command: 'node', args: ['server.mjs'], env: { GITHUB_TOKEN: PASTED } });
    const run = await runCli(['secret', 'move', 'pasted2', 'GITHUB_TOKEN', 'taken'], cliEnv);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the keychain already has a different secret named "taken"');
    expect(await keychain.get('taken')).toBe('somebody-elses-value');
    expect(readFileSync(t.home.serversFile, 'utf8')).toContain(PASTED);
  });
});

/** A server entry as a person pastes it into servers.json by hand. */
function writeServer(name: string, entry: Record<string, unknown>): void {
  const file = t.home.serversFile;
  const doc = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, unknown> })
    : { mcpServers: {} };
  doc.mcpServers[name] = entry;
  writeFileSync(file, JSON.stringify(doc, null, 2));
}
