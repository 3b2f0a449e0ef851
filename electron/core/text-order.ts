/**
 * The order names are listed and written in: case-insensitive, then by UTF-16 code units, so it is
 * the same on every machine whatever the locale.
 *
 * Not `localeCompare`: its first call makes V8 build ICU's list of collation locales, which maps
 * ~4 MB of ICU data into serve for the rest of its life (docs/performance.md, "Where serve's memory
 * goes"). Names here are identifiers (servers, secrets, packages), not prose.
 */
export function compareNames(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
