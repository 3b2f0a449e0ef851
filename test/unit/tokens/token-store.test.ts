import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editorTokenFile, TokenStore } from '../../../electron/core/tokens/token-store.ts';
import { waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

let t: TempHome;
let store: TokenStore | undefined;

beforeEach(() => {
  t = tempHome();
});

afterEach(() => {
  store?.close();
  store = undefined;
  t.cleanup();
});

const bearer = (token: string) => `Bearer ${token}`;

describe('TokenStore', () => {
  it('issues 256-bit base64url tokens in 0600 files under a 0700 folder, and verifies them by name', () => {
    store = new TokenStore(t.home.tokens);
    const zed = store.create('zed');
    expect(zed).toMatchObject({ name: 'zed', replaced: false, file: editorTokenFile(t.home.tokens, 'zed') });
    expect(zed.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(zed.token, 'base64url')).toHaveLength(32);
    expect(readFileSync(zed.file, 'utf8')).toBe(zed.token + '\n');
    expect(statSync(zed.file).mode & 0o777).toBe(0o600);
    expect(statSync(join(t.home.tokens, 'editors')).mode & 0o777).toBe(0o700);

    const vscode = store.create('vscode');
    expect(store.verifyEditor(bearer(zed.token))).toBe('zed');
    expect(store.verifyEditor(bearer(vscode.token))).toBe('vscode');
    expect(store.verifyEditor(`bearer  ${zed.token} `)).toBe('zed'); // scheme is case-insensitive
    for (const header of [
      undefined,
      '',
      'Bearer',
      `Basic ${zed.token}`,
      zed.token,
      bearer(zed.token + 'x'),
      bearer(zed.token.slice(1)),
    ]) {
      expect(store.verifyEditor(header), String(header)).toBeUndefined();
    }
  });

  it('keeps the control token apart: it never opens /mcp, and editor tokens never open /api', () => {
    store = new TokenStore(t.home.tokens);
    const control = store.controlToken();
    expect(store.controlToken()).toBe(control); // created once, then read
    const zed = store.create('zed').token;
    expect(store.verifyControl(bearer(control))).toBe(true);
    expect(store.verifyControl(bearer(zed))).toBe(false);
    expect(store.verifyEditor(bearer(control))).toBeUndefined();
    expect(statSync(join(t.home.tokens, 'control')).mode & 0o777).toBe(0o600);
  });

  it('create rotates (the old token stops working); ensure never does', () => {
    store = new TokenStore(t.home.tokens);
    const first = store.create('zed').token;
    const second = store.create('zed');
    expect(second.replaced).toBe(true);
    expect(second.token).not.toBe(first);
    expect(store.verifyEditor(bearer(first))).toBeUndefined();
    expect(store.verifyEditor(bearer(second.token))).toBe('zed');
    expect(store.ensure('zed')).toBe(second.token);
    expect(store.ensure('cursor')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('on one connection, a token rotated or revoked stops working at once, and another header is checked anew', () => {
    store = new TokenStore(t.home.tokens);
    const connection = {}; // a keep-alive socket, as the bridge passes it
    const first = store.create('zed').token;
    const other = store.create('cursor').token;
    expect(store.verifyEditor(bearer(first), connection)).toBe('zed');
    expect(store.verifyEditor(bearer(first), connection)).toBe('zed');
    expect(store.verifyEditor(bearer(other), connection)).toBe('cursor');
    expect(store.verifyEditor(bearer(other + 'x'), connection)).toBeUndefined();
    expect(store.verifyEditor(bearer(first), connection)).toBe('zed');
    const second = store.create('zed').token;
    expect(store.verifyEditor(bearer(first), connection)).toBeUndefined();
    expect(store.verifyEditor(bearer(second), connection)).toBe('zed');
    store.revoke('zed');
    expect(store.verifyEditor(bearer(second), connection)).toBeUndefined();
  });

  it('lists names and times, never token values; revoke removes at once', () => {
    store = new TokenStore(t.home.tokens);
    const zed = store.create('zed').token;
    store.create('claude-desktop');
    const list = store.list();
    expect(list.map((e) => e.name)).toEqual(['claude-desktop', 'zed']);
    expect(JSON.stringify(list)).not.toContain(zed);
    for (const entry of list) expect(entry.createdAt).toBeGreaterThan(Date.now() - 60_000);
    expect(store.revoke('zed')).toBe(true);
    expect(store.revoke('zed')).toBe(false);
    expect(store.verifyEditor(bearer(zed))).toBeUndefined();
    expect(store.list().map((e) => e.name)).toEqual(['claude-desktop']);
  });

  it('refuses names that are not [a-z0-9-]{1,32}, and "control"', () => {
    store = new TokenStore(t.home.tokens);
    for (const name of ['', 'Zed', 'a/b', '../x', '.hidden', 'a b', 'x'.repeat(33), 'control', 'zed\n']) {
      expect(() => store?.create(name), JSON.stringify(name)).toThrow(/token/);
    }
    expect(store.create('x'.repeat(32)).name).toHaveLength(32);
  });

  it('with watch, notices token files changed by others (a hand delete, another process)', async () => {
    const writer = new TokenStore(t.home.tokens);
    const zed = writer.create('zed').token;
    store = new TokenStore(t.home.tokens, { watch: true });
    expect(store.verifyEditor(bearer(zed))).toBe('zed');
    rmSync(editorTokenFile(t.home.tokens, 'zed'));
    await waitFor(() => store?.verifyEditor(bearer(zed)) === undefined, 5_000, 'deleted token refused');
    const other = writer.create('vscode').token;
    await waitFor(() => store?.verifyEditor(bearer(other)) === 'vscode', 5_000, 'new token accepted');
    // A file too short to be a token is ignored rather than trusted.
    writeFileSync(editorTokenFile(t.home.tokens, 'weak'), 'abc\n');
    await new Promise((r) => setTimeout(r, 100));
    expect(store.verifyEditor(bearer('abc'))).toBeUndefined();
  });
});
