import { describe, expect, it } from 'vitest';
import { diffLines } from '../../../renderer/src/lib/diff.ts';

describe('diffLines (approved config → config waiting for approval)', () => {
  it('marks an added env line and keeps the unchanged command', () => {
    expect(diffLines(['command: npx -y pkg'], ['command: npx -y pkg', 'env TOKEN=${secret:t}'])).toEqual([
      { kind: 'same', text: 'command: npx -y pkg' },
      { kind: 'added', text: 'env TOKEN=${secret:t}' },
    ]);
  });

  it('shows a changed line as removed then added', () => {
    expect(diffLines(['command: npx -y pkg@1', 'env A=1'], ['command: npx -y pkg@2', 'env A=1'])).toEqual([
      { kind: 'removed', text: 'command: npx -y pkg@1' },
      { kind: 'added', text: 'command: npx -y pkg@2' },
      { kind: 'same', text: 'env A=1' },
    ]);
  });

  it('handles empty sides and identical inputs', () => {
    expect(diffLines([], ['a'])).toEqual([{ kind: 'added', text: 'a' }]);
    expect(diffLines(['a'], [])).toEqual([{ kind: 'removed', text: 'a' }]);
    expect(diffLines(['a', 'b'], ['a', 'b']).every((l) => l.kind === 'same')).toBe(true);
  });

  it('keeps every line of both sides, in order (a longest common subsequence)', () => {
    const before = ['a', 'b', 'c', 'd', 'e'];
    const after = ['b', 'x', 'd', 'e', 'f'];
    const diff = diffLines(before, after);
    expect(diff.filter((l) => l.kind !== 'added').map((l) => l.text)).toEqual(before);
    expect(diff.filter((l) => l.kind !== 'removed').map((l) => l.text)).toEqual(after);
    expect(diff.filter((l) => l.kind === 'same').map((l) => l.text)).toEqual(['b', 'd', 'e']);
  });
});
