import { describe, expect, it } from 'vitest';
import { argumentNumber, formatDuration, plural } from '../../../renderer/src/lib/format.ts';

describe('words and numbers the views show', () => {
  it('counts arguments from 1, as the lines of the Arguments box', () => {
    expect(argumentNumber('args[0]')).toBe(1);
    expect(argumentNumber('args[12]')).toBe(13);
    expect(argumentNumber('url')).toBeUndefined();
    expect(argumentNumber('GITHUB_TOKEN')).toBeUndefined();
  });

  it('says uptimes and countdowns in the two largest units', () => {
    expect(formatDuration(-5)).toBe('0 s');
    expect(formatDuration(59_999)).toBe('59 s');
    expect(formatDuration(250_000)).toBe('4 min 10 s');
    expect(formatDuration(7_500_000)).toBe('2 h 5 min');
    expect(formatDuration(273_600_000)).toBe('3 d 4 h');
    expect(plural(1, 'line')).toBe('1 line');
    expect(plural(2, 'entry', 'entries')).toBe('2 entries');
  });
});
