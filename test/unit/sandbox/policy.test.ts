import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hiddenPrograms } from '../../../electron/core/sandbox/access.ts';
import { sandboxPolicy, type PolicyInput } from '../../../electron/core/sandbox/policy.ts';
import { describeAccess } from '../../../electron/core/sandbox/words.ts';
import { sandboxGaps, type SandboxSupport } from '../../../electron/core/sandbox/support.ts';
import { LINUX_SUPPORT } from '../../helpers/sandbox.ts';

const LINUX = LINUX_SUPPORT;

let dir: string;
let home: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-policy-'));
  home = join(dir, 'home');
  mkdirSync(home);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function input(over: Partial<PolicyInput> = {}): PolicyInput {
  return {
    name: 'x',
    setting: undefined,
    command: '/usr/bin/node',
    args: [],
    env: {},
    cwd: undefined,
    ownFolder: join(home, '.config/switchboard/data/x'),
    switchboardHome: join(home, '.config/switchboard'),
    userHome: home,
    runtimeDir: '/run/user/1000',
    support: LINUX,
    ...over,
  };
}

describe('the default sandbox policy', () => {
  it('hides the home, Switchboard, /run and mounted drives; writes only its own folder', () => {
    const policy = sandboxPolicy(input());
    if (!policy.sandboxed) throw new Error('expected a sandbox');
    expect(policy.hidden).toEqual(
      expect.arrayContaining([home, join(home, '.config/switchboard'), '/run', '/media', '/mnt']),
    );
    expect(policy.write).toEqual([{ path: join(home, '.config/switchboard/data/x'), why: 'own folder' }]);
    expect(policy.secrets).toEqual(
      expect.arrayContaining([
        join(home, '.ssh'),
        join(home, '.aws'),
        join(home, '.gnupg'),
        join(home, '.netrc'),
      ]),
    );
    expect(policy.network).toEqual({ kind: 'internet' });
    // toolchains are readable (npx, nvm's node), never writable
    expect(policy.read).toContainEqual({ path: join(home, '.nvm'), why: 'toolchain' });
  });

  it('hides /run (every daemon socket, the session bus) whether or not a runtime dir is set, and one elsewhere too', () => {
    for (const runtimeDir of [undefined, '/run/user/1000', '/var/lib/xdg-runtime/1000']) {
      const policy = sandboxPolicy(input({ runtimeDir }));
      if (!policy.sandboxed) throw new Error('expected a sandbox');
      expect(policy.hidden, String(runtimeDir)).toContain('/run');
      if (runtimeDir?.startsWith('/var/lib')) expect(policy.hidden).toContain(runtimeDir);
      expect(
        policy.read.some((g) => g.path.startsWith('/run/')),
        String(runtimeDir),
      ).toBe(false);
    }
  });

  it("seals the editors' files (by their folder) and Switchboard's tokens: no grant opens them", () => {
    mkdirSync(join(home, '.cursor'));
    writeFileSync(join(home, '.claude.json'), '{}');
    const tokens = join(home, '.config/switchboard/tokens');
    const policy = sandboxPolicy(
      input({
        setting: { read: ['~', '~/.cursor', tokens], write: ['~/.cursor/mcp.json'] },
        sealed: [tokens],
        tokenFiles: [join(home, '.cursor/mcp.json'), join(home, '.claude.json')],
      }),
    );
    if (!policy.sandboxed) throw new Error('expected a sandbox');
    // a file right in the home is sealed by itself; one in an editor's folder, by the folder
    expect(policy.secrets).toEqual(
      expect.arrayContaining([tokens, join(home, '.cursor'), join(home, '.claude.json')]),
    );
    expect(policy.read).toContainEqual({ path: home, why: 'servers.json' });
    for (const g of [...policy.read, ...policy.write])
      expect(
        [tokens, join(home, '.cursor')].some((s) => g.path === s || g.path.startsWith(`${s}/`)),
        g.path,
      ).toBe(false);
  });

  it('adds what servers.json grants, with "~" meaning the home folder', () => {
    const policy = sandboxPolicy(
      input({
        setting: { read: ['~/docs'], write: ['~/projects', '/srv/data'], network: ['api.github.com'] },
      }),
    );
    if (!policy.sandboxed) throw new Error('expected a sandbox');
    expect(policy.read).toContainEqual({ path: join(home, 'docs'), why: 'servers.json' });
    expect(policy.write).toContainEqual({ path: join(home, 'projects'), why: 'servers.json' });
    expect(policy.write).toContainEqual({ path: '/srv/data', why: 'servers.json' });
    expect(policy.network).toEqual({ kind: 'list', entries: ['api.github.com'] });
  });

  it("offers a known server's folder arguments as read and write access (server-filesystem)", () => {
    const policy = sandboxPolicy(
      input({
        command: '/usr/bin/npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '~/notes', join(dir, 'shared')],
      }),
    );
    if (!policy.sandboxed) throw new Error('expected a sandbox');
    expect(policy.known).toBe('server-filesystem');
    expect(policy.write).toContainEqual({ path: join(home, 'notes'), why: 'argument' });
    expect(policy.write).toContainEqual({ path: join(dir, 'shared'), why: 'argument' });
  });

  it('points server-memory at its own folder, and a git server at its repository', () => {
    const memory = sandboxPolicy(
      input({ args: ['/x/node_modules/@modelcontextprotocol/server-memory/dist/index.js'] }),
    );
    if (!memory.sandboxed) throw new Error('expected a sandbox');
    expect(memory.env).toEqual({ MEMORY_FILE_PATH: join(home, '.config/switchboard/data/x/memory.jsonl') });
    const git = sandboxPolicy(
      input({ command: '/usr/bin/uvx', args: ['mcp-server-git', '--repository', '~/src/app'] }),
    );
    if (!git.sandboxed) throw new Error('expected a sandbox');
    expect(git.write).toContainEqual({ path: join(home, 'src/app'), why: 'argument' });
  });

  it("reads a script argument's whole project, but never a secret place or Switchboard's home through an argument", () => {
    const project = join(home, 'dev/server');
    mkdirSync(join(project, 'dist'), { recursive: true });
    writeFileSync(join(project, 'package.json'), '{}');
    writeFileSync(join(project, 'dist/index.js'), '');
    mkdirSync(join(home, '.ssh'));
    mkdirSync(join(home, '.config/switchboard/tokens'), { recursive: true });
    const policy = sandboxPolicy(
      input({
        args: [
          join(project, 'dist/index.js'),
          join(home, '.ssh'),
          `--home=${join(home, '.config/switchboard/tokens')}`,
        ],
      }),
    );
    if (!policy.sandboxed) throw new Error('expected a sandbox');
    expect(policy.read.filter((g) => g.why === 'argument')).toEqual([{ path: project, why: 'argument' }]);
  });

  it('reads the whole node_modules a script inside it resolves its (hoisted) dependencies from', () => {
    const project = join(home, 'dev/app');
    const pkg = join(project, 'node_modules/@scope/server');
    mkdirSync(join(pkg, 'dist'), { recursive: true });
    writeFileSync(join(project, 'package.json'), '{}');
    writeFileSync(join(pkg, 'package.json'), '{}');
    writeFileSync(join(pkg, 'dist/index.js'), '');
    const policy = sandboxPolicy(input({ args: [join(pkg, 'dist/index.js'), 'stdio'] }));
    if (!policy.sandboxed) throw new Error('expected a sandbox');
    expect(policy.read.filter((g) => g.why === 'argument')).toEqual([
      { path: join(project, 'node_modules'), why: 'argument' },
    ]);

    // A known server run as a script the same way: its folders are written, its code is read.
    const fs = join(project, 'node_modules/@modelcontextprotocol/server-filesystem');
    mkdirSync(join(fs, 'dist'), { recursive: true });
    writeFileSync(join(fs, 'dist/index.js'), '');
    const notes = join(home, 'notes');
    const known = sandboxPolicy(input({ args: [join(fs, 'dist/index.js'), notes] }));
    if (!known.sandboxed) throw new Error('expected a sandbox');
    expect(known.read.filter((g) => g.why === 'argument')).toEqual([
      { path: join(project, 'node_modules'), why: 'argument' },
    ]);
    expect(known.write).toContainEqual({ path: notes, why: 'argument' });
  });

  it("gives package runners a cache in the server's own folder, and lets a stored package be read", () => {
    const own = join(home, '.config/switchboard/data/x');
    const npx = sandboxPolicy(input({ command: '/usr/bin/npx', args: ['-y', 'some-server'] }));
    expect(npx).toMatchObject({ env: { npm_config_cache: `${own}/.npm` } });
    const uvx = sandboxPolicy(
      input({ command: '/usr/bin/uvx', args: ['x'], env: { UV_CACHE_DIR: '/srv/uv' } }),
    );
    expect(uvx).toMatchObject({ env: {} }); // its own setting wins
    const store = join(home, '.config/switchboard/store');
    const stored = sandboxPolicy(
      input({ args: [join(store, 'npm/pkg@1.0.0/dist/index.js')], storeFolder: store }),
    );
    if (!stored.sandboxed) throw new Error('expected a sandbox');
    expect(stored.read).toContainEqual({ path: store, why: 'store' });
    const plain = sandboxPolicy(input({ storeFolder: store }));
    if (!plain.sandboxed) throw new Error('expected a sandbox');
    expect(plain.read.map((g) => g.path)).not.toContain(store);
  });

  it('runs without a sandbox when servers.json says false, or the OS has none, and says why', () => {
    expect(sandboxPolicy(input({ setting: false }))).toMatchObject({
      sandboxed: false,
      chosen: true,
      because: '"sandbox": false in servers.json',
    });
    const none: SandboxSupport = {
      ...LINUX,
      engine: null,
      missing: 'bubblewrap is not installed — install it',
    };
    expect(sandboxPolicy(input({ support: none }))).toMatchObject({
      sandboxed: false,
      chosen: false,
      because: 'bubblewrap is not installed — install it',
    });
  });

  it('leaves the network unfiltered, saying so, where nothing can filter it', () => {
    const noSocat: SandboxSupport = {
      ...LINUX,
      networkFilter: null,
      networkFilterMissing: 'socat is not installed',
    };
    const policy = sandboxPolicy(input({ support: noSocat, setting: { network: ['api.github.com'] } }));
    expect(policy).toMatchObject({
      network: { kind: 'open', unfiltered: { asked: 'list', because: 'socat is not installed' } },
    });
    // "none" needs no filter: an empty network is always possible
    expect(sandboxPolicy(input({ support: noSocat, setting: { network: 'none' } }))).toMatchObject({
      network: { kind: 'none' },
    });
  });
});

