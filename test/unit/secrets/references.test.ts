import { describe, expect, it } from 'vitest';
import { UserError } from '../../../electron/core/errors.ts';
import { MemoryKeychain, type Keychain } from '../../../electron/core/secrets/keychain.ts';
import {
  isWholeReference,
  listReferences,
  parseReferences,
  resolveRecord,
  resolveValue,
  secretNamesUsed,
  type ResolveContext,
} from '../../../electron/core/secrets/references.ts';

async function keychainWith(entries: Record<string, string>): Promise<MemoryKeychain> {
  const keychain = new MemoryKeychain();
  for (const [name, value] of Object.entries(entries)) await keychain.set(name, value);
  return keychain;
}

function context(
  keychain: Keychain,
  env: Record<string, string> = {},
  field: 'env' | 'header' = 'env',
): ResolveContext {
  return { keychain, env, server: 'github', field, platform: 'linux' };
}

async function failure(promise: Promise<unknown>): Promise<UserError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UserError);
  return err as UserError;
}

describe('parsing references', () => {
  it('finds a reference embedded in text', () => {
    expect(parseReferences('Bearer ${secret:docs}')).toEqual([
      { kind: 'secret', name: 'docs', start: 7, end: 21 },
    ]);
    expect(isWholeReference('Bearer ${secret:docs}')).toBe(false);
    expect(isWholeReference('${secret:docs}')).toBe(true);
  });

  it('finds several references of both kinds in order', () => {
    const refs = parseReferences('postgres://${env:DB_USER}:${secret:db.password}@${env:DB_HOST}/app');
    expect(refs.map((r) => `${r.kind}:${r.name}`)).toEqual([
      'env:DB_USER',
      'secret:db.password',
      'env:DB_HOST',
    ]);
  });

  it('refuses a malformed or unterminated reference instead of passing it on literally', () => {
    expect(() => parseReferences('${secret:has space}')).toThrow(/not a valid secret reference/);
    expect(() => parseReferences('${env:1ABC}')).toThrow(/not a valid environment reference/);
    expect(() => parseReferences('Bearer ${secret:docs')).toThrow(/missing its closing/);
  });
});

describe('resolving values', () => {
  it('replaces embedded secret and env references and reports the secret values for redaction', async () => {
    const keychain = await keychainWith({ docs: 'tok-123', 'db.password': 'hunter2' });
    const result = await resolveRecord(
      {
        Authorization: 'Bearer ${secret:docs}',
        DATABASE_URL: 'postgres://${env:DB_USER}:${secret:db.password}@localhost/app',
        AGAIN: '${secret:docs}',
        PLAIN: 'production',
        TEMPLATE: '${HOME}/x',
      },
      context(keychain, { DB_USER: 'me' }),
    );
    expect(result.values).toEqual({
      Authorization: 'Bearer tok-123',
      DATABASE_URL: 'postgres://me:hunter2@localhost/app',
      AGAIN: 'tok-123',
      PLAIN: 'production',
      TEMPLATE: '${HOME}/x',
    });
    expect(result.secrets.sort()).toEqual(['hunter2', 'tok-123']);
  });

  it('does not list environment values as secrets', async () => {
    const result = await resolveValue(
      '${env:NODE_ENV}',
      'NODE_ENV',
      context(new MemoryKeychain(), { NODE_ENV: 'production' }),
    );
    expect(result).toEqual({ value: 'production', secrets: [] });
  });

  it('names the server, the variable and the fix when a secret is missing', async () => {
    const keychain = await keychainWith({ other: 'do-not-leak-me' });
    const err = await failure(resolveRecord({ GITHUB_TOKEN: '${secret:github-token}' }, context(keychain)));
    expect(err.message).toContain('server "github"');
    expect(err.message).toContain('GITHUB_TOKEN');
    expect(err.message).toContain('github-token');
    expect(err.hint).toBe('run: switchboard secret set github-token');
    expect(err.display).not.toContain('do-not-leak-me');
  });

  it('names the header for a remote server', async () => {
    const err = await failure(
      resolveRecord({ Authorization: 'Bearer ${secret:docs}' }, context(new MemoryKeychain(), {}, 'header')),
    );
    expect(err.message).toMatch(/server "github": header Authorization uses \$\{secret:docs\}/);
    expect(err.hint).toContain('switchboard secret set docs');
  });

  it('names the server, the variable and the missing environment variable', async () => {
    const err = await failure(
      resolveRecord({ API_URL: 'https://${env:API_HOST}/v1' }, context(new MemoryKeychain(), { OTHER: 'x' })),
    );
    expect(err.message).toContain('server "github"');
    expect(err.message).toContain('API_URL');
    expect(err.message).toContain('API_HOST is not set');
    expect(err.hint).toContain('set API_HOST');
  });

  it('matches environment names case-insensitively on Windows only', async () => {
    const keychain = new MemoryKeychain();
    const windows = await resolveValue('${env:Path}', 'P', {
      ...context(keychain, { PATH: 'C:\\bin' }),
      platform: 'win32',
    });
    expect(windows.value).toBe('C:\\bin');
    await failure(resolveValue('${env:Path}', 'P', context(keychain, { PATH: '/bin' })));
  });

  it('puts the server name in front of a keychain failure', async () => {
    const locked: Keychain = {
      get: () =>
        Promise.reject(
          new UserError('could not read secret "docs" from the keychain: locked', { hint: 'unlock it' }),
        ),
      set: () => Promise.reject(new Error('unused')),
      delete: () => Promise.reject(new Error('unused')),
      list: () => Promise.reject(new Error('unused')),
      held: () => Promise.reject(new Error('unused')),
    };
    const err = await failure(
      resolveRecord({ Authorization: 'Bearer ${secret:docs}' }, context(locked, {}, 'header')),
    );
    expect(err.message).toBe(
      'server "github": header Authorization: could not read secret "docs" from the keychain: locked',
    );
    expect(err.hint).toBe('unlock it');
  });

  it('reads each secret from the keychain once per record', async () => {
    const keychain = await keychainWith({ t: 'v' });
    let reads = 0;
    const counting: Keychain = {
      get: (name) => {
        reads++;
        return keychain.get(name);
      },
      set: (n, v) => keychain.set(n, v),
      delete: (n) => keychain.delete(n),
      list: () => keychain.list(),
      held: (n, v) => keychain.held(n, v),
    };
    await resolveRecord({ A: '${secret:t}', B: 'x ${secret:t} ${secret:t}' }, context(counting));
    expect(reads).toBe(1);
  });
});

describe('references a server uses', () => {
  it('lists env references of a stdio server and header references of a remote one', () => {
    expect(
      listReferences({
        env: { GITHUB_TOKEN: '${secret:github-token}', HOME_DIR: '${env:HOME}', MODE: 'dev' },
      }),
    ).toEqual([
      { kind: 'secret', name: 'github-token', field: 'env', key: 'GITHUB_TOKEN' },
      { kind: 'env', name: 'HOME', field: 'env', key: 'HOME_DIR' },
    ]);
    expect(
      listReferences({ headers: { Authorization: 'Bearer ${secret:docs}', 'X-Team': '${secret:team}' } }),
    ).toEqual([
      { kind: 'secret', name: 'docs', field: 'headers', key: 'Authorization' },
      { kind: 'secret', name: 'team', field: 'headers', key: 'X-Team' },
    ]);
  });

  it('gives the distinct secret names, sorted', () => {
    expect(
      secretNamesUsed({ env: { A: '${secret:b}', B: '${secret:a} ${secret:b}', C: '${env:X}' } }),
    ).toEqual(['a', 'b']);
  });
});
