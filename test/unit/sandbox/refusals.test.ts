import { describe, expect, it } from 'vitest';
import { explainRefusal } from '../../../electron/core/sandbox/refusals.ts';
import { LINUX_SUPPORT, sandboxedPolicy } from '../../helpers/sandbox.ts';

// Lines as Node, Python, shells and coreutils print them, read against a policy: what the sandbox
// refused, in words with the fix; nothing for what it did not refuse.
const HOME = '/home/ada';
const SB = `${HOME}/.config/switchboard`;
const policy = sandboxedPolicy(
  LINUX_SUPPORT,
  { home: HOME, switchboardHome: SB, command: '/usr/bin/node' },
  {
    read: ['~/docs'],
    network: ['api.github.com'],
  },
);
const onHost = new Set([`${HOME}/.config/tool/config.json`, `${HOME}/.ssh/id_ed25519`, '/proc/4242']);
const explain = (line: string) => explainRefusal(line, policy, (p) => onHost.has(p));

describe('refusals read from a sandboxed server’s error output', () => {
  it('names a hidden file it could not read, and where to allow it', () => {
    expect(
      explain("Error: ENOENT: no such file or directory, open '/home/ada/.config/tool/config.json'"),
    ).toBe('sandbox refused reading ~/.config/tool/config.json: add it to sandbox.read');
    expect(
      explain("FileNotFoundError: [Errno 2] No such file or directory: '/home/ada/.config/tool/config.json'"),
    ).toBe('sandbox refused reading ~/.config/tool/config.json: add it to sandbox.read');
    expect(explain('cat: /home/ada/.ssh/id_ed25519: No such file or directory')).toMatch(
      /^sandbox refused reading ~\/\.ssh\/id_ed25519: it is in ~\/\.ssh, kept hidden from servers/,
    );
  });

  it('names a write it could not make', () => {
    expect(explain("Error: EROFS: read-only file system, open '/home/ada/docs/out.md'")).toBe(
      'sandbox refused writing ~/docs/out.md: add it to sandbox.write',
    );
    expect(explain('/bin/sh: 1: cannot create /home/ada/.bashrc: Read-only file system')).toBe(
      'sandbox refused writing ~/.bashrc: add it to sandbox.write',
    );
    expect(explain("PermissionError: [Errno 13] Permission denied: '/usr/lib/x'")).toBeUndefined();
  });

  it('says nothing of a file that is missing outside the sandbox too, or one it may use', () => {
    expect(
      explain("Error: ENOENT: no such file or directory, open '/home/ada/.config/other/x.json'"),
    ).toBeUndefined();
    expect(explain("Error: EACCES: permission denied, open '/home/ada/docs/secret.txt'")).toBeUndefined();
    expect(
      explain(`Error: ENOENT: no such file or directory, open '${SB}/data/x/state.json'`),
    ).toBeUndefined();
  });

  it('explains other processes, loopback ports and missing name lookups', () => {
    expect(explain("Error: ENOENT: no such file or directory, open '/proc/4242/environ'")).toMatch(
      /^sandbox refused reading \/proc\/4242: other programs' processes/,
    );
    expect(explain('Error: connect ECONNREFUSED 127.0.0.1:5432')).toBe(
      'sandbox refused connecting to 127.0.0.1:5432 on this computer: add "127.0.0.1:5432" to sandbox.network if it should reach it',
    );
    expect(explain('Error: getaddrinfo EAI_AGAIN imap.example.com')).toMatch(/^sandbox: no direct network/);
  });
});
