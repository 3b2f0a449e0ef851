import { describe, expect, it } from 'vitest';
import { withWaitingLine } from '../../../electron/cli/waiting-line.ts';

// Issue 36 item 4: resolving a package before approval took seconds with no word on the terminal.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
}

describe('withWaitingLine', () => {
  it('says what it waits for on a terminal, with the seconds, and clears the line before the answer', async () => {
    const tty = stream(true);
    expect(await withWaitingLine(tty, 'Resolving pkg…', () => sleep(1600).then(() => 'done'))).toBe('done');
    expect(tty.written[0]).toBe('\r\x1b[2KResolving pkg… 0 s');
    expect(tty.written).toContain('\r\x1b[2KResolving pkg… 1 s');
    expect(tty.written.at(-1)).toBe('\r\x1b[2K');
  });

  it('says nothing for an answer at once, nor to a pipe, and passes a failure on', async () => {
    const tty = stream(true);
    await withWaitingLine(tty, 'Resolving pkg…', () => Promise.resolve(1));
    expect(tty.written).toEqual([]);
    const pipe = stream(false);
    await withWaitingLine(pipe, 'Resolving pkg…', () => sleep(600));
    expect(pipe.written).toEqual([]);
    await expect(
      withWaitingLine(tty, 'x', () => sleep(500).then(() => Promise.reject(new Error('no registry')))),
    ).rejects.toThrow('no registry');
    expect(tty.written.at(-1)).toBe('\r\x1b[2K');
  });
});
