import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { LogLine } from '../../../shared/logs.ts';
import { parseLogLine } from './server-log.ts';

/** The most of a log file read back as history (its tail): enough for a ring buffer's lines. */
const MAX_HISTORY_BYTES = 1024 * 1024;

/**
 * The last `max` lines a log file held before this process wrote to it (its first `end` bytes), as
 * LogLines: what a server logged while an earlier Switchboard ran. Lines that are not Switchboard's
 * format are skipped; a missing or unreadable file is no history.
 */
export function readLogHistory(path: string, end: number, server: string, max: number): LogLine[] {
  if (end <= 0 || max <= 0) return [];
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return [];
  }
  try {
    const stop = Math.min(end, fstatSync(fd).size);
    const start = Math.max(0, stop - MAX_HISTORY_BYTES);
    const buffer = Buffer.alloc(stop - start);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    const lines = buffer.subarray(0, read).toString('utf8').split('\n');
    // A tail read from the middle of the file starts inside a line: that part is not a line.
    if (start > 0) lines.shift();
    const parsed: LogLine[] = [];
    for (const text of lines) {
      const line = text ? parseLogLine(server, text) : null;
      if (line) parsed.push(line);
    }
    return parsed.slice(-max);
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
}
