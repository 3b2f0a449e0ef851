import { describe, expect, it } from 'vitest';
import { SignInStore } from '../../../electron/core/oauth/sign-in-store.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';

const tokens = { access_token: 'at-1', token_type: 'bearer', refresh_token: 'rt-1', expires_in: 60 };

describe('sign-ins in the keychain', () => {
  it('keeps a sign-in for the URL it was made for: another URL never gets its tokens', async () => {
    const keychain = new MemoryKeychain();
    const store = new SignInStore(keychain);
    await store.write('notes', { url: 'https://notes.example.com/mcp', tokens, expiresAt: 5 });
    expect((await store.read('notes', 'https://notes.example.com/mcp')).tokens?.access_token).toBe('at-1');
    expect(await store.read('notes', 'https://evil.example.com/mcp')).toEqual({
      url: 'https://evil.example.com/mcp',
    });
    expect(await store.signedIn('notes', 'https://evil.example.com/mcp')).toBe(false);

    // Read back by a fresh store (another process): the same, from the keychain alone.
    const again = new SignInStore(keychain);
    expect(await again.read('notes', 'https://notes.example.com/mcp')).toMatchObject({
      tokens,
      expiresAt: 5,
    });
    expect(await again.forget('notes')).toBe(true);
    expect(await keychain.get('notes')).toBeUndefined();
    expect(await again.signedIn('notes', 'https://notes.example.com/mcp')).toBe(false);
  });

  it('reads an entry it cannot understand as no sign-in (the person signs in again)', async () => {
    const keychain = new MemoryKeychain();
    await keychain.set('a', 'not json');
    await keychain.set('b', JSON.stringify({ v: 99, url: 'x' }));
    await keychain.set('c', JSON.stringify({ v: 1, url: 'https://x/mcp', tokens: { nope: true } }));
    const store = new SignInStore(keychain);
    expect(await store.read('a', 'https://x/mcp')).toEqual({ url: 'https://x/mcp' });
    expect(await store.read('b', 'https://x/mcp')).toEqual({ url: 'https://x/mcp' });
    expect((await store.read('c', 'https://x/mcp')).tokens).toBeUndefined();
  });
});

describe('long sign-ins', () => {
  it('are kept in parts no longer than a Windows credential holds, and forgotten whole', async () => {
    const keychain = new MemoryKeychain();
    const store = new SignInStore(keychain);
    const jwt = `eyJ${'a'.repeat(2400)}`;
    const long = { ...tokens, access_token: jwt, refresh_token: `r${'b'.repeat(1200)}` };
    await store.write('atlassian', { url: 'https://mcp.example.com/v1/sse', tokens: long });
    const names = await keychain.list();
    expect(names).toEqual(['atlassian', 'atlassian.1', 'atlassian.2', 'atlassian.3']);
    for (const name of names) expect((await keychain.get(name))?.length).toBeLessThanOrEqual(1_100);
    expect(
      (await new SignInStore(keychain).read('atlassian', 'https://mcp.example.com/v1/sse')).tokens,
    ).toEqual(long);

    // Shorter again: the parts no longer needed go.
    await store.write('atlassian', { url: 'https://mcp.example.com/v1/sse', tokens });
    expect(await keychain.list()).toEqual(['atlassian']);
    await store.write('atlassian', { url: 'https://mcp.example.com/v1/sse', tokens: long });
    expect(await store.forget('atlassian')).toBe(true);
    expect(await keychain.list()).toEqual([]);
  });

  it('reads a record missing one of its parts as no sign-in', async () => {
    const keychain = new MemoryKeychain();
    await new SignInStore(keychain).write('x', {
      url: 'https://x/mcp',
      tokens: { ...tokens, access_token: 'a'.repeat(3000) },
    });
    await keychain.delete('x.2');
    expect(await new SignInStore(keychain).read('x', 'https://x/mcp')).toEqual({ url: 'https://x/mcp' });
  });
});
