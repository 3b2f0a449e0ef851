import { describe, expect, it } from 'vitest';
import type { SandboxPolicy } from '../../../electron/core/sandbox/policy.ts';
import type { SandboxSetting } from '../../../shared/schema/servers.ts';
import { seatbeltCommand, seatbeltProfile } from '../../../electron/core/sandbox/seatbelt.ts';
import { MAC_SUPPORT, sandboxedPolicy } from '../../helpers/sandbox.ts';

// macOS cannot run here: these check the profile text sandbox-exec would get (docs/decisions/sandbox.md,
// "What is not protected, per OS", says what it does and does not cover, untested on a Mac).
const HOME = '/Users/ada';
const SB = `${HOME}/Library/Application Support/Switchboard`;

function policy(setting?: SandboxSetting): Extract<SandboxPolicy, { sandboxed: true }> {
  return sandboxedPolicy(
    MAC_SUPPORT,
    { home: HOME, switchboardHome: SB, command: '/opt/homebrew/bin/node' },
    setting,
  );
}

const same = (p: string) => p;

describe('Seatbelt profile (macOS)', () => {
  it('denies the home and Switchboard, then allows its own folder, shallowest first (last match wins)', () => {
    const profile = seatbeltProfile({
      sandboxExec: '/usr/bin/sandbox-exec',
      policy: policy(),
      command: 'x',
      args: [],
      proxyPort: 4321,
      localPorts: [],
      realPath: same,
    });
    const lines = profile.split('\n');
    expect(lines.slice(0, 3)).toEqual(['(version 1)', '(allow default)', lines[2]]);
    expect(profile).toContain('(deny file-write*)');
    const home = lines.indexOf(`(deny file-read* file-write* (subpath "${HOME}"))`);
    const sb = lines.indexOf(`(deny file-read* file-write* (subpath "${SB}"))`);
    const own = lines.indexOf(`(allow file-read* file-write* (subpath "${SB}/data/x"))`);
    expect(home).toBeGreaterThan(-1);
    expect(sb).toBeGreaterThan(home);
    expect(own).toBeGreaterThan(sb);
    expect(profile).toContain(`(allow file-read* (subpath "${HOME}/.nvm"))`);
    expect(profile).toContain('(allow file-write* (subpath "/private/var/folders/zz/T")');
    expect(profile).toContain('(deny process-info*)\n(allow process-info* (target same-sandbox))');
  });

  it('masks the keychains and keys under a granted home, but not what servers.json names exactly', () => {
    const profile = seatbeltProfile({
      sandboxExec: '/usr/bin/sandbox-exec',
      policy: policy({ read: ['~'], write: ['~/.ssh'] }),
      command: 'x',
      args: [],
      proxyPort: 1,
      localPorts: [],
      realPath: same,
    });
    const lines = profile.split('\n');
    const grant = lines.indexOf(`(allow file-read* (subpath "${HOME}"))`);
    const keychains = lines.indexOf(`(deny file-read* file-write* (subpath "${HOME}/Library/Keychains"))`);
    expect(grant).toBeGreaterThan(-1);
    expect(keychains).toBeGreaterThan(grant);
    expect(profile).not.toContain(`(deny file-read* file-write* (subpath "${HOME}/.ssh"))`);
    expect(profile).toContain(`(allow file-read* file-write* (subpath "${HOME}/.ssh"))`);
  });

  it('lets the network out only to its proxy and listed local ports, and sets the proxy for the server', () => {
    const { command, args, env } = seatbeltCommand({
      sandboxExec: '/usr/bin/sandbox-exec',
      policy: policy({ network: ['api.github.com', 'localhost:5432'] }),
      command: '/opt/homebrew/bin/node',
      args: ['s.js'],
      proxyPort: 4321,
      localPorts: [5432],
      realPath: same,
    });
    expect(command).toBe('/usr/bin/sandbox-exec');
    expect(args[0]).toBe('-p');
    expect(args.slice(2)).toEqual(['/opt/homebrew/bin/node', 's.js']);
    const profile = args[1] ?? '';
    expect(profile).toContain(
      '(deny network-outbound)\n(allow network-outbound (remote ip "localhost:4321"))\n(allow network-outbound (remote ip "localhost:5432"))',
    );
    expect(env).toMatchObject({ HTTPS_PROXY: 'http://127.0.0.1:4321' });
    const open = seatbeltProfile({
      sandboxExec: 'x',
      policy: policy({ network: 'all' }),
      command: 'x',
      args: [],
      proxyPort: undefined,
      localPorts: [],
      realPath: same,
    });
    expect(open).not.toContain('network-outbound');
    const none = seatbeltProfile({
      sandboxExec: 'x',
      policy: policy({ network: 'none' }),
      command: 'x',
      args: [],
      proxyPort: undefined,
      localPorts: [],
      realPath: same,
    });
    expect(none).toContain('(deny network-outbound)');
    expect(none).not.toContain('(allow network-outbound');
  });

  it('quotes paths so a quote or backslash in one cannot end the rule', () => {
    const p = policy({ read: ['/Volumes/My "Disk"\\x'] });
    const profile = seatbeltProfile({
      sandboxExec: 'x',
      policy: p,
      command: 'x',
      args: [],
      proxyPort: 1,
      localPorts: [],
      realPath: same,
    });
    expect(profile).toContain('(allow file-read* (subpath "/Volumes/My \\"Disk\\"\\\\x"))');
  });
});
