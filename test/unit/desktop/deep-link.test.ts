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
});
