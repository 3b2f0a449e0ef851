import { describe, expect, it } from 'vitest';
import { bwrapCommand, type BwrapInput } from '../../../electron/core/sandbox/bwrap.ts';
import type { SandboxPolicy } from '../../../electron/core/sandbox/policy.ts';
import type { SandboxSetting } from '../../../shared/schema/servers.ts';
import { LINUX_SUPPORT, sandboxedPolicy } from '../../helpers/sandbox.ts';

const HOME = '/home/ada';
const SB = `${HOME}/.config/switchboard`;
const EXISTING = new Map<string, 'file' | 'dir'>([
  [HOME, 'dir'],
  [SB, 'dir'],
  [`${HOME}/.ssh`, 'dir'],
  [`${HOME}/.netrc`, 'file'],
  ['/media', 'dir'],
]);

function policy(setting?: SandboxSetting): Extract<SandboxPolicy, { sandboxed: true }> {
  return sandboxedPolicy(
    LINUX_SUPPORT,
    { home: HOME, switchboardHome: SB, command: '/usr/bin/node' },
    setting,
  );
}

function build(p: Extract<SandboxPolicy, { sandboxed: true }>, over: Partial<BwrapInput> = {}) {
  return bwrapCommand({
    bwrap: '/usr/bin/bwrap',
    policy: p,
    command: '/usr/bin/node',
    args: ['server.js'],
    cwd: `${SB}/data/x`,
    denied: { file: '/run/sb/denied-file', dir: '/run/sb/denied-dir' },
    root: false,
    kind: (path) => EXISTING.get(path),
    ...over,
  });
}

/** The argv as "--op a b" groups, for reading in assertions. */
function ops(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '--') break;
    const arity = ['--ro-bind', '--bind', '--ro-bind-try', '--bind-try'].includes(a)
      ? 2
      : ['--tmpfs', '--remount-ro', '--dev', '--proc', '--chdir', '--cap-drop'].includes(a)
        ? 1
        : 0;
    out.push([a, ...args.slice(i + 1, i + 1 + arity)].join(' '));
    i += arity;
  }
  return out;
}

