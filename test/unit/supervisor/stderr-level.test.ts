import { describe, expect, it } from 'vitest';
import { stderrLevel } from '../../../electron/core/logs/stderr-level.ts';

describe('the level of a server’s stderr line', () => {
  it.each([
    ['ERROR: could not connect to database', 'error'],
    ['2026-11-22T10:00:00Z ERROR request failed', 'error'],
    ['[error] token rejected', 'error'],
    ['level=error msg="boom"', 'error'],
    ['{"level":"error","msg":"boom"}', 'error'],
    ['npm ERR! code E404', 'error'],
    ["Error: Cannot find module 'x'", 'error'],
    ['TypeError: x is not a function', 'error'],
    ['    at Object.<anonymous> (/srv/index.js:3:9)', 'error'],
    ['FATAL out of memory', 'error'],
    ['WARN deprecated option --foo', 'warn'],
    ['npm WARN deprecated inflight@1.0.6', 'warn'],
    ['[warning] slow response', 'warn'],
    ['{"level":"warn","msg":"retrying"}', 'warn'],
    ['Secure MCP Filesystem Server running on stdio', 'info'],
    ['no error found in config', 'info'],
    ['Starting server (errors will be logged)', 'info'],
    ['', 'info'],
  ])('%s → %s', (line, level) => {
    expect(stderrLevel(line)).toBe(level);
  });
});
