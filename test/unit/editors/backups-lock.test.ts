import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Backups } from '../../../electron/core/editors/backups.ts';
import { withLock } from '../../../electron/core/editors/lock.ts';
import { MemoryKeychain } from '../../../electron/core/secrets/keychain.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-backups-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('backups', () => {
  it('keeps the exact bytes, readable only by the user, and knows the original was taken', async () => {
    const backups = new Backups(join(dir, 'backups'));
    const text = '// mine\r\n{ "a": "é🙂" }';
    const meta = backups.create({ editor: 'zed', file: '/f', target: '/f', text, reason: 'original' });
    const originals = backups.list().filter((b) => b.reason === 'original');
    expect(originals.map((b) => [b.editor, b.target])).toEqual([['zed', '/f']]);
    expect((await backups.content(meta, () => new MemoryKeychain())).text).toBe(text);
    expect(statSync(join(dir, 'backups')).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(join(dir, 'backups')))
      expect(statSync(join(dir, 'backups', f)).mode & 0o777).toBe(0o600);
    expect(backups.list().map((b) => b.id)).toEqual([meta.id]);
  });

  it('stores no secret: placeholders in the file, the value back from the keychain on restore', async () => {
    const backups = new Backups(join(dir, 'backups'));
    const keychain = new MemoryKeychain();
    const secret = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    await keychain.set('github-token', secret);
    const text = `{ "env": { "GITHUB_TOKEN": "${secret}" }, "again": "${secret}" }`;
    const spans = [...text.matchAll(new RegExp(secret, 'g'))].map((m) => ({
      name: 'github-token',
      offset: m.index,
      length: secret.length,
    }));
    const meta = backups.create({
      editor: 'claude-desktop',
      file: '/f',
      target: '/f',
      text,
      reason: 'import',
      secrets: spans,
    });
    for (const f of readdirSync(join(dir, 'backups')))
      expect(readFileSync(join(dir, 'backups', f), 'utf8')).not.toContain(secret);
    const restored = await backups.content(meta, () => keychain);
    expect(restored).toEqual({ text, exact: true });
  });

  it('scrubs a secret from backups taken before it moved to the keychain', async () => {
    const backups = new Backups(join(dir, 'backups'));
    const keychain = new MemoryKeychain();
    const secret = 'sk-live-0123456789abcdefghij';
    const text = `{"k":"${secret}","other":"x"}`;
    const meta = backups.create({ editor: 'cursor', file: '/f', target: '/f', text, reason: 'original' });
    await keychain.set('s', secret);
    expect(backups.scrub(secret, 's')).toBe(1);
    for (const f of readdirSync(join(dir, 'backups')))
      expect(readFileSync(join(dir, 'backups', f), 'utf8')).not.toContain(secret);
    expect((await backups.content(backups.get(meta.id), () => keychain)).text).toBe(text);
  });
});

describe('lock', () => {
  it('serialises holders and takes over a lock left by a dead process', async () => {
    const file = join(dir, 'run', 'x.lock');
    const order: string[] = [];
    await Promise.all([
      withLock(file, async () => {
        order.push('a-in');
        await new Promise((r) => setTimeout(r, 50));
        order.push('a-out');
      }),
      new Promise((r) => setTimeout(r, 5)).then(() =>
        withLock(file, () => {
          order.push('b');
        }),
      ),
    ]);
    expect(order).toEqual(['a-in', 'a-out', 'b']);
    // A lock of a process that no longer exists (pid far above any real one) is stale.
    writeFileSync(file, `999999999 ${Date.now()}\n`);
    await expect(withLock(file, () => 'taken over', { timeoutMs: 500 })).resolves.toBe('taken over');
    // A live holder that does not let go: give up with a clear error.
    writeFileSync(file, `${process.pid} ${Date.now()}\n`);
    await expect(withLock(file, () => 'never', { timeoutMs: 200 })).rejects.toThrow(
      /another Switchboard is writing/,
    );
    rmSync(file);
  });

  it('waits for an empty lock being written, and takes over one a crash left empty', async () => {
    const file = join(dir, 'run', 'y.lock');
    mkdirSync(join(dir, 'run'), { recursive: true });
    writeFileSync(file, '');
    await expect(withLock(file, () => 'never', { timeoutMs: 200 })).rejects.toThrow(/another Switchboard/);
    // The same empty file, 10 s old: its creator died between creating and writing it.
    const old = new Date(Date.now() - 10_000);
    utimesSync(file, old, old);
    await expect(withLock(file, () => 'taken over', { timeoutMs: 500 })).resolves.toBe('taken over');
  });
});
