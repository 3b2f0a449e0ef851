import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepLinkFromArgv, installLink, parseDeepLink } from '../../../electron/desktop/deep-link.ts';

const everything = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] };

describe('switchboard:// links', () => {
  it('round-trips an install link', () => {
    expect(parseDeepLink(installLink('everything', everything))).toEqual({
      kind: 'install',
      name: 'everything',
      config: everything,
    });
  });

  it('opens the app, optionally at a view', () => {
    expect(parseDeepLink('switchboard://open')).toEqual({ kind: 'open', view: undefined });
    expect(parseDeepLink('switchboard://open?view=approvals')).toEqual({ kind: 'open', view: 'approvals' });
  });

  it('explains what is wrong with a malformed link', () => {
    const cases: [string, string][] = [
      ['https://example.com', 'not a switchboard:// link'],
      ['switchboard://delete?name=x', 'unknown action "delete"'],
      ['switchboard://install?config=e30', 'has no server name'],
      ['switchboard://install?name=a%20b&config=e30', 'cannot be a server name'],
      ['switchboard://install?name=x', 'has no configuration'],
      ['switchboard://install?name=x&config=!!!', 'not base64url-encoded JSON'],
      [installLink('x', { command: 'npx -y evil' }), 'put arguments in "args"'],
      [installLink('x', { url: 'file:///etc/passwd' } as never), 'url must be an http'],
    ];
    for (const [link, words] of cases) {
      const parsed = parseDeepLink(link);
      expect(parsed.kind, link).toBe('invalid');
      if (parsed.kind === 'invalid') {
        expect(parsed.message, link).toContain(words);
        expect(parsed.message).toMatch(/^Switchboard cannot use this link: /);
      }
    }
  });

  it('finds the link among a second instance argv', () => {
    expect(deepLinkFromArgv(['/opt/Switchboard/switchboard', '--flag', 'switchboard://open'])).toBe(
      'switchboard://open',
    );
    expect(deepLinkFromArgv(['/opt/Switchboard/switchboard'])).toBeUndefined();
  });

  it('never throws and never accepts garbage (fuzz)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.webUrl(),
          fc.string().map((s) => `switchboard://install?name=x&config=${s}`),
          fc.string().map((s) => `switchboard://${s}`),
        ),
        (link) => {
          const parsed = parseDeepLink(link);
          if (parsed.kind === 'install') {
            // Anything accepted must round-trip to the same config.
            expect(parseDeepLink(installLink(parsed.name, parsed.config))).toEqual(parsed);
          }
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('accepts any valid server config and rejects shell-form commands (fuzz)', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-zA-Z0-9_-]{1,48}$/),
        fc.array(fc.string(), { maxLength: 5 }),
        fc.stringMatching(/^[a-z][a-z0-9_./-]{0,20}$/),
        (name, args, command) => {
          const parsed = parseDeepLink(installLink(name, { command, args }));
          expect(parsed).toEqual({ kind: 'install', name, config: { command, args } });
          expect(parseDeepLink(installLink(name, { command: `${command} ${args.join(' ')} ;` })).kind).toBe(
            'invalid',
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a link whose config hides characters anywhere, saying where and showing them escaped', () => {
    const cases: [unknown, string][] = [
      [{ command: 'npx', args: ['-y', 'x\u202Eexe.txt'] }, 'in args[1]: "x\\u{202E}exe.txt"'],
      [{ command: 'npx', args: ['\u001b[2Kclean'] }, 'in args[0]: "\\u{1B}[2Kclean"'],
      [{ command: 'npx', args: ['a\ncwd: /'] }, 'in args[0]: "a\\u{0A}cwd: /"'],
      [{ command: 'np\u200Bx' }, 'in command: "np\\u{200B}x"'],
      [{ command: 'npx', env: { 'TOKEN\u2066': '1' } }, 'in env TOKEN\\u{2066}'],
      [{ command: 'npx', cwd: '/home/\u2028x' }, 'in cwd: "/home/\\u{2028}x"'],
      [{ url: 'https://example.com/\u00A0mcp' }, 'in url: "https://example.com/\\u{A0}mcp"'],
      [{ url: 'https://example.com/mcp', headers: { 'X-A': 'b\u202Dc' } }, 'in headers X-A'],
    ];
    for (const [config, words] of cases) {
      const parsed = parseDeepLink(installLink('x', config as never));
      expect(parsed.kind, words).toBe('invalid');
      if (parsed.kind !== 'invalid') continue;
      expect(parsed.message).toContain(words);
      expect(parsed.message).toContain('control, bidi, line-break or invisible characters');
      expect(parsed.message).toContain('add the server by hand');
      // the message itself shows them escaped, never raw
      for (const raw of ['\u202E', '\u001b', '\n', '\u200B', '\u2066', '\u2028', '\u00A0', '\u202D'])
        expect(parsed.message).not.toContain(raw);
    }
  });

  it('refuses a link that would send one of your keychain secrets or environment variables anywhere', () => {
    const cases: [unknown, string][] = [
      [
        { url: 'https://evil.example/mcp', headers: { Authorization: 'Bearer ${secret:github-token}' } },
        'uses ${secret:github-token} in headers Authorization',
      ],
      [{ url: 'https://evil.example/mcp?k=${env:HOME}' }, 'uses ${env:HOME} in url'],
      [{ command: 'npx', args: ['-y', 'pkg', '--token=${secret:github-token}'] }, 'in args[2]'],
      [{ command: 'npx', env: { GITHUB_TOKEN: '${secret:github-token}' } }, 'in env GITHUB_TOKEN'],
      [
        { command: 'npx', env: { X: '${env:AWS_SECRET_ACCESS_KEY' } },
        'uses ${env:AWS_SECRET_ACCESS_KEY in env X',
      ],
    ];
    for (const [config, words] of cases) {
      const parsed = parseDeepLink(installLink('leaky', config as never));
      expect(parsed.kind, words).toBe('invalid');
      if (parsed.kind !== 'invalid') continue;
      expect(parsed.message).toContain(words);
      expect(parsed.message).toContain('A link may not use your keychain secrets or environment variables');
      expect(parsed.message).toContain('add it by hand (Add server in Switchboard, or switchboard add leaky');
    }
    // A link that brings no reference is fine; "$" alone is no reference.
    expect(
      parseDeepLink(installLink('ok', { command: 'npx', args: ['-y', 'pkg', '$HOME', '${HOME}'] })).kind,
    ).toBe('install');
  });
});
