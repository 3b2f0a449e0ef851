import type { ToolFilter } from './schema/servers.ts';

/**
 * A tool-name glob as a RegExp: `*` any run of characters, `?` exactly one, a backslash before a
 * character that character itself (`\\*` is a star), everything else itself. Anchored and case-sensitive, like the
 * tool names servers send.
 */
export function toolPattern(glob: string): RegExp {
  let source = '';
  let escaped = false;
  for (const ch of glob) {
    if (!escaped && ch === '\\') {
      escaped = true;
      continue;
    }
    if (!escaped && ch === '*') source += '.*';
    else if (!escaped && ch === '?') source += '.';
    else source += ch.replace(/[\\^$.|+()[\]{}/*?]/g, '\\$&');
    escaped = false;
  }
  if (escaped) source += '\\\\';
  return new RegExp(`^${source}$`, 'su');
}

/** The pattern that matches exactly this tool name (its stars, question marks and backslashes escaped). */
export function exactPattern(name: string): string {
  return name.replace(/[\\*?]/g, '\\$&');
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

/** How many of `names` a filter offers: what editors get of a server's tools, as counted in status. */
export function offeredCount(names: readonly string[], filter: ToolFilter | undefined): number {
  const offered = compileToolFilter(filter);
  return names.filter(offered).length;
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

/** A filter with one tool turned on or off, or why that takes an edit by hand. */
export type ToggleResult = { filter: ToolFilter | undefined } | { blockedBy: string };

/**
 * Turns one tool on or off in a filter the way a switch does: off adds its exact name to `exclude`;
 * on takes its exact name out of `exclude` and, under an `include` that does not match it, adds it
 * there. A tool a wider pattern turns off (`delete_*`) cannot be switched on alone: the pattern is
 * named, for the person to change. Nothing left: undefined (the field goes).
 */
export function toggleTool(filter: ToolFilter | undefined, name: string, on: boolean): ToggleResult {
  const exact = exactPattern(name);
  const include = filter?.include;
  let exclude = filter?.exclude ?? [];
  let nextInclude = include;
  if (!on) {
    if (!compileToolFilter(filter)(name)) return { filter };
    exclude = [...exclude, exact];
  } else {
    exclude = exclude.filter((p) => p !== exact);
    const blocking = exclude.find((p) => toolPattern(p).test(name));
    if (blocking !== undefined) return { blockedBy: blocking };
    if (include !== undefined && !include.some((p) => toolPattern(p).test(name)))
      nextInclude = [...include, exact];
  }
  const result: ToolFilter = {
    ...(nextInclude !== undefined ? { include: nextInclude } : {}),
    ...(exclude.length ? { exclude } : {}),
  };
  return { filter: Object.keys(result).length ? result : undefined };
}
