import { secretKeyKind, type SecretKeyKind } from '../../../shared/secrets.ts';
import { findReferences, literalParts } from './references.ts';

/**
 * Finds secrets written literally into a server's config, so the core can refuse to run it and offer
 * the one-step fix (move it to the keychain). A finding names where the secret is and why — never the
 * value, so it can go into errors, logs and the UI as is.
 */
export type SecretField = 'env' | 'headers' | 'args' | 'url';

export interface SecretFinding {
  field: SecretField;
  /** what `switchboard secret move SERVER KEY` takes: the env variable, the header, `args[N]` or `url` */
  key: string;
  /** where the value sits in the server's config object: ["env", "X"], ["args", 2], ["url"] */
  path: (string | number)[];
  reason: string;
  /**
   * The secret's offsets in that value. Only this part moves to the keychain; the rest ("Bearer ",
   * "--token=", the URL around a password) stays in the file around the reference.
   */
  start: number;
  end: number;
}

export interface ConfigWithValues {
  env?: Record<string, string> | undefined;
  headers?: Record<string, string> | undefined;
  args?: readonly string[] | undefined;
  url?: string | undefined;
}

/** An option flag: --api-key, -t, --token (not a negative number). */
const FLAG = /^--?[A-Za-z][\w.-]*$/;
const FLAG_WITH_VALUE = /^(--?[A-Za-z][\w.-]*)=/;

/**
 * The flag that names args[index]: its own `--flag=` prefix, or the flag just before it
 * (`--api-key`, then the key). Undefined for an arg that is a flag itself or follows none.
 */
export function argFlag(
  args: readonly unknown[],
  index: number,
): { flag: string; inline: boolean } | undefined {
  const arg = args[index];
  if (typeof arg !== 'string') return undefined;
  const inline = FLAG_WITH_VALUE.exec(arg)?.[1];
  if (inline) return { flag: inline, inline: true };
  if (FLAG.test(arg)) return undefined;
  const previous = args[index - 1];
  return typeof previous === 'string' && FLAG.test(previous) ? { flag: previous, inline: false } : undefined;
}

/** Flags whose value is a password whatever the tool calls it. */
const PASSWORD_FLAGS = new Set(['--pass', '--pw']);
/** Flags whose value sets an environment variable, KEY=VALUE (docker run -e, --env). */
const ENV_FLAGS = new Set(['-e', '--env']);
/** Flags whose value is an HTTP header, "Name: value" (curl and mcp-remote -H, --header). */
const HEADER_FLAGS = new Set(['-H', '--header']);

/** What an arg sets: the name its value is judged under, and where that value starts in the arg. */
export interface ArgSetting {
  name: string;
  start: number;
  /**
   * `-p`: a password for some tools (sshpass, mongosh, mysql's -pPASSWORD) but a port, package or
   * version for others (docker -p 8080:80, npx -p @scope/pkg, uv -p 3.12), so those shapes pass.
   */
  shortP?: boolean;
}

/**
 * What args[index] sets, building on argFlag: `--api-key KEY` and `--api-key=KEY` set "api-key";
 * `-e API_KEY=…` and `--env=API_KEY=…` set API_KEY (its value starting after "="); `-H "Authorization:
 * Bearer …"` and `--header=…` set Authorization (after ": "); `-p PW`, `-pPW`, `--pass PW` set a
 * password. Undefined for an arg that is a flag itself or follows none.
 */
export function argSetting(args: readonly unknown[], index: number): ArgSetting | undefined {
  const arg = args[index];
  if (typeof arg !== 'string') return undefined;
  // mysql's -pPASSWORD: the value is attached to the flag.
  if (/^-p[^-=]/.test(arg)) return { name: 'password', start: 2, shortP: true };
  const named = argFlag(args, index);
  if (!named) return undefined;
  const start = named.inline ? named.flag.length + 1 : 0;
  const value = arg.slice(start);
  if (ENV_FLAGS.has(named.flag)) {
    const env = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(value);
    if (env?.[1]) return { name: env[1], start: start + env[0].length };
  }
  if (HEADER_FLAGS.has(named.flag)) {
    const header = /^([A-Za-z][A-Za-z0-9-]*):(?!\/\/)\s*/.exec(value);
    if (header?.[1]) return { name: header[1], start: start + header[0].length };
  }
  if (named.flag === '-p') return { name: 'password', start, shortP: true };
  if (PASSWORD_FLAGS.has(named.flag)) return { name: 'password', start };
  return { name: named.flag.replace(/^-+/, ''), start };
}

