import { describe, expect, it } from 'vitest';
import { keychainError, MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';

describe('keychain errors', () => {
  it('tell a Linux user which service is missing and what to start', () => {
    const err = keychainError(
      'linux',
      'read',
      'docs',
      new Error('Platform failure: DBus error: Failed to connect to socket /run/user/1000/bus'),
    );
    expect(err.message).toMatch(
      /^could not read secret "docs" from the keychain: no Secret Service reachable on the D-Bus session bus/,
    );
    expect(err.hint).toContain(
      'install and start a Secret Service: GNOME Keyring (Debian/Ubuntu: sudo apt install gnome-keyring',
    );
  });

  it('tell a Linux user when the keyring is there but locked or without a default collection', () => {
    const err = keychainError(
      'linux',
      'store',
      'docs',
      new Error("Couldn't access platform storage: Secret Service: no result found"),
    );
    expect(err.message).toContain('the Secret Service is locked or has no default keyring');
  });

  it('use the words of macOS and Windows there', () => {
    expect(
      keychainError('darwin', 'list', undefined, new Error('User interaction is not allowed.')).message,
    ).toContain('the macOS Keychain is locked');
    expect(keychainError('win32', 'delete', 'x', new Error('Element not found.')).message).toContain(
      'Windows Credential Manager',
    );
  });

  it('never carry the secret value, even if the library put it in its message', () => {
    const err = keychainError('linux', 'store', 'docs', new Error('failed to store hunter2-value'), {
      value: 'hunter2-value',
    });
    expect(err.display).not.toContain('hunter2-value');
    expect(err.cause).toBeUndefined();
  });

  it('say how long a wedged keychain was waited for', () => {
    const err = keychainError('linux', 'read', 'docs', new Error('aborted'), {
      timedOut: true,
      timeoutMs: 120_000,
    });
    expect(err.message).toBe(
      'could not read secret "docs" from the keychain: the keychain did not answer within 120 s',
    );
    expect(err.hint).toContain('unlock prompt');
  });
});

describe('the in-memory keychain used by tests', () => {
  it('behaves like the OS keychain: names only in list, undefined when absent', async () => {
    const keychain = new MemoryKeychain();
    await keychain.set('b', '1');
    await keychain.set('a', '2');
    expect(await keychain.list()).toEqual(['a', 'b']);
    expect(await keychain.get('c')).toBeUndefined();
    expect(await keychain.delete('a')).toBe(true);
    expect(await keychain.delete('a')).toBe(false);
  });
});
