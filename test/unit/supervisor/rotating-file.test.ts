import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RotatingFile } from '../../../electron/core/logs/rotating-file.ts';

describe('RotatingFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-rot-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('rotates at the size limit and keeps exactly 3 old files, newest lines in the live file', async () => {
    const path = join(dir, 'logs', 'server.log');
    const file = new RotatingFile(path, { maxBytes: 1_000, keep: 3 });
    const lines = Array.from(
      { length: 400 },
      (_, i) => `line ${String(i).padStart(4, '0')} ${'.'.repeat(20)}\n`,
    );
    for (const line of lines) {
      file.write(line);
      // Let a few batches go to disk between writes, as a real server's output would.
      if (lines.indexOf(line) % 25 === 0) await file.flush();
    }
    await file.close();

    expect(readdirSync(join(dir, 'logs')).sort()).toEqual([
      'server.log',
      'server.log.1',
      'server.log.2',
      'server.log.3',
    ]);
    for (const name of readdirSync(join(dir, 'logs'))) {
      expect(statSync(join(dir, 'logs', name)).size).toBeLessThanOrEqual(1_000);
    }
    // Oldest to newest across the files: an unbroken tail of what was written.
    const kept = ['server.log.3', 'server.log.2', 'server.log.1', 'server.log']
      .map((n) => readFileSync(join(dir, 'logs', n), 'utf8'))
      .join('');
    expect(lines.join('').endsWith(kept)).toBe(true);
    expect(kept.endsWith(lines.at(-1) as string)).toBe(true);
    expect(kept.length).toBeGreaterThan(3_000);
  });

  it('appends to an existing file and counts its size', async () => {
    const path = join(dir, 'a.log');
    writeFileSync(path, 'x'.repeat(900));
    const file = new RotatingFile(path, { maxBytes: 1_000 });
    file.write('y'.repeat(200) + '\n');
    await file.close();
    expect(readFileSync(`${path}.1`, 'utf8')).toBe('x'.repeat(900));
    expect(readFileSync(path, 'utf8')).toBe('y'.repeat(200) + '\n');
  });

  it('write() only queues: the caller is never blocked on the disk', async () => {
    const path = join(dir, 'q.log');
    const file = new RotatingFile(path);
    for (let i = 0; i < 1_000; i++) file.write(`line ${i}\n`);
    // Nothing is on disk yet: the writes happen after this synchronous code yields.
    expect(existsSync(path)).toBe(false);
    await file.flush();
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(1_001);
    await file.close();
  });

  it('reports a file it cannot write and keeps going', async () => {
    writeFileSync(join(dir, 'blocker'), '');
    const errors: unknown[] = [];
    const file = new RotatingFile(join(dir, 'blocker', 'x.log'), { onError: (e) => errors.push(e) });
    file.write('lost\n');
    await file.flush();
    expect(errors).toHaveLength(1);
    await file.close();
  });
});
