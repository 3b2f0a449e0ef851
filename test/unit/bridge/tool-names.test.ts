import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  aggregateNames,
  TOOL_NAME_PATTERN,
  type NamePair,
} from '../../../electron/core/bridge/tool-names.ts';

const key = (p: NamePair) => `${p.server}\0${p.tool}`;
const sorted = (names: Map<string, NamePair>) =>
  [...names].map(([name, p]) => [name, key(p)] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

// Server names follow servers.json's rule; tool names are anything a server may send. Small pools make
// clashes (`a_` + `b` vs `a` + `_b`), duplicates and long names common, not once in a million runs.
const serverName = fc.oneof(
  fc.constantFrom('a', 'a_', 'a__', 'b', 'x'.repeat(48)),
  fc.stringMatching(/^[A-Za-z0-9_-]{1,48}$/),
);
const toolName = fc.oneof(
  fc.constantFrom('b', '_b', '__b', 'a__b', 'b c', 'b_c', 'y'.repeat(70)),
  fc.stringMatching(/^[a-z_]{1,70}$/),
  fc.string({ minLength: 1, maxLength: 80, unit: 'grapheme' }),
);
/** a pair from the small pools only: likely to clash with pairs already listed */
const clashProne = fc.record({
  server: fc.constantFrom('a', 'a_', 'a__'),
  tool: fc.constantFrom('b', '_b', '__b', 'b c'),
});
const pairs = fc.array(fc.oneof(clashProne, fc.record({ server: serverName, tool: toolName })), {
  maxLength: 40,
});

describe('aggregate tool names', () => {
  it('keeps <server>__<tool> when it is valid and unique', () => {
    const names = aggregateNames([
      { server: 'github', tool: 'create_issue' },
      { server: 'fs', tool: 'read-file' },
    ]);
    expect([...names.keys()]).toEqual(['github__create_issue', 'fs__read-file']);
  });

  it('gives every pair of a clash the hashed form, whichever comes first', () => {
    const a = { server: 'a_', tool: 'b' }; // a___b
    const b = { server: 'a', tool: '_b' }; // a___b too
    const names = aggregateNames([a, b]);
    expect(names.has('a___b')).toBe(false);
    expect([...names.values()].map(key).sort()).toEqual([key(a), key(b)].sort());
    for (const name of names.keys()) expect(name).toMatch(/^a___b_[0-9a-f]{10}$/);
    expect(sorted(aggregateNames([b, a]))).toEqual(sorted(names));
  });

  it('makes invalid and long names valid, at most 64 characters', () => {
    const names = aggregateNames([
      { server: 'srv', tool: 'héllo wörld' },
      { server: 'srv', tool: 'x'.repeat(100) },
    ]);
    for (const name of names.keys()) expect(name).toMatch(TOOL_NAME_PATTERN);
    expect([...names.keys()][0]).toMatch(/^srv__h_llo_w_rld_[0-9a-f]{10}$/);
  });

  it('lists a pair a server sends twice once', () => {
    const names = aggregateNames([
      { server: 's', tool: 't' },
      { server: 's', tool: 't' },
    ]);
    expect([...names.keys()]).toEqual(['s__t']);
  });

  it('property: valid, unique, order-independent, and each name leads back to its own pair', () => {
    fc.assert(
      fc.property(pairs, fc.context(), (list, ctx) => {
        const names = aggregateNames(list);
        for (const name of names.keys()) expect(name).toMatch(TOOL_NAME_PATTERN);
        // every distinct pair has exactly one name, and that name routes back to it
        const distinct = new Set(list.map(key));
        expect(names.size).toBe(distinct.size);
        expect(new Set([...names.values()].map(key))).toEqual(distinct);
        const shuffled = [...list].reverse();
        ctx.log(`reversed: ${JSON.stringify(shuffled)}`);
        expect(sorted(aggregateNames(shuffled))).toEqual(sorted(names));
      }),
      { numRuns: 500 },
    );
  });

  it('property: a pair joining never makes an existing name point at another pair', () => {
    fc.assert(
      fc.property(pairs, clashProne, fc.nat(), (list, added, at) => {
        const before = aggregateNames(list);
        const position = at % (list.length + 1);
        const after = aggregateNames([...list.slice(0, position), added, ...list.slice(position)]);
        for (const [name, pair] of after) {
          const was = before.get(name);
          if (was) expect(key(pair)).toBe(key(was));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('property: the order of the list does not matter (random permutations)', () => {
    fc.assert(
      fc.property(
        pairs.chain((list) =>
          fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length })),
        ),
        ([list, permuted]) => {
          expect(sorted(aggregateNames(permuted))).toEqual(sorted(aggregateNames(list)));
        },
      ),
      { numRuns: 500 },
    );
  });
});
