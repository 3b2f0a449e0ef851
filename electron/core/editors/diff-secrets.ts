import { literalSecretReason } from '../secrets/detect.ts';

/** What a hidden value in an editor diff reads as. */
const HIDDEN_IN_DIFF = '•••••••• (hidden)';

/**
 * An editor file's diff for people (the UI's Editors view, `switchboard sync --dry-run`). Its current side holds the bridge tokens of managed entries
 * (Authorization headers) and may hold the person's own literal secrets in entries Switchboard never
 * touches, shown as context: every string the core's literal-secret test flags is hidden. References
 * (`${secret:…}`) and Switchboard's placeholders ("Bearer <zed token>") stay readable.
 */
export function withoutSecrets(diff: string): string {
  return diff.split('\n').map(hideSecretsInLine).join('\n');
}

function hideSecretsInLine(line: string): string {
  let key = '';
  return line.replace(/"((?:[^"\\]|\\.)*)"(\s*:)?/g, (match, value: string, colon?: string) => {
    if (colon) {
      key = value;
      return match;
    }
    const under = key;
    key = '';
    if (value.includes('${') || /^Bearer <[^<>]+>$/.test(value)) return match;
    return literalSecretReason(under, value) === undefined ? match : `"${HIDDEN_IN_DIFF}"`;
  });
}
