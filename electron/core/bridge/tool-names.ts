import { createHash } from 'node:crypto';

/** What MCP clients accept as a tool name (and what editors such as Claude and VS Code enforce). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const SEPARATOR = '__';
const MAX = 64;

export interface NamePair {
  server: string;
  /** the tool's (or prompt's) own name on its server */
  tool: string;
}

/**
 * Names for the aggregate endpoint: `<server>__<tool>` when that is valid and no other pair wants the
 * same name; otherwise a shortened, cleaned form with a hash of the pair. Every pair in a clash gets
 * the hashed form, never just the later one: so a pair's name depends only on the pair and on which
 * pairs clash (never on list order), and a name an editor already knows never silently starts pointing
 * at another server's tool when a clashing one appears (it stops resolving instead).
 */
export function aggregateNames(pairs: readonly NamePair[]): Map<string, NamePair> {
  // Level 0 is the plain name, level n ≥ 1 the hashed form salted with n; a pair's level only rises.
  const entries = new Map<string, { pair: NamePair; level: number }>();
  for (const pair of pairs) {
    const key = `${pair.server}\0${pair.tool}`;
    if (!entries.has(key)) {
      const plain = `${pair.server}${SEPARATOR}${pair.tool}`;
      entries.set(key, { pair, level: TOOL_NAME_PATTERN.test(plain) ? 0 : 1 });
    }
  }
  // Raise every member of every clash together until no two pairs share a name. Each round depends
  // only on the set of pairs and their levels; hashed names clash only by hash collision, so this
  // ends within a round or two.
  for (;;) {
    const byName = new Map<string, { pair: NamePair; level: number }[]>();
    for (const entry of entries.values()) {
      const name = nameAt(entry.pair, entry.level);
      const group = byName.get(name);
      if (group) group.push(entry);
      else byName.set(name, [entry]);
    }
    let clashes = false;
    for (const group of byName.values()) {
      if (group.length < 2) continue;
      clashes = true;
      for (const entry of group) entry.level++;
    }
    if (!clashes) {
      const result = new Map<string, NamePair>();
      for (const [name, group] of byName) {
        const only = group[0];
        if (only) result.set(name, only.pair);
      }
      return result;
    }
  }
}

function nameAt(pair: NamePair, level: number): string {
  if (level === 0) return `${pair.server}${SEPARATOR}${pair.tool}`;
  const hash = createHash('sha256')
    .update(`${pair.server}\0${pair.tool}\0${level}`)
    .digest('hex')
    .slice(0, 10);
  const clean = (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, '_');
  const suffix = `_${hash}`;
  const full = `${clean(pair.server)}${SEPARATOR}${clean(pair.tool)}`;
  return `${full.slice(0, MAX - suffix.length)}${suffix}`;
}
