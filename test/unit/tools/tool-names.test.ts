import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  aggregateNames,
  serverToolNames,
  TOOL_NAME_PATTERN,
  type NamePair,
} from '../../../electron/core/tools/tool-names.ts';

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

  it('keeps apart servers whose names run into each other (a_ + b, a + _b)', () => {
    const a = { server: 'a_', tool: 'b' }; // a___b, if it were plain
    const b = { server: 'a', tool: '_b' }; // a___b
    const names = aggregateNames([a, b]);
    expect(names.get('a___b')).toEqual(b); // the first "__" ends the server's name: a
    expect([...names.values()].map(key).sort()).toEqual([key(a), key(b)].sort());
    expect([...names.keys()].find((n) => n !== 'a___b')).toMatch(/^a_b_[0-9a-f]{12}$/);
    expect(sorted(aggregateNames([b, a]))).toEqual(sorted(names));
  });

  it('a held-back x__echo on server evil leaves echo of server evil__x reachable (issue 21)', () => {
    const victim = { server: 'evil__x', tool: 'echo' };
    const alone = aggregateNames([victim]);
    const attacked = aggregateNames([{ server: 'evil', tool: 'x__echo' }, victim]);
    // The victim's name does not depend on what another server lists…
    const [name] = [...alone].find(([, p]) => key(p) === key(victim)) ?? [];
    expect(name).toBeDefined();
    expect(attacked.get(name ?? '')).toEqual(victim);
    // …and evil's tool has a name of its own.
    expect(attacked.get('evil__x__echo')).toEqual({ server: 'evil', tool: 'x__echo' });
  });

  it('makes invalid and long names valid, at most 64 characters', () => {
    const names = aggregateNames([
      { server: 'srv', tool: 'héllo wörld' },
      { server: 'srv', tool: 'x'.repeat(100) },
    ]);
    for (const name of names.keys()) expect(name).toMatch(TOOL_NAME_PATTERN);
    expect([...names.keys()][0]).toMatch(/^srv_h_llo_w_rld_[0-9a-f]{12}$/);
  });

  it('shortens to a smaller budget (a client with a name limit), still unique', () => {
    const pairs = [
      { server: 'github', tool: 'create_pull_request_review_comment' },
      { server: 'github', tool: 'create_pull_request_review' },
      { server: 'fs', tool: 'read' },
    ];
    const names = aggregateNames(pairs, 30);
    expect(names.size).toBe(3);
    for (const name of names.keys()) expect(name.length).toBeLessThanOrEqual(30);
    expect(names.get('fs__read')).toEqual(pairs[2]);
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
      fc.property(pairs, fc.integer({ min: 20, max: 64 }), fc.context(), (list, max, ctx) => {
        const names = aggregateNames(list, max);
        for (const name of names.keys()) {
          expect(name).toMatch(TOOL_NAME_PATTERN);
          expect(name.length).toBeLessThanOrEqual(max);
        }
        // every distinct pair has exactly one name, and that name routes back to it
        const distinct = new Set(list.map(key));
        expect(names.size).toBe(distinct.size);
        expect(new Set([...names.values()].map(key))).toEqual(distinct);
        const shuffled = [...list].reverse();
        ctx.log(`reversed: ${JSON.stringify(shuffled)}`);
        expect(sorted(aggregateNames(shuffled, max))).toEqual(sorted(names));
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

describe('aggregate names: one server cannot reach another', () => {
  it('property: a pair’s name is the same whatever other servers list', () => {
    // Names depend on the pair alone (a 48-bit hash clash aside, which these lists never meet).
    fc.assert(
      fc.property(pairs, pairs, fc.integer({ min: 20, max: 64 }), (mine, theirs, max) => {
        const alone = aggregateNames(mine, max);
        const together = aggregateNames([...theirs, ...mine], max);
        for (const [name, pair] of alone) expect(together.get(name)).toEqual(pair);
      }),
      { numRuns: 500 },
    );
  });
});

describe('per-server names for a client with a name limit', () => {
  it('keeps names that fit, shortens the others, and leads each back to its tool', () => {
    const tools = ['read', 'create_or_update_file_in_repository', 'x.y'];
    const names = serverToolNames(tools, 20);
    expect(names.get('read')).toBe('read');
    for (const [name, own] of names) {
      expect(name.length).toBeLessThanOrEqual(20);
      expect(name).toMatch(TOOL_NAME_PATTERN);
      expect(tools).toContain(own);
    }
    expect(names.size).toBe(3);
  });

  it('leaves every name alone without a budget', () => {
    expect([...serverToolNames(['a b', 'c'], undefined)]).toEqual([
      ['a b', 'a b'],
      ['c', 'c'],
    ]);
  });

  it('property: unique and within the budget, even for a tool named like another one shortened', () => {
    const tool = fc.oneof(toolName, fc.constantFrom('b', 'b_0123456789', 'y'.repeat(30)));
    fc.assert(
      fc.property(fc.array(tool, { maxLength: 30 }), fc.integer({ min: 1, max: 64 }), (list, budget) => {
        const names = serverToolNames(list, budget);
        expect(new Set(names.values())).toEqual(new Set(list));
        for (const name of names.keys()) {
          expect(name).toMatch(TOOL_NAME_PATTERN);
          expect(name.length).toBeLessThanOrEqual(Math.max(budget, 8));
        }
        // A shortened name an adversarial tool copies stops resolving rather than changing owner.
        const before = serverToolNames(list.slice(1), budget);
        for (const [name, own] of names) {
          const was = before.get(name);
          if (was !== undefined) expect(own).toBe(was);
        }
      }),
      { numRuns: 500 },
    );
  });
});
