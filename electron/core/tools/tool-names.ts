import { createHash } from 'node:crypto';
import { API_NAME_MAX } from '../../../shared/tool-limits.ts';

/** What MCP clients accept as a tool name (and what editors such as Claude and VS Code enforce). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const SEPARATOR = '__';
const VALID = /^[a-zA-Z0-9_-]+$/;
/** Hex digits of SHA-256 in a shortened /mcp name: 48 bits, so no list of names ever meets a clash. */
const AGGREGATE_HASH = 12;
/** The shortest budget a shortened name is made for (a letter, `_` and the hash). */
const MIN_BUDGET = 8;

export interface NamePair {
  server: string;
  /** the tool's (or prompt's) own name on its server */
  tool: string;
}

/**
 * Names for the aggregate endpoint, at most `max` characters. Two forms that can never meet:
 *
 * - `<server>__<tool>` when the server's name has no `__` and does not end in `_`, the tool's name is
 *   valid, and it fits. Every such name holds `__`, and its first `__` is where the server's name ends,
 *   so it leads back to exactly one pair whatever servers and tools are called.
 * - otherwise the shortened form `<server>_<tool, cleaned and cut>_<12 hex of SHA-256 of the pair>`,
 *   which holds no `__` anywhere: it can never be a plain name. Shortened names meet only if two
 *   pairs' hashes do (48 bits); then every pair of the clash takes the next salt, so a name depends
 *   only on its own pair and never starts meaning another pair's tool.
 *
 * So a server cannot make another server's tool unreachable by how it names its own tools (a held-back
 * `x__echo` on server `evil` and `echo` on server `evil__x` get different names), and a list's order
 * changes nothing.
 */
export function aggregateNames(
  pairs: readonly NamePair[],
  max: number = API_NAME_MAX,
): Map<string, NamePair> {
  const budget = Math.max(max, MIN_BUDGET + AGGREGATE_HASH);
  return unique(
    pairs,
    (pair) => `${pair.server}\0${pair.tool}`,
    (pair) => {
      const plain = `${pair.server}${SEPARATOR}${pair.tool}`;
      return separable(pair.server) && VALID.test(pair.tool) && plain.length <= budget ? plain : undefined;
    },
    (pair, level) =>
      shortened(`${pair.server}_${pair.tool}`, `${pair.server}\0${pair.tool}`, level, budget, AGGREGATE_HASH),
  );
}

/**
 * The names one client sees for one server's tools on /mcp/<server>, at most `budget` characters
 * (undefined: the tools keep their own names). A tool keeps its name when it is valid and fits;
 * otherwise, and for every tool of a clash, it gets `<name cleaned and cut>_<hash>`. Made over the
 * server's own tools alone, so no other server can change them. Returns exposed name → own name.
 */
export function serverToolNames(tools: readonly string[], budget: number | undefined): Map<string, string> {
  if (budget === undefined) return new Map(tools.map((t) => [t, t]));
  const room = Math.max(budget, MIN_BUDGET);
  const hash = Math.min(10, room - 2);
  return unique(
    tools,
    (tool) => tool,
    (tool) => (VALID.test(tool) && tool.length <= room ? tool : undefined),
    (tool, level) => shortened(tool, tool, level, room, hash),
  );
}

/**
 * One name per distinct item: its plain name if it has one, else its shortened form at level 1. Every
 * member of a clash rises a level together (never just the later one), until no two items share a
 * name; shortened forms clash only by hash collision, so this ends within a round or two.
 */
function unique<T>(
  items: readonly T[],
  key: (item: T) => string,
  plain: (item: T) => string | undefined,
  short: (item: T, level: number) => string,
): Map<string, T> {
  const entries = new Map<string, { item: T; level: number; plain: string | undefined }>();
  for (const item of items) {
    const k = key(item);
    if (entries.has(k)) continue;
    const name = plain(item);
    entries.set(k, { item, level: name === undefined ? 1 : 0, plain: name });
  }
  for (;;) {
    const byName = new Map<string, { item: T; level: number; plain: string | undefined }[]>();
    for (const entry of entries.values()) {
      const name =
        entry.level === 0 && entry.plain !== undefined ? entry.plain : short(entry.item, entry.level);
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
      const result = new Map<string, T>();
      for (const [name, group] of byName) {
        const only = group[0];
        if (only) result.set(name, only.item);
      }
      return result;
    }
  }
}

/** A server name whose end the first `__` of `<server>__<tool>` marks without doubt. */
function separable(server: string): boolean {
  return VALID.test(server) && !server.includes(SEPARATOR) && !server.endsWith('_');
}

/**
 * `<text cleaned and cut>_<hash>` in `budget` characters, with no `__` anywhere: invalid characters
 * become `_`, runs of `_` one `_`, and the cut text never ends in `_`.
 */
function shortened(
  text: string,
  identity: string,
  level: number,
  budget: number,
  hashLength: number,
): string {
  const hash = createHash('sha256').update(`${identity}\0${level}`).digest('hex').slice(0, hashLength);
  const room = budget - hashLength - 1;
  const cut = text
    .replace(/[^a-zA-Z0-9_-]/g, '_')
    .replace(/_+/g, '_')
    .slice(0, Math.max(room, 0))
    .replace(/_+$/, '');
  return cut ? `${cut}_${hash}` : `t_${hash}`.slice(0, budget);
}
