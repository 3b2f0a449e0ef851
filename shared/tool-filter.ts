import type { ToolFilter } from './schema/servers.ts';

/**
 * A tool-name glob as a RegExp: `*` any run of characters, `?` exactly one, everything else itself.
 * Anchored and case-sensitive, like the tool names servers send.
 */
export function toolPattern(glob: string): RegExp {
  let source = '';
  for (const ch of glob) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[\\^$.|+()[\]{}/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'su');
}

/** Is `name` offered under `filter`? include (when given) must match, exclude must not; exclude wins. */
export type ToolPredicate = (name: string) => boolean;

/** Compiles a filter once, for many names. No filter (or an empty one) offers every tool. */
export function compileToolFilter(filter: ToolFilter | undefined): ToolPredicate {
  if (!filter || (filter.include === undefined && !filter.exclude?.length)) return () => true;
  const include = filter.include?.map(toolPattern);
  const exclude = (filter.exclude ?? []).map(toolPattern);
  return (name) =>
    (include === undefined || include.some((p) => p.test(name))) && !exclude.some((p) => p.test(name));
}

/** Both filters at once: a tool must pass each (a server's own, then an editor's selection). */
export function bothFilters(a: ToolPredicate, b: ToolPredicate): ToolPredicate {
  return (name) => a(name) && b(name);
}

/** A stable text of a filter, to tell whether it changed (patterns in the order written). */
export function toolFilterKey(filter: ToolFilter | undefined): string {
  if (!filter) return '';
  return JSON.stringify([filter.include ?? null, filter.exclude ?? []]);
}

/** The patterns of a filter that match none of `names` (likely typos, shown as a hint). */
export function unmatchedPatterns(filter: ToolFilter | undefined, names: readonly string[]): string[] {
  const patterns = [...(filter?.include ?? []), ...(filter?.exclude ?? [])];
  return patterns.filter((p) => {
    const re = toolPattern(p);
    return !names.some((n) => re.test(n));
  });
}
