import { isDeepStrictEqual } from 'node:util';
import { getNodeValue, parseTree, type ParseError } from 'jsonc-parser';
import { isPlainObject } from '../config/jsonc-render.ts';
import { ownedAfter, userEntriesAfter } from './entry-changes.ts';
import type { PlanInput } from './file-plan.ts';

// The guard a JSON/JSONC edit passes before anything is written.

/** Equal as JSON (jsonc-parser builds objects without a prototype, which isDeepStrictEqual tells apart). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a) ?? 'null'), JSON.parse(JSON.stringify(b) ?? 'null'));
}

/**
 * The guard against a bug here ever reaching a user's file: the result must parse (as strict JSON if
 * the file was), the user's own entries must be what they were (in order), and when the servers object
 * itself was added or removed, every other setting too. When only the servers object changed, the
 * text around it is the original by construction, and checking the object is enough.
 */
export function checkResult(check: {
  after: string;
  serversKey: string;
  strict: boolean;
  valueBefore: () => unknown;
  window: string | undefined;
  rootChanged: boolean;
  input: PlanInput;
  userBefore: ReadonlyMap<string, unknown>;
  adopted: readonly string[];
  clashes: readonly string[];
  /** unsync: user entries given back, and the values they must have */
  restored: ReadonlyMap<string, unknown>;
}): string | undefined {
  const invalid = 'internal error: the edit would have made the file invalid; nothing was written';
  const changedOutside =
    "internal error: the edit would have changed settings that are not Switchboard's; nothing was written";
  const parse = (text: string): { value: unknown } | undefined => {
    if (check.strict) {
      try {
        return { value: JSON.parse(text) as unknown };
      } catch {
        return undefined;
      }
    }
    const errors: ParseError[] = [];
    const node = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
    return errors.length || !node ? undefined : { value: getNodeValue(node) };
  };
  let servers: unknown;
  let whole: unknown;
  if (check.rootChanged || check.window === undefined) {
    const parsed = parse(check.after);
    if (!parsed || !isPlainObject(parsed.value)) return invalid;
    whole = parsed.value;
    servers = parsed.value[check.serversKey];
  } else {
    const parsed = parse(check.window);
    if (!parsed || !isPlainObject(parsed.value)) return invalid;
    servers = parsed.value;
  }
  const ours = ownedAfter(check.input, check.clashes);
  const userAfter = isPlainObject(servers) ? Object.entries(servers).filter(([k, v]) => !ours(k, v)) : [];
  const expected = userEntriesAfter(check);
  const kept = userAfter.filter(([k]) => !check.restored.has(k) || check.userBefore.has(k));
  if (!jsonEqual(kept, expected)) return changedOutside;
  for (const [key, value] of check.restored) {
    if (!isPlainObject(servers) || !jsonEqual(servers[key], value)) return changedOutside;
  }
  if (whole !== undefined) {
    const strip = (value: unknown): unknown => {
      if (!isPlainObject(value)) return value;
      return Object.fromEntries(Object.entries(value).filter(([k]) => k !== check.serversKey));
    };
    // Both from the same parser: equal settings serialise to the same text (keys in the same order),
    // which compares a large file several times faster than a deep comparison.
    if (JSON.stringify(strip(check.valueBefore())) !== JSON.stringify(strip(whole))) return changedOutside;
  }
  return undefined;
}
