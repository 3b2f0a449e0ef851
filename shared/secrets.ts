/**
 * Rules about secrets that the core and the UI both apply: what a keychain secret may be named, and
 * which setting names say their value is a secret. Pure functions (shared/ holds no Node or DOM code).
 */

/** Keychain secret names, as `${secret:NAME}` references use them. */
export const SECRET_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * "strong": the name says the value is a secret (PASSWORD, SECRET, CREDENTIAL, PAT, Authorization).
 * "token" and "key" also name harmless things (TOKEN_LIMIT=4096, SORT_KEY=name), so plain numbers are
 * let through under them, and under KEY also lowercase words.
 */
export type SecretKeyKind = 'strong' | 'token' | 'key';

export function secretKeyKind(key: string): SecretKeyKind | undefined {
  const parts = wordParts(key);
  const joined = parts.join('');
  if (/password|passwd|passphrase|secret|credential|authorization|cookie/.test(joined)) return 'strong';
  // PAT only as a whole word part: GITHUB_PAT, githubPat — not PATH or PATTERN.
  if (parts.includes('pat') || parts.includes('pats')) return 'strong';
  // token, accessToken, AUTH_TOKEN; not MAX_TOKENS (a count) or TOKENIZER.
  if (parts.some((p) => /token(?!s$|iz|is)/.test(p))) return 'token';
  // key, apiKey, API_KEY, X-Api-Key, KEY_ID, keys; not KEYBOARD or KEYWORD.
  if (
    parts.some(
      (p) => /key(s)?$/.test(p) || (/^key/.test(p) && !/^key(board|word|map|frame|space|stroke)/.test(p)),
    )
  ) {
    return 'key';
  }
  return undefined;
}

/** "GITHUB_PAT" → [github, pat]; "xApiKey" → [x, api, key]; "X-Api-Key" → [x, api, key] */
function wordParts(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}
