import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLogHistory } from '../../../electron/core/logs/log-history.ts';
import { formatLogLine, ServerLog } from '../../../electron/core/logs/server-log.ts';
import type { LogLine } from '../../../shared/logs.ts';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'sb-log-history-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const line = (i: number, text = `line ${i}`): LogLine => ({
  server: 's',
  ts: Date.UTC(2026, 0, 1, 0, 0, i),
  source: i % 2 ? 'stderr' : 'lifecycle',
  level: 'info',
  text,
});

describe('a server log after a restart of Switchboard', () => {
  it('reads back the newest lines the file held before this run, skipping what is not a log line', () => {
    const file = join(dir, 's.log');
    writeFileSync(file, [1, 2, 3, 4].map((i) => formatLogLine(line(i))).join('') + 'not a log line\n');
    const end = statSync(file).size;
    appendFileSync(file, formatLogLine(line(5, 'written by this run')));
    expect(readLogHistory(file, end, 's', 3)).toEqual([line(2), line(3), line(4)]);
    expect(readLogHistory(join(dir, 'missing.log'), end, 's', 3)).toEqual([]);
  });

  it('reads only the tail of a large file, never half a line', () => {
    const file = join(dir, 'big.log');
    const long = 'x'.repeat(5_000);
    writeFileSync(
      file,
      Array.from({ length: 400 }, (_, i) => formatLogLine(line(i % 60, `${i} ${long}`))).join(''),
    );
    const lines = readLogHistory(file, statSync(file).size, 's', 10_000);
    expect(lines.length).toBeGreaterThan(150);
    expect(lines.length).toBeLessThan(400);
    expect(lines.at(-1)?.text.startsWith('399 ')).toBe(true);
    for (const l of lines) expect(l.text).toMatch(/^\d+ x{5000}$/);
  });

  it('puts the history before this run’s lines, within the ring’s capacity, once', () => {
    let asked = 0;
    const log = new ServerLog({
      server: 's',
      clock: { now: () => Date.UTC(2026, 0, 2), setTimeout: () => () => {} },
      file: null,
      capacity: 4,
      history: (max) => {
        asked++;
        return [line(1), line(2), line(3)].slice(-max);
      },
    });
    log.lifecycle('this run');
    log.lifecycle('and again');
    expect(log.lines().map((l) => l.text)).toEqual(['line 2', 'line 3', 'this run', 'and again']);
    expect(log.lines().map((l) => l.text)).toEqual(['line 2', 'line 3', 'this run', 'and again']);
    expect(asked).toBe(1);
  });
});
