import { diffLines } from 'diff';
import { canonicalJson } from '../trust/canonical-json.ts';
import { withoutSecrets } from '../secrets/diff-secrets.ts';

/**
 * What replacing one servers.json entry by another changes, for people: the entries as JSON, line by
 * line, `-` for what goes and `+` for what comes (unchanged lines around a change as context), every
 * literal secret hidden. Empty when the two mean the same (key order aside).
 */
export function entryDiff(before: unknown, after: unknown): string[] {
  if (canonicalJson(before) === canonicalJson(after)) return [];
  const parts = diffLines(JSON.stringify(before, null, 2) + '\n', JSON.stringify(after, null, 2) + '\n');
  const lines: string[] = [];
  for (const part of parts) {
    const mark = part.added ? '+ ' : part.removed ? '- ' : '  ';
    for (const line of part.value.replace(/\n$/, '').split('\n')) lines.push(mark + line);
  }
  return withoutSecrets(lines.join('\n')).split('\n');
}