describe('sandbox gaps (what goes into the fingerprint)', () => {
  it('are empty when everything asked is enforced, so existing approvals keep their fingerprint', () => {
    expect(sandboxGaps(undefined, LINUX)).toEqual([]);
    expect(sandboxGaps({ network: ['x.example'] }, LINUX)).toEqual([]);
    expect(sandboxGaps(false, { ...LINUX, engine: null })).toEqual([]);
  });

  it('name a missing sandbox or network filter', () => {
    expect(sandboxGaps(undefined, { ...LINUX, engine: null })).toEqual(['no-sandbox']);
    expect(sandboxGaps(undefined, { ...LINUX, networkFilter: null })).toEqual(['network-unfiltered']);
    expect(sandboxGaps({ network: 'all' }, { ...LINUX, networkFilter: null })).toEqual([]);
  });
});

describe('the program an approval names (issue 33 item 2)', () => {
  it('grants the real file behind a symlinked program and its package, and its #! interpreter', () => {
    // A checkout's node_modules/.bin/tool -> ../tool/bin/tool.sh, a script run by a shell under ~/sh.
    const modules = join(home, 'dev', 'node_modules');
    mkdirSync(join(modules, '.bin'), { recursive: true });
    mkdirSync(join(modules, 'tool', 'bin'), { recursive: true });
    mkdirSync(join(home, 'sh', 'bin'), { recursive: true });
    writeFileSync(join(home, 'sh', 'bin', 'sh'), '');
    writeFileSync(join(modules, 'tool', 'bin', 'tool.sh'), `#!${join(home, 'sh', 'bin', 'sh')} -e\necho\n`);
    symlinkSync('../tool/bin/tool.sh', join(modules, '.bin', 'tool'));
    const policy = sandboxPolicy(input({ command: join(modules, '.bin', 'tool') }));
    if (!policy.sandboxed) throw new Error('expected a sandbox');
    const reads = policy.read.filter((g) => g.why === 'program').map((g) => g.path);
    expect(reads).toEqual(expect.arrayContaining([modules, join(modules, 'tool'), join(home, 'sh')]));
    expect(hiddenPrograms(policy)).toEqual([]);
    expect(describeAccess(policy).join('\n')).not.toContain('WILL NOT START');
  });

  it('warns on the approval, before anything runs, when the program sits in a place kept hidden', () => {
    mkdirSync(join(home, '.ssh', 'bin'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'bin', 'node'), '');
    const policy = sandboxPolicy(input({ command: join(home, '.ssh', 'bin', 'node') }));
    if (!policy.sandboxed) throw new Error('expected a sandbox');
    expect(hiddenPrograms(policy)).toEqual([join(home, '.ssh', 'bin', 'node')]);
    expect(describeAccess(policy)[0]).toBe(
      'WILL NOT START: its sandbox hides ~/.ssh/bin/node, which it needs to run (a place kept hidden from servers); install the program elsewhere, or add exactly that path to sandbox.read in servers.json if you trust it',
    );
  });
});

describe('known servers’ needs (issue 33 item 3)', () => {
  it('@playwright/mcp makes its browser profile in its own folder, not in the hidden ~/.cache', () => {
    const policy = sandboxPolicy(input({ command: '/usr/bin/npx', args: ['-y', '@playwright/mcp@latest'] }));
    if (!policy.sandboxed) throw new Error('expected a sandbox');
    const own = join(home, '.config/switchboard/data/x');
    expect(policy.env.XDG_CACHE_HOME).toBe(join(own, '.cache'));
    expect(describeAccess(policy)).toContain(
      `gets XDG_CACHE_HOME=~/.config/switchboard/data/x/.cache so its data stays in its own folder`,
    );
    // Its own choice stays.
    const chosen = sandboxPolicy(
      input({ command: '/usr/bin/npx', args: ['@playwright/mcp'], env: { XDG_CACHE_HOME: '/srv/cache' } }),
    );
    expect(chosen.sandboxed && chosen.env.XDG_CACHE_HOME).toBeUndefined();
  });
});