/** After `-p`: a port or port mapping, a version, a package, a plain lowercase name — not a password. */
function isHarmlessAfterShortP(value: string): boolean {
  if (/^[\d.]+(:[\d.]+)*(\/(tcp|udp|sctp))?$/.test(value)) return true; // 8080, 8080:80, 127.0.0.1:80:80, 3.12
  // @scope/name@version, name@^1, python3.11, my-profile
  if (/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(@[\w.^~<>=*-]+)?$/.test(value)) return true;
  return isHarmlessUnderSecretKey(value, 'key');
}

export function findLiteralSecrets(config: ConfigWithValues): SecretFinding[] {
  const findings: SecretFinding[] = [];
  for (const field of ['env', 'headers'] as const) {
    for (const [key, value] of Object.entries(config[field] ?? {})) {
      const found = locateSecret(key, value);
      if (found) findings.push({ field, key, path: [field, key], ...found });
    }
  }
  const args = config.args ?? [];
  args.forEach((arg, index) => {
    // The flag names the value: `--api-key sk…` and `--api-key=sk…` are judged as API_KEY would be.
    const setting = argSetting(args, index);
    if (!setting && FLAG.test(arg)) return;
    const offset = setting?.start ?? 0;
    const value = arg.slice(offset);
    // A port, package or version after -p is judged as a value under no name (known formats, entropy).
    const name = setting?.shortP && isHarmlessAfterShortP(value) ? '' : (setting?.name ?? '');
    const found = locateSecret(name, value);
    if (found) {
      findings.push({
        field: 'args',
        key: `args[${index}]`,
        path: ['args', index],
        reason: found.reason,
        start: found.start + offset,
        end: found.end + offset,
      });
    }
  });
  if (config.url !== undefined) {
    const found = locateSecret('', config.url);
    if (found) findings.push({ field: 'url', key: 'url', path: ['url'], ...found });
  }
  return findings;
}

/** Why `value` under `key` counts as a literal secret, or undefined if it does not. */
export function literalSecretReason(key: string, value: string): string | undefined {
  return locateSecret(key, value)?.reason;
}

export interface LocatedSecret {
  reason: string;
  start: number;
  end: number;
}

/** A piece of a value outside its `${…}` references, with its offset. */
interface Segment {
  text: string;
  at: number;
}

/**
 * Whether `value` (under the name `key`) holds a literal secret, and exactly where. Checked in order:
 * known token formats, a password in a URL, a secret-like name over a literal value, then
 * random-looking words (and random-looking parts of URLs) under any name.
 */
export function locateSecret(key: string, value: string): LocatedSecret | undefined {
  // What was written literally: references are cut out, and so is an auth scheme ("Bearer ${secret:x}").
  const literal = stripAuthScheme(literalParts(value)).trim();
  if (literal === '' || /^[\s\p{P}\p{S}]*$/u.test(literal)) return undefined;
  const segments = literalSegments(value);

  for (const { text, at } of segments) {
    for (const [pattern, what] of KNOWN_FORMATS) {
      const m = pattern.exec(text);
      if (m) return { reason: `looks like ${what}`, start: at + m.index, end: at + m.index + m[0].length };
    }
  }
  for (const { text, at } of segments) {
    const password = urlPasswordSpan(text);
    if (password)
      return { reason: 'URL with an embedded password', start: at + password[0], end: at + password[1] };
  }
  const keyKind = secretKeyKind(key);
  if (keyKind && !isHarmlessUnderSecretKey(literal, keyKind)) {
    return { reason: 'literal value under a secret-like name', ...mainLiteralSpan(value, segments) };
  }
  for (const { text, at } of segments) {
    const random = randomLookingSpan(text);
    if (random) return { reason: random.reason, start: at + random.start, end: at + random.end };
  }
  return undefined;
}

