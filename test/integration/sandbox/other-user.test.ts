import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The sandbox as an ordinary user (bubblewrap then makes an unprivileged user namespace), while CI
// runs as root. As root, the test runs as uid 4242 through setpriv; as anyone else, as itself.
// What runs is copied to a temp folder that user can enter (CI's clone is in a private folder): the
// project's Node, the core and shared/ (the driver imports only the sandbox's modules), the one package
// they use (ipaddr.js, the network gate's address parser) and the fixture.
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const root = process.getuid?.() === 0;
const UID = 4242;
const setpriv = spawnSync('sh', ['-c', 'command -v setpriv']).stdout?.toString().trim();
const why =
  process.platform !== 'linux'
    ? 'bubblewrap is Linux only'
    : root && !setpriv
      ? 'running as root without setpriv (util-linux) to become another user'
      : undefined;
if (why) console.log(`other-user sandbox test skipped: ${why}`);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-other-user-'));
  chmodSync(dir, 0o755);
  for (const part of [
    'electron/core',
    'shared',
    'node_modules/ipaddr.js',
    'test/integration/sandbox/other-user-driver.ts',
    'test/fixtures/hostile-server.mjs',
  ])
    cpSync(join(repo, part), join(dir, part), { recursive: true });
  mkdirSync(join(dir, 'bin'));
  copyFileSync(process.execPath, join(dir, 'bin', 'node'));
  chmodSync(join(dir, 'bin', 'node'), 0o755);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh HOME and Switchboard home with planted secrets, owned by the user the sandbox runs as. */
function plantedHome(name: string) {
  const home = join(dir, name, 'home');
  const sb = join(dir, name, 'switchboard');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'planted key\n');
  mkdirSync(join(home, '.aws'), { recursive: true });
  writeFileSync(join(home, '.aws', 'credentials'), 'planted\n');
  writeFileSync(join(home, '.bashrc'), '# mine\n');
  mkdirSync(join(sb, 'tokens'), { recursive: true });
  writeFileSync(join(sb, 'tokens', 'control'), 'planted token');
  mkdirSync(join(sb, 'data', 'hostile'), { recursive: true });
  if (root) spawnSync('chown', ['-R', `${UID}:${UID}`, join(dir, name)]);
  return { home, sb };
}

function runAsUser(input: object): {
  skipped?: string;
  uid: number;
  results: Record<string, { ok: boolean }>;
  refusals: string[];
} {
  const node = join(dir, 'bin', 'node');
  const driver = join(dir, 'test/integration/sandbox/other-user-driver.ts');
  const argv = [node, driver, JSON.stringify(input)];
  const env = { PATH: `${dirname(node)}:/usr/local/bin:/usr/bin:/bin`, LANG: 'C.UTF-8' };
  const result = root
    ? spawnSync(
        setpriv ?? 'setpriv',
        ['--reuid', String(UID), '--regid', String(UID), '--clear-groups', ...argv],
        { env, cwd: dir, timeout: 60_000 },
      )
    : spawnSync(argv[0] ?? '', argv.slice(1), { env, cwd: dir, timeout: 60_000 });
  const out = result.stdout?.toString() ?? '';
  if (result.status !== 0 || !out)
    throw new Error(`driver failed (${result.status}): ${result.stderr?.toString()}`);
  return JSON.parse(out) as ReturnType<typeof runAsUser>;
}

describe.skipIf(why)('the sandbox as an ordinary user', () => {
  it('keeps a hostile server from everything by default, and gives it exactly what is declared', () => {
    const a = plantedHome('default');
    const fixture = join(dir, 'test/fixtures/hostile-server.mjs');
    const refused = runAsUser({
      home: a.home,
      switchboardHome: a.sb,
      fixture,
      setting: undefined,
      env: { TARGET_PID: String(process.pid) },
    });
    if (refused.skipped) {
      console.log(`other-user sandbox test skipped: ${refused.skipped}`);
      return;
    }
    expect(refused.uid).toBe(root ? UID : process.getuid?.());
    for (const [name, attempt] of Object.entries(refused.results))
      expect(attempt, name).toMatchObject({ ok: false });
    expect(refused.refusals).toContain('sandbox refused writing ~/.bashrc: add it to sandbox.write');
    expect(refused.refusals).toContainEqual(
      expect.stringMatching(/^sandbox refused reading ~\/\.ssh\/id_ed25519/),
    );
    expect(readFileSync(join(a.home, '.bashrc'), 'utf8')).toBe('# mine\n');

    const b = plantedHome('declared');
    const allowed = runAsUser({
      home: b.home,
      switchboardHome: b.sb,
      fixture,
      setting: {
        read: ['~/.ssh/id_ed25519', '~/.aws/credentials', join(b.sb, 'tokens')],
        write: ['~/.bashrc'],
      },
      env: { TARGET_PID: String(process.pid) },
    });
    expect(allowed.results).toMatchObject({
      'ssh-key': { ok: true },
      'aws-credentials': { ok: true },
      'switchboard-tokens': { ok: true },
      bashrc: { ok: true },
      'shell-ssh-key': { ok: true },
      'serve-environ': { ok: false },
      'loopback-port': { ok: false },
    });
  });
});
