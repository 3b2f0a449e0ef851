import { describe, expect, it } from 'vitest';
import { compareNames } from '../../electron/core/text-order.ts';

describe('compareNames', () => {
  it('lists names case-insensitively, as a person scanning a list expects', () => {
    expect(['zoo', 'Zed', 'apple', 'Bravo'].sort(compareNames)).toEqual(['apple', 'Bravo', 'Zed', 'zoo']);
  });

  it('is a total order: names equal but for case still come out the same way every time', () => {
    expect(['b', 'B', 'a', 'A'].sort(compareNames)).toEqual(['A', 'a', 'B', 'b']);
    expect(['B', 'b'].sort(compareNames)).toEqual(['b', 'B'].sort(compareNames));
    expect(compareNames('same', 'same')).toBe(0);
  });

  it('orders digits, dashes and underscores by character code, the same on every machine', () => {
    expect(['s_1', 's-1', 's10', 's2', 's1'].sort(compareNames)).toEqual(['s-1', 's1', 's10', 's2', 's_1']);
  });
});
