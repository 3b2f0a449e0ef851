import { describe, expect, it } from 'vitest';
import { referenceProblem } from '../../../shared/reference-check.ts';
import { validateServerConfig } from '../../../shared/server-validation.ts';

// Issue 36 item 7: a reference that is almost right is said to be one, with the one that was meant,
// instead of being passed on (or stored in the keychain) as a literal value.

describe('references that are almost right', () => {
  it.each([
    ['${secrets:probe-token}', '${secret:probe-token}'],
    ['${secrte:probe-token}', '${secret:probe-token}'],
    ['${Secret:x}', '${secret:x}'],
    ['${SECRET:x}', '${secret:x}'],
    ['${sercet:x}', '${secret:x}'],
    ['$secret:x', '${secret:x}'],
    ['{secret:x}', '${secret:x}'],
    ['${ secret:x }', '${secret:x}'],
    ['${secret: x}', '${secret:x}'],
    ['${secret.x}', '${secret:x}'],
    ['$(secret:x)', '${secret:x}'],
    ['${{ secrets.GITHUB_TOKEN }}', '${secret:GITHUB_TOKEN}'],
    ['Bearer ${secrets:docs}', '${secret:docs}'],
    ['${ENV:HOME}', '${env:HOME}'],
    ['${envs:HOME}', '${env:HOME}'],
    ['$env:HOME', '${env:HOME}'],
    ['{env:HOME}', '${env:HOME}'],
  ])('%s: did you mean %s?', (value, meant) => {
    expect(referenceProblem(value)).toContain(`looks like a reference but is not one`);
    expect(referenceProblem(value)).toContain(`did you mean "${meant}"?`);
  });

  it('says what is wrong with a reference whose name is missing or invalid', () => {
    expect(referenceProblem('${env:}')).toBe('"${env:}" names no environment variable: write ${env:NAME}');
    expect(referenceProblem('${secret:}')).toContain('names no secret');
    expect(referenceProblem('${secret:a b}')).toContain('is not a valid secret reference');
    expect(referenceProblem('${env:1X}')).toContain('is not a valid environment reference');
    expect(referenceProblem('x ${secret:docs')).toBe('"${secret:docs" is missing its closing "}"');
  });

  it.each([
    '${secret:probe-token}',
    'Bearer ${secret:docs}',
    '${env:HOME}/x ${secret:a.b_c-d}',
    '${AUTH_HEADER}',
    '$API_KEY',
    '${HOME}/projects',
    'https://example.com/{id}',
    '{"env": "x"}',
    '{ env: 1 }',
    '--env-file=.env',
    'secret:x',
    '$set:x',
    '${settings:x}',
    'plain value',
  ])('leaves %s alone', (value) => {
    expect(referenceProblem(value)).toBeUndefined();
  });

  it("leaves PowerShell's $env:NAME alone in args, not elsewhere", () => {
    expect(referenceProblem('$env:HOME', { inArgs: true })).toBeUndefined();
    expect(referenceProblem('$secret:x', { inArgs: true })).toContain('did you mean "${secret:x}"?');
  });

  it('is an error at the field in the form and the schema, for env, headers, args and url', () => {
    const stdio = validateServerConfig({
      command: 'node',
      args: ['--token', '${secrets:probe-token}'],
      env: { API_TOKEN: '${secrte:probe-token}' },
    });
    expect(stdio.ok).toBe(false);
    expect(stdio.ok ? [] : stdio.issues).toEqual([
      {
        path: ['args', 1],
        message: expect.stringContaining('did you mean "${secret:probe-token}"?'),
      },
      {
        path: ['env', 'API_TOKEN'],
        message: expect.stringContaining('"${secrte:probe-token}" looks like a reference'),
      },
    ]);
    const remote = validateServerConfig({
      url: 'https://example.com/mcp?key=${Secret:k}',
      headers: { Authorization: 'Bearer ${env:}' },
    });
    expect(remote.ok ? [] : remote.issues.map((i) => i.path)).toEqual([
      ['url'],
      ['headers', 'Authorization'],
    ]);
  });
});