describe('bubblewrap command line', () => {
  it('binds the system read-only, hides the home and Switchboard, and binds its own folder writable on top', () => {
    const { command, args } = build(policy());
    expect(command).toBe('/usr/bin/bwrap');
    const o = ops(args);
    expect(o.slice(0, 8)).toEqual([
      '--die-with-parent',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      '--unshare-net',
      '--ro-bind / /',
      '--dev /dev',
    ]);
    expect(o).toContain('--proc /proc');
    expect(o).toContain('--tmpfs /tmp');
    const hideHome = o.indexOf(`--tmpfs ${HOME}`);
    const hideSb = o.indexOf(`--tmpfs ${SB}`);
    const own = o.indexOf(`--bind-try ${SB}/data/x ${SB}/data/x`);
    expect(hideHome).toBeGreaterThan(-1);
    expect(hideSb).toBeGreaterThan(hideHome);
    expect(own).toBeGreaterThan(hideSb);
    // the hidden folders are read-only afterwards: writing ~/.bashrc fails
    expect(o.indexOf(`--remount-ro ${HOME}`)).toBeGreaterThan(own);
    expect(o).toContain(`--chdir ${SB}/data/x`);
    // nothing of the home is masked one by one: it is hidden whole
    expect(o.filter((x) => x.includes('denied'))).toEqual([]);
    expect(args.slice(args.indexOf('--') + 1).slice(-2)).toEqual(['/usr/bin/node', 'server.js']);
  });

  it('masks secret places inside a granted folder, and opens exactly the one servers.json names', () => {
    const o = ops(build(policy({ read: ['~'], write: ['~/.netrc'] })).args);
    expect(o).toContain(`--ro-bind-try ${HOME} ${HOME}`);
    expect(o).toContain(`--ro-bind /run/sb/denied-dir ${HOME}/.ssh`);
    expect(o).not.toContain(`--ro-bind /run/sb/denied-file ${HOME}/.netrc`);
    expect(o).toContain(`--bind-try ${HOME}/.netrc ${HOME}/.netrc`);
    // Switchboard's home stays hidden under the granted home, its own folder bound again on top
    const mask = o.indexOf(`--tmpfs ${SB}`, o.indexOf(`--ro-bind-try ${HOME} ${HOME}`));
    expect(mask).toBeGreaterThan(-1);
    expect(o.indexOf(`--bind-try ${SB}/data/x ${SB}/data/x`)).toBeGreaterThan(mask);
    // the granted home itself is not remounted read-only over the grant
    expect(o).not.toContain(`--remount-ro ${HOME}`);
  });

  it('drops every capability when Switchboard runs as root (so masks cannot be unmounted)', () => {
    expect(ops(build(policy(), { root: true }).args)).toContain('--cap-drop ALL');
  });

  it('keeps the network when it is open, and has none at all when it is "none"', () => {
    expect(build(policy({ network: 'all' })).args).not.toContain('--unshare-net');
    const none = build(policy({ network: 'none' }));
    expect(none.args).toContain('--unshare-net');
    expect(none.env.HTTPS_PROXY).toBeUndefined();
  });

  it('relays the proxy and listed local ports into the empty network with socat, and points HTTP(S)_PROXY at it', () => {
    const { args, env } = build(policy({ network: ['api.github.com', 'localhost:5432'] }), {
      network: {
        socat: '/usr/bin/socat',
        proxySocket: '/run/sb/1.sock',
        ports: [{ port: 5432, socket: '/run/sb/1-5432.sock' }],
        nodePreload: '/run/sb/node-proxy.cjs',
        pythonSite: '/run/sb/python',
      },
      nodeOptions: '--max-old-space-size=512',
      pythonPath: '/srv/lib',
    });
    const o = ops(args);
    expect(o).toContain('--ro-bind /run/sb/1.sock /tmp/.switchboard/proxy.sock');
    expect(o).toContain('--ro-bind /run/sb/1-5432.sock /tmp/.switchboard/port-5432.sock');
    const program = args.slice(args.indexOf('--') + 1);
    expect(program[0]).toBe('/bin/sh');
    const script = program[2] ?? '';
    expect(script).toContain(
      "'/usr/bin/socat' TCP-LISTEN:3128,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:'/tmp/.switchboard/proxy.sock'",
    );
    expect(script).toContain('TCP-LISTEN:5432,bind=127.0.0.1');
    expect(script).not.toContain('\n');
    expect(program.slice(3)).toEqual(['switchboard-sandbox', '/usr/bin/node', 'server.js']);
    expect(o).toContain('--ro-bind /run/sb/node-proxy.cjs /tmp/.switchboard/node-proxy.cjs');
    expect(o).toContain('--ro-bind /run/sb/python /tmp/.switchboard/python');
    expect(env).toMatchObject({
      HTTPS_PROXY: 'http://127.0.0.1:3128',
      http_proxy: 'http://127.0.0.1:3128',
      // Node servers follow the proxy through a lazy preload, after their own options
      NODE_OPTIONS: '--max-old-space-size=512 --require "/tmp/.switchboard/node-proxy.cjs"',
      // and aiohttp through a sitecustomize, before the server's own PYTHONPATH
      PYTHONPATH: '/tmp/.switchboard/python:/srv/lib',
      NO_PROXY: '',
    });
  });

  it('as root, becomes nobody first thing inside, under the bounds, with passable folders to its own', () => {
    const support = { ...LINUX_SUPPORT, root: true, tmpfsSize: true, setpriv: '/usr/bin/setpriv' };
    const p = sandboxedPolicy(support, { home: HOME, switchboardHome: SB, command: '/usr/bin/node' });
    expect(p.runsAs).toBe('nobody');
    const { args } = build(p, {
      root: true,
      sized: true,
      prlimit: '/usr/bin/prlimit',
      setpriv: '/usr/bin/setpriv',
    });
    const o = ops(args);
    expect(args.slice(args.indexOf('--cap-drop'), args.indexOf('--cap-drop') + 8)).toEqual([
      '--cap-drop',
      'ALL',
      '--cap-add',
      'CAP_SETUID',
      '--cap-add',
      'CAP_SETGID',
      '--cap-add',
      'CAP_DAC_READ_SEARCH',
    ]);
    // made 0711 inside Switchboard's hidden home, before its own folder is bound there
    const data = args.indexOf(`${SB}/data`);
    expect(args.slice(data - 3, data + 1)).toEqual(['--perms', '0711', '--dir', `${SB}/data`]);
    expect(o.indexOf(`--bind-try ${SB}/data/x ${SB}/data/x`)).toBeGreaterThan(o.indexOf(`--dir`));
    const program = args.slice(args.indexOf('--') + 1);
    expect(program.slice(0, 6)).toEqual([
      '/usr/bin/prlimit',
      '--nproc=1024',
      '--data=4294967296',
      '--fsize=4294967296',
      '--core=0',
      '--',
    ]);
    expect(program.slice(6)).toEqual([
      '/usr/bin/setpriv',
      '--reuid=65534',
      '--regid=65534',
      '--clear-groups',
      '--inh-caps=-all',
      '--',
      '/usr/bin/node',
      'server.js',
    ]);
    expect(args.join(' ')).toContain('--perms 1777 --size 536870912 --tmpfs /tmp');

    // writing a folder of root's: stays root, with no way to change uid
    const writer = sandboxedPolicy(
      support,
      { home: HOME, switchboardHome: SB, command: '/usr/bin/node' },
      { write: ['/srv/data'] },
    );
    expect(writer.runsAs).toBe('root');
    const kept = build(writer, { root: true, sized: true, setpriv: '/usr/bin/setpriv' }).args;
    expect(kept).not.toContain('CAP_SETUID');
    expect(kept).not.toContain('/usr/bin/setpriv');
  });
});
