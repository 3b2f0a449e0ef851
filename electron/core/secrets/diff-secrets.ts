import { literalSecretReason } from './detect.ts';

/** What a hidden value in an editor diff reads as. */
const HIDDEN_IN_DIFF = '•••••••• (hidden)';

/**
 * An editor file's diff for people (the UI's Editors view, `switchboard sync --dry-run`). Its current side holds the bridge tokens of managed entries
 * (Authorization headers) and may hold the person's own literal secrets in entries Switchboard never
 * touches, shown as context: every string the core's literal-secret test flags is hidden, in JSON
 * (`"key": "value"`), TOML (`key = "value"`) and YAML (`key: value`) alike. References
 * (`${secret:…}`) and Switchboard's placeholders ("Bearer <zed token>") stay readable.
 */
export function withoutSecrets(diff: string): string {
  return diff
    .split('\n')
    .map((line) => hideSecretsInPairs(hideSecretsInLine(line)))
    .join('\n');
}

function readable(value: string): boolean {
  return value.includes('${') || /^Bearer <[^<>]+>$/.test(value) || value === HIDDEN_IN_DIFF;
}

/**
 * TOML's `key = value` and YAML's `key: value` (also inside inline tables and list items): the key
 * bare or quoted, the value quoted or plain (up to a comma, brace or comment).
 */
const PAIR =
  /("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_.-]+)([ \t]*=[ \t]*|:[ \t]+)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s,{}#"'][^,{}#]*)/g;

function unquote(text: string): string {
  if (text.startsWith('"')) {
    try {
      return JSON.parse(text) as string;
    } catch {
      return text.slice(1, -1);
    }
  }
  return text.startsWith("'") ? text.slice(1, -1) : text;
}

function hideSecretsInPairs(line: string): string {
  return line.replace(PAIR, (match, key: string, sep: string, raw: string) => {
    const value = unquote(raw.trimEnd());
    if (readable(value)) return match;
    if (literalSecretReason(unquote(key), value) === undefined) return match;
    return `${key}${sep}"${HIDDEN_IN_DIFF}"${raw.slice(raw.trimEnd().length)}`;
  });
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
