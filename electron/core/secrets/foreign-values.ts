import { clip, displayText, hasHiddenCharacters } from '../../../shared/display-text.ts';
import { REFERENCE_LIKE } from './references.ts';

// Config that came from elsewhere (a registry entry, an MCP bundle's manifest) may not name one of
// the person's secrets or environment variables: it brings none of its own, so a `${secret:…}` or
// `${env:…}` in it would borrow one the person never gave it. Nor may it hide what it runs behind
// control, bidi or invisible characters. One rule for the catalog and the store, kept here (below both).

/** Descriptions and placeholders are only shown (escaped); every other string may end up running. */
const SHOWN_ONLY = new Set(['description', 'placeholder', 'title', 'statusMessage']);

/**
 * Why `value` (any JSON) is refused, naming where in it (`at env.TOKEN`), or undefined: a string
 * with hidden characters, or one holding a `${secret:…}`/`${env:…}`, anywhere but in what is only shown.
 */
export function refusedForeignValue(value: unknown, path: (string | number)[] = []): string | undefined {
  if (typeof value === 'string') {
    const where = path.length ? ` (at ${path.join('.')})` : '';
    if (hasHiddenCharacters(value))
      return (
        `Switchboard will not install it: it has control, bidi, line-break or invisible characters${where}: ` +
        `"${displayText(clip(value, 80))}". They can make what runs look like something else`
      );
    const reference = REFERENCE_LIKE.exec(value);
    if (reference)
      return (
        `Switchboard will not install it: it uses ${displayText(clip(reference[0], 60))}${where}, which would hand it ` +
        'one of your keychain secrets or environment variables that you did not give it'
      );
    return undefined;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = refusedForeignValue(item, [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (SHOWN_ONLY.has(key)) continue;
      if (hasHiddenCharacters(key)) return refusedForeignValue(key, path);
      const found = refusedForeignValue(item, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}