function literalSegments(value: string): Segment[] {
  const segments: Segment[] = [];
  let at = 0;
  for (const ref of findReferences(value)) {
    if (ref.start > at) segments.push({ text: value.slice(at, ref.start), at });
    at = ref.end;
  }
  if (at < value.length) segments.push({ text: value.slice(at), at });
  return segments;
}

/**
 * The literal under a secret-like name: the whole value after an auth scheme, trimmed; next to
 * references ("${env:USER}:s3cret") the longest literal piece, without the separators around it.
 */
function mainLiteralSpan(value: string, segments: Segment[]): { start: number; end: number } {
  // Next to a reference, punctuation around the literal is a separator (":" in "${env:USER}:pw").
  const edges = findReferences(value).length > 0 ? /^[\s\p{P}\p{S}]*/u : /^\s*/;
  const tails = findReferences(value).length > 0 ? /[\s\p{P}\p{S}]*$/u : /\s*$/;
  let best = { start: 0, end: 0 };
  for (const { text, at } of segments) {
    const scheme = at === 0 ? (AUTH_SCHEME.exec(text)?.[0].length ?? 0) : 0;
    const start = scheme + (edges.exec(text.slice(scheme))?.[0].length ?? 0);
    const end = Math.max(start, text.length - (tails.exec(text.slice(start))?.[0].length ?? 0));
    if (end - start > best.end - best.start) best = { start: at + start, end: at + end };
  }
  return best;
}

/** Words with their offsets, split where values are usually joined: spaces, "," and ";". */
function wordsOf(text: string): { word: string; at: number }[] {
  return [...text.matchAll(/[^\s,;]+/g)].map((m) => ({ word: m[0], at: m.index }));
}

function randomLookingSpan(text: string): LocatedSecret | undefined {
  for (const { word, at } of wordsOf(text)) {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(word)) {
      const part = urlRandomPartSpan(word);
      if (part)
        return { reason: 'URL carrying a random-looking token', start: at + part[0], end: at + part[1] };
      continue;
    }
    if (isFilePath(word)) continue;
    // --api-key=…, user:token
    for (const m of word.matchAll(/[^=:]+/g)) {
      if (isRandomLooking(m[0])) {
        return {
          reason: 'random-looking value (high entropy)',
          start: at + m.index,
          end: at + m.index + m[0].length,
        };
      }
    }
  }
  return undefined;
}

// ---- key names ------------------------------------------------------------------------------------

// ---- values ---------------------------------------------------------------------------------------

const AUTH_SCHEME = /^\s*(bearer|basic|token|bot|digest|apikey)\s+/i;

function stripAuthScheme(value: string): string {
  return value.replace(AUTH_SCHEME, '');
}

/** Values that are plainly not secrets even under a secret-like name: flags, paths, plain URLs. */
function isHarmlessUnderSecretKey(value: string, kind: SecretKeyKind): boolean {
  if (/^(true|false|yes|no|on|off|none|null|enabled|disabled)$/i.test(value)) return true;
  // Another tool's placeholder (mcp-remote's "Authorization:${AUTH_HEADER}"), not a value.
  if (/^\$(\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Z_][A-Z0-9_]*)$/.test(value)) return true;
  // A file that holds the secret is not the secret: GOOGLE_APPLICATION_CREDENTIALS=/path/key.json.
  if (isFilePath(value)) return true;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !hasUrlPassword(value) && !urlHasRandomPart(value))
    return true;
  // TOKEN_LIMIT=4096, KEY_SIZE=2048: counts are not tokens.
  if (kind !== 'strong' && /^\d{1,9}$/.test(value)) return true;
  // SORT_KEY=name, KEY_PREFIX=my-app: lowercase words are names, not keys.
  if (kind === 'key' && /^[a-z]+([-_][a-z]+)*$/.test(value) && value.length <= 32) return true;
  return false;
}

