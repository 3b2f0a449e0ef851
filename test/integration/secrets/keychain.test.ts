import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../../../electron/core/errors.ts';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';

// These tests use a real Secret Service: the private, unlocked gnome-keyring that test/run.sh starts.
// Outside it they would touch the developer's own keychain, so they refuse to run there.
const inTestSession = process.env.SWITCHBOARD_IN_TEST_SESSION === '1';
const prefix = `sbtest-${randomBytes(4).toString('hex')}`;
const keychain = new OsKeychain();
const created = new Set<string>();

beforeAll(() => {
  if (!inTestSession)
    throw new Error('keychain tests need the private keyring session: run them with bash test/run.sh');
});

afterAll(async () => {
  if (!inTestSession) return;
  for (const name of created) await keychain.delete(name);
});

async function rejection(promise: Promise<unknown>): Promise<UserError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UserError);
  return err as UserError;
}

describe('the OS keychain (real gnome-keyring over the Secret Service)', () => {
  it('stores, reads, lists by name only, replaces and deletes a secret', async () => {
    const name = `${prefix}-roundtrip`;
    const value = `value-${randomBytes(12).toString('hex')}`;
    created.add(name);

    expect(await keychain.get(name)).toBeUndefined();
    await keychain.set(name, value);
    expect(await keychain.get(name)).toBe(value);

    const names = await keychain.list();
    expect(names).toContain(name);
    expect(JSON.stringify(names)).not.toContain(value);

    await keychain.set(name, `${value}-2`);
    expect(await keychain.get(name)).toBe(`${value}-2`);
    expect((await keychain.list()).filter((n) => n === name)).toHaveLength(1);

    expect(await keychain.delete(name)).toBe(true);
    expect(await keychain.get(name)).toBeUndefined();
    expect(await keychain.delete(name)).toBe(false);
    expect(await keychain.list()).not.toContain(name);
  });

  it('keeps secrets of other services out of its list', async () => {
    const other = new OsKeychain({ service: `${prefix}-other-app` });
    await other.set(`${prefix}-foreign`, 'x');
    try {
      expect(await keychain.list()).not.toContain(`${prefix}-foreign`);
      expect(await other.list()).toEqual([`${prefix}-foreign`]);
    } finally {
      await other.delete(`${prefix}-foreign`);
    }
  });

  it('gives undefined for a secret that does not exist', async () => {
    expect(await keychain.get(`${prefix}-never-set`)).toBeUndefined();
  });

  it('refuses invalid names with a clear error', async () => {
    const err = await rejection(keychain.set('has space', 'x'));
    expect(err.message).toBe('"has space" is not a valid secret name');
    expect(err.hint).toContain('1 to 64 letters');
    await rejection(keychain.get('x'.repeat(65)));
  });
});

describe('without a reachable keychain', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-nokeychain-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function runChild(args: string[], canary: string) {
    const home = join(dir, 'home');
    const result = spawnSync(
      resolve('node_modules/.bin/node'),
      [resolve('test/integration/secrets/keychain-child.ts'), ...args],
      {
        env: {
          PATH: process.env.PATH,
          HOME: home,
          XDG_DATA_HOME: join(home, 'data'),
          XDG_CONFIG_HOME: join(home, 'config'),
          XDG_RUNTIME_DIR: join(home, 'run'),
          DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'no-bus-here')}`,
          CANARY: canary,
        },
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    return { ...result, output: `${result.stdout}${result.stderr}` };
  }

  it.each([['set'], ['get'], ['list']])(
    '%s fails with the Secret Service error, exit 1, nothing on disk',
    (action) => {
      const canary = `canary-${randomBytes(12).toString('hex')}`;
      const child = runChild([action, `${prefix}-nobus`], canary);
      expect(child.status).toBe(1);
      expect(child.stderr).toContain('no Secret Service reachable on the D-Bus session bus');
      expect(child.stderr).toContain('install and start a Secret Service: GNOME Keyring');
      expect(child.output).not.toContain(canary);
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it('moving a literal secret fails the same way and leaves servers.json byte-identical', () => {
    const canary = `ghp_${randomBytes(18).toString('hex')}`;
    const file = join(dir, 'servers.json');
    const text = `{\n  // mine\n  "mcpServers": { "github": { "command": "npx", "env": { "GITHUB_TOKEN": "${canary}" } } }\n}\n`;
    writeFileSync(file, text);
    try {
      const child = runChild(['move', file], canary);
      expect(child.status).toBe(1);
      expect(child.stderr).toContain('no Secret Service reachable on the D-Bus session bus');
      expect(child.output).not.toContain(canary);
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect(readdirSync(dir)).toEqual(['servers.json']);
    } finally {
      rmSync(file);
    }
  });
});
