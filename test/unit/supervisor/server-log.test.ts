import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogLine } from '../../../shared/logs.ts';
import {
  DEFAULT_RING_BYTES,
  formatLogLine,
  parseLogLine,
  ServerLog,
} from '../../../electron/core/logs/server-log.ts';
import { RotatingFile } from '../../../electron/core/logs/rotating-file.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

describe('ServerLog', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-log-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('redacts stderr and lifecycle lines before the ring, the file and the listener see them', async () => {
    const clock = new ManualClock();
    const heard: LogLine[] = [];
    const path = join(dir, 'srv.log');
    const log = new ServerLog({
      server: 'srv',
      clock,
      file: new RotatingFile(path),
      onLine: (l) => heard.push(l),
    });
    log.addSecrets(['tok_123456', 'ab']);
    const stderr = log.stderrStream();
    stderr.push('using tok_12');
    stderr.push('3456 now\nsecond');
    log.lifecycle('spawned pid 7: server --key tok_123456', 'info');
    stderr.end();
    await log.close();

    const texts = log.lines().map((l) => `${l.source}:${l.text}`);
    expect(texts).toEqual([
      'stderr:using [redacted] now',
      'lifecycle:spawned pid 7: server --key [redacted]',
      'stderr:second',
    ]);
    expect(heard.map((l) => l.text)).toEqual(log.lines().map((l) => l.text));
    const file = readFileSync(path, 'utf8');
    expect(file).not.toContain('tok_1');
    expect(file).toContain('using [redacted] now');
    expect(stderr.lastLine).toBe('second');
    expect(log.lines()[0]).toMatchObject({ server: 'srv', ts: clock.now(), level: 'info' });
  });

  it('keeps only the newest lines for the live view', () => {
    const log = new ServerLog({ server: 's', clock: new ManualClock(), file: null, capacity: 10 });
    for (let i = 0; i < 25; i++) log.lifecycle(`event ${i}`);
    expect(log.lines().map((l) => l.text)).toEqual(Array.from({ length: 10 }, (_, i) => `event ${i + 15}`));
  });

  it('keeps the live view within its bytes however long the lines: 2,000 lines of 60 KB', () => {
    const log = new ServerLog({ server: 's', clock: new ManualClock(), file: null });
    const stderr = log.stderrStream();
    for (let i = 0; i < 2_000; i++) stderr.push(`${i} ${'x'.repeat(60 * 1024)}\n`);
    stderr.end();
    const lines = log.lines();
    const bytes = lines.reduce((sum, l) => sum + l.text.length * 2 + 64, 0);
    expect(bytes).toBeLessThanOrEqual(DEFAULT_RING_BYTES);
    // the newest are the ones kept
    expect(lines.at(-1)?.text.endsWith('x')).toBe(true);
    expect(lines.some((l) => l.text.startsWith('1999 '))).toBe(true);
    // and a single line longer than the whole budget is still shown
    const huge = new ServerLog({ server: 's', clock: new ManualClock(), file: null, capacityBytes: 1_000 });
    huge.lifecycle('y'.repeat(5_000));
    expect(huge.lines()).toHaveLength(1);
  });

  it('file lines read back into the same LogLine, leading spaces included', () => {
    const line: LogLine = {
      server: 's',
      ts: 1_700_000_000_123,
      source: 'stderr',
      level: 'warn',
      text: '  indented: yes',
    };
    const text = formatLogLine(line);
    expect(text).toBe('2023-11-14T22:13:20.123Z stderr/warn       indented: yes\n');
    expect(parseLogLine('s', text)).toEqual(line);
    expect(parseLogLine('s', 'garbage')).toBeNull();
  });
});