function isFilePath(value: string): boolean {
  if (/\s/.test(value) && !/^([A-Za-z]:\\|\/|~\/)/.test(value)) return false;
  return (
    /^(~?\/|\.{1,2}\/|[A-Za-z]:[\\/]|\\\\)[^\n]*$/.test(value) &&
    !isRandomLooking(value.split(/[\\/]/).pop() ?? '')
  );
}

/** A random-looking query value or path segment: https://x/api?key=…, https://hooks.x/T0/B0/… */
function urlHasRandomPart(value: string): boolean {
  return urlRandomPartSpan(value) !== undefined;
}

/**
 * Offsets (in the URL as written) of its first secret part: a query value that is random-looking, a
 * known token or under a secret-like parameter name (?api_key=…), or a random-looking path segment.
 */
function urlRandomPartSpan(value: string): [number, number] | undefined {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)([^?#]*)(\?[^#]*)?/i.exec(value);
  if (!m) return undefined;
  const pathAt = (m[1] ?? '').length;
  const path = m[2] ?? '';
  const query = m[3] ?? '';
  const queryAt = pathAt + path.length;
  for (const p of query.matchAll(/[?&]([^=&#]*)=([^&#]*)/g)) {
    const name = decodeSafely(p[1] ?? '');
    const raw = p[2] ?? '';
    const decoded = decodeSafely(raw);
    const kind = secretKeyKind(name);
    if (
      raw !== '' &&
      !/^\$\{(secret|env):[^}]*\}$/.test(raw) &&
      (isRandomLooking(decoded) ||
        knownSecretFormat(decoded) !== undefined ||
        (kind !== undefined && !isHarmlessUnderSecretKey(decoded, kind)))
    ) {
      const start = queryAt + p.index + p[0].length - raw.length;
      return [start, start + raw.length];
    }
  }
  for (const seg of path.matchAll(/[^/]+/g)) {
    const decoded = decodeSafely(seg[0]);
    if (isRandomLooking(decoded) || knownSecretFormat(decoded) !== undefined) {
      return [pathAt + seg.index, pathAt + seg.index + seg[0].length];
    }
  }
  return undefined;
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** Offsets of the password in the first URL with one ("postgres://user:pw@host"), as written. */
function urlPasswordSpan(text: string): [number, number] | undefined {
  for (const m of text.matchAll(/[a-z][a-z0-9+.-]*:\/\/[^/@\s:]*:([^/@\s]+)@/gi)) {
    const password = m[1] ?? '';
    if (password === '' || /^\$\{(secret|env):[^}]*\}$/.test(password)) continue;
    const end = m.index + m[0].length - 1;
    return [end - password.length, end];
  }
  return undefined;
}

function hasUrlPassword(value: string): boolean {
  return urlPasswordSpan(value) !== undefined;
}

/** Formats that are secrets whatever their name says, so they are caught under any key. */
const KNOWN_FORMATS: [RegExp, string][] = [
  [/\bgh[pousr]_[A-Za-z0-9]{30,}/, 'a GitHub token'],
  [/\bgithub_pat_[A-Za-z0-9_]{40,}/, 'a GitHub token'],
  [/\bglpat-[A-Za-z0-9_-]{20,}/, 'a GitLab token'],
  [/\bsk-(ant-|proj-|live-)?[A-Za-z0-9_-]{20,}/, 'an API secret key (sk-…)'],
  [/\b[sr]k_(live|test)_[A-Za-z0-9]{16,}/, 'a Stripe key'],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/, 'a Slack token'],
  [/\b(AKIA|ASIA)[0-9A-Z]{16}\b/, 'an AWS access key'],
  [/\bAIza[0-9A-Za-z_-]{35}\b/, 'a Google API key'],
  [/\bhf_[A-Za-z0-9]{30,}/, 'a Hugging Face token'],
  [/\bnpm_[A-Za-z0-9]{36}\b/, 'an npm token'],
  [/\bshp(at|ca|pa|ss)_[a-fA-F0-9]{32}\b/, 'a Shopify token'],
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/, 'a JSON Web Token'],
  [/-----BEGIN ([A-Z]+ )*PRIVATE KEY-----/, 'a private key'],
];

function knownSecretFormat(value: string): string | undefined {
  for (const [pattern, what] of KNOWN_FORMATS) if (pattern.test(value)) return what;
  return undefined;
}

/** Shannon entropy in bits per character. */
export function shannonEntropy(value: string): number {
  if (value.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  const n = [...value].length;
  for (const c of counts.values()) {
    const p = c / n;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * Random-looking = long, from a token alphabet, high Shannon entropy, and not made of words.
 * Entropy alone cannot tell "MyCompanyInternalServer2024" or "claude-3-5-sonnet-20241022" (names,
 * 3.8–4.0 bits/char) from a 20-character random key (~4.0), so two shape measures back it up: how much
 * of the text is word-like runs ("Server", "name", "2024": ≥ 0.55 for names, ~0.2 for random base62)
 * and how often neighbouring characters switch between lower case, upper case and digits (≤ 0.25 for
 * names, ~0.4 for random text). Thresholds, measured on 5,000 random keys per shape:
 * - hex needs 32+ characters (a 128-bit key) and ≥ 3.0 bits/char: random hex scores ~3.6 (max 4),
 *   "deadbeef…" repetition ~2.2. Shorter hex (short commit hashes, colours, ids) is never flagged.
 * - other token alphabets (base64/base62, "-", "_") need 20+ characters, ≥ 3.5 bits/char (random
 *   base62 of 20 scores 3.65 at the 1st percentile; "production" 3.1), word coverage < 0.5 or switch
 *   rate ≥ 0.3. That flags ~98 % of random 20-character base62 keys and > 99 % of 40-character ones,
 *   and none of the names, versions, model ids and hostnames in the tests' table.
 * - letters must mix with digits, or both cases must appear: dash-joined lowercase words are names.
 * Known formats (ghp_, sk-, AKIA…) are matched before this, and paths and URLs are split out, so
 * "/home/me/projects" is never judged as a token. A random key under a secret-like name is caught by
 * the name alone; this is the backstop for keys under innocent names.
 */
export function isRandomLooking(word: string): boolean {
  const w = word.replace(/^["'`]+|["'`,;]+$/g, '');
  if (/^[0-9a-fA-F]{32,}$/.test(w)) return /[0-9]/.test(w) && /[a-fA-F]/.test(w) && shannonEntropy(w) >= 3.0;
  // "=" only as base64 padding: "A=B" is an assignment, not a token.
  if (w.length < 20 || !/^[A-Za-z0-9+/_.~-]+=*$/.test(w)) return false;
  const digits = /[0-9]/.test(w);
  const upper = /[A-Z]/.test(w);
  const lower = /[a-z]/.test(w);
  if (!(lower || upper)) return false;
  if (!digits && !(upper && lower)) return false;
  return shannonEntropy(w) >= 3.5 && (wordCoverage(w) < 0.5 || classSwitchRate(w) >= 0.3);
}

/** Share of the text made of word-like runs: "Server", "name", "2024". */
export function wordCoverage(value: string): number {
  let covered = 0;
  for (const m of value.matchAll(/[A-Z]?[a-z]{3,}|[0-9]{4,}/g)) covered += m[0].length;
  return value.length === 0 ? 0 : covered / value.length;
}

/** Share of neighbouring letter/digit pairs whose class (lower, upper, digit) differs. */
export function classSwitchRate(value: string): number {
  const cls = (c: string) =>
    c >= 'a' && c <= 'z' ? 1 : c >= 'A' && c <= 'Z' ? 2 : c >= '0' && c <= '9' ? 3 : 0;
  let pairs = 0;
  let switches = 0;
  for (let i = 1; i < value.length; i++) {
    const a = cls(value[i - 1] ?? '');
    const b = cls(value[i] ?? '');
    if (a === 0 || b === 0) continue;
    pairs++;
    // Upper then lower is how every capitalised word starts ("My", "Server"): not a switch.
    if (a !== b && !(a === 2 && b === 1)) switches++;
  }
  return pairs === 0 ? 0 : switches / pairs;
}
