import { describe, expect, it } from 'vitest';
import { refusalInAnswer } from '../../../electron/core/sandbox/answer-refusals.ts';
import { explainRefusal, findRefusal } from '../../../electron/core/sandbox/refusals.ts';
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

  it('says writing for a folder it could not make, hidden or not (mcp-remote’s ~/.mcp-auth), with its grant', () => {
    const found = findRefusal(
      "Error: EACCES: permission denied, mkdir '/home/ada/.mcp-auth'",
      policy,
      (p) => onHost.has(p),
      () => true,
    );
    expect(found).toEqual({
      kind: 'file',
      words: 'sandbox refused writing ~/.mcp-auth: add it to sandbox.write',
      grant: { path: '/home/ada/.mcp-auth', access: 'write' },
    });
    // Missing inside because its folder is hidden; outside it could be made: an application's cache.
    expect(
      findRefusal(
        "Error: ENOENT: no such file or directory, mkdir '/home/ada/.cache/ms-playwright/chromium-1187'",
        policy,
        () => false,
        () => true,
      )?.grant,
    ).toEqual({ path: '/home/ada/.cache/ms-playwright', access: 'write' });
    // A secret place gets words but no one-step grant: only the person's own servers.json opens it.
    expect(
      findRefusal(
        "Error: EACCES: permission denied, mkdir '/home/ada/.ssh/x'",
        policy,
        () => true,
        () => true,
      )?.words,
    ).toMatch(/^sandbox refused writing ~\/\.ssh\/x: it is in ~\/\.ssh, kept hidden/);
    expect(
      findRefusal(
        "Error: EACCES: permission denied, mkdir '/home/ada/.ssh/x'",
        policy,
        () => true,
        () => true,
      )?.grant,
    ).toBeUndefined();
  });
});

describe('refusals read from a tool’s answer', () => {
  it('names a hidden path in the answer, or a hidden path argument of a failed answer that names none', () => {
    const exists = (p: string) => p === '/home/ada/work/repo';
    expect(
      refusalInAnswer(
        'Working directory does not exist',
        { path: '/home/ada/work/repo' },
        true,
        policy,
        exists,
      ),
    ).toEqual({
      kind: 'file',
      words: 'sandbox refused reading ~/work/repo: add it to sandbox.read',
      grant: { path: '/home/ada/work/repo', access: 'read' },
    });
    expect(
      refusalInAnswer('3 commits', { path: '/home/ada/work/repo' }, false, policy, exists),
    ).toBeUndefined();
    expect(
      refusalInAnswer(
        'Working directory does not exist',
        { path: '/home/ada/docs' },
        true,
        policy,
        () => true,
      ),
    ).toBeUndefined();
  });

  it('never offers a one-step grant for a path with hidden characters: a server chose that name', () => {
    // U+202E turns the rest around on screen: "~/work/\u{202E}cod" would read as "~/work/doc".
    const path = '/home/ada/work/\u202Ecod';
    const found = refusalInAnswer(
      'Working directory does not exist',
      { path },
      true,
      policy,
      (p) => p === path,
    );
    expect(found?.grant).toBeUndefined();
    expect(found?.words).toContain('hidden characters');
    expect(found?.words).toContain('sandbox.read');
  });
});
