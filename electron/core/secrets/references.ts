import { SECRET_NAME_PATTERN } from '../../../shared/secrets.ts';
import { UserError } from '../errors.ts';
import type { Keychain } from './keychain.ts';

/**
 * `${secret:NAME}` takes NAME from the OS keychain, `${env:NAME}` from Switchboard's environment.
 * Either may sit anywhere inside a value ("Bearer ${secret:docs}"), several to a value. Anything else
 * that looks like `${…}` is left as written, except a misspelt `${secret:…}`/`${env:…}`, which is an
 * error rather than a literal that would reach the server unresolved.
 */
export type ReferenceKind = 'secret' | 'env';

export interface Reference {
  kind: ReferenceKind;
  name: string;
  /** offsets of the whole `${…}` in the value */
  start: number;
  end: number;
}

/** Where a reference was found in a server's config. */
export interface ServerReference {
  kind: ReferenceKind;
  name: string;
  field: 'env' | 'headers' | 'args' | 'url';
  /** the env variable or header, `args[N]` or `url` */
  key: string;
}

const REFERENCE = /\$\{(secret|env):([^}]*)\}/g;
/**
 * Anything that reads as a `${secret:…}`/`${env:…}`, also malformed or unterminated: what a value
 * from elsewhere (an install link, a registry entry) may never carry, since it would borrow one of
 * the person's secrets or environment variables.
 */
export const REFERENCE_LIKE = /\$\{(?:secret|env):[^}]*\}?/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** the start of a reference whose closing brace never comes */
const UNTERMINATED = /\$\{(secret|env):[^}]*$/;

export class ReferenceSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReferenceSyntaxError';
  }
}

/** All references in a value, in order. Throws ReferenceSyntaxError for a malformed one. */
export function parseReferences(value: string): Reference[] {
  const found: Reference[] = [];
  for (const match of value.matchAll(REFERENCE)) {
    const kind = match[1] as ReferenceKind;
    const name = match[2] ?? '';
    const valid = kind === 'secret' ? SECRET_NAME_PATTERN.test(name) : ENV_NAME.test(name);
    if (!valid) {
      throw new ReferenceSyntaxError(
        kind === 'secret'
          ? `"\${secret:${name}}" is not a valid secret reference: names use 1 to 64 letters, digits, ".", "-" or "_"`
          : `"\${env:${name}}" is not a valid environment reference: names use letters, digits and "_" and do not start with a digit`,
      );
    }
    found.push({ kind, name, start: match.index, end: match.index + match[0].length });
  }
  const tail = found.length > 0 ? value.slice(found[found.length - 1]?.end) : value;
  const open = UNTERMINATED.exec(tail);
  if (open) throw new ReferenceSyntaxError(`"${open[0]}" is missing its closing "}"`);
  return found;
}

/** Lenient form for display and detection: malformed references count as literal text. */
export function findReferences(value: string): Reference[] {
  try {
    return parseReferences(value);
  } catch {
    return [];
  }
}

export function hasReference(value: string): boolean {
  return findReferences(value).length > 0;
}

/** True when the whole value is one reference, e.g. "${secret:github-token}". */
export function isWholeReference(value: string): boolean {
  const refs = findReferences(value);
  return refs.length === 1 && refs[0]?.start === 0 && refs[0].end === value.length;
}

/** The value with every reference cut out: what was written literally. */
export function literalParts(value: string): string {
  let out = '';
  let at = 0;
  for (const ref of findReferences(value)) {
    out += value.slice(at, ref.start);
    at = ref.end;
  }
  return out + value.slice(at);
}

export function secretReference(name: string): string {
  return `\${secret:${name}}`;
}

interface ConfigWithValues {
  env?: Record<string, string> | undefined;
  headers?: Record<string, string> | undefined;
  args?: readonly string[] | undefined;
  url?: string | undefined;
}

/** Every reference a server's config uses: in env, args (stdio) and url, headers (remote). */
export function listReferences(config: ConfigWithValues): ServerReference[] {
  const out: ServerReference[] = [];
  const add = (field: ServerReference['field'], key: string, value: string) => {
    for (const ref of findReferences(value)) out.push({ kind: ref.kind, name: ref.name, field, key });
  };
  for (const field of ['env', 'headers'] as const) {
    for (const [key, value] of Object.entries(config[field] ?? {})) add(field, key, value);
  }
  (config.args ?? []).forEach((arg, index) => add('args', `args[${index}]`, arg));
  if (config.url !== undefined) add('url', 'url', config.url);
  return out;
}

/** The keychain secret names a server needs, sorted and without repeats. */
export function secretNamesUsed(config: ConfigWithValues): string[] {
  const names = new Set(listReferences(config).flatMap((r) => (r.kind === 'secret' ? [r.name] : [])));
  return [...names].sort();
}

export interface ResolveContext {
  keychain: Keychain;
  env: Record<string, string | undefined>;
  /** server name, for error messages */
  server: string;
  /** what the values are, for error messages: "env GITHUB_TOKEN", "header Authorization", "arg 3" */
  field: 'env' | 'header' | 'arg' | 'url';
  /** platform whose environment rules apply (Windows names are case-insensitive); default process.platform */
  platform?: NodeJS.Platform;
}

export interface ResolvedValue {
  value: string;
  /** secret values that went into it, for redacting logs and server output */
  secrets: string[];
}

export interface ResolvedRecord {
  values: Record<string, string>;
  /** every secret value used, without repeats */
  secrets: string[];
}

/**
 * Resolves the references in one value. Only call this at spawn/connect time and keep the result in
 * memory: it holds secret values.
 */
export async function resolveValue(
  value: string,
  key: string,
  context: ResolveContext,
): Promise<ResolvedValue> {
  const cache = new Map<string, Promise<string | undefined>>();
  return resolveWith(value, key, context, cache);
}

/** Resolves every value of an env or headers record; each secret is read from the keychain once. */
export async function resolveRecord(
  record: Record<string, string>,
  context: ResolveContext,
): Promise<ResolvedRecord> {
  const cache = new Map<string, Promise<string | undefined>>();
  const values: Record<string, string> = {};
  const secrets = new Set<string>();
  for (const [key, value] of Object.entries(record)) {
    const resolved = await resolveWith(value, key, context, cache);
    values[key] = resolved.value;
    for (const s of resolved.secrets) secrets.add(s);
  }
  return { values, secrets: [...secrets] };
}

async function resolveWith(
  value: string,
  key: string,
  context: ResolveContext,
  cache: Map<string, Promise<string | undefined>>,
): Promise<ResolvedValue> {
  // "env GITHUB_TOKEN", "header Authorization", "args[3]", "url"
  const where = `server "${context.server}": ${context.field === 'arg' || context.field === 'url' ? key : `${context.field} ${key}`}`;
  let refs: Reference[];
  try {
    refs = parseReferences(value);
  } catch (err) {
    throw new UserError(`${where}: ${(err as Error).message}`, {
      hint: 'write secrets as ${secret:NAME} and environment variables as ${env:NAME}',
    });
  }
  let out = '';
  let at = 0;
  const secrets: string[] = [];
  for (const ref of refs) {
    out += value.slice(at, ref.start);
    at = ref.end;
    if (ref.kind === 'env') {
      const resolved = lookupEnv(context.env, ref.name, context.platform ?? process.platform);
      if (resolved === undefined) {
        throw new UserError(
          `${where} uses \${env:${ref.name}}, but ${ref.name} is not set in Switchboard's environment`,
          {
            hint:
              `set ${ref.name} in the environment Switchboard starts from (apps started from the desktop do not see ` +
              `your shell's exports), or store the value in the keychain — run: switchboard secret set NAME — and use \${secret:NAME}`,
          },
        );
      }
      out += resolved;
      continue;
    }
    let pending = cache.get(ref.name);
    if (!pending) {
      pending = context.keychain.get(ref.name);
      cache.set(ref.name, pending);
    }
    let secret: string | undefined;
    try {
      secret = await pending;
    } catch (err) {
      if (err instanceof UserError)
        throw new UserError(`${where}: ${err.message}`, { hint: err.hint, cause: err });
      throw err;
    }
    if (secret === undefined) {
      throw new UserError(
        `${where} uses \${secret:${ref.name}}, but the keychain has no secret named "${ref.name}"`,
        {
          hint: `run: switchboard secret set ${ref.name}`,
        },
      );
    }
    out += secret;
    if (secret !== '' && !secrets.includes(secret)) secrets.push(secret);
  }
  return { value: out + value.slice(at), secrets };
}

function lookupEnv(
  env: Record<string, string | undefined>,
  name: string,
  platform: NodeJS.Platform,
): string | undefined {
  const exact = env[name];
  if (exact !== undefined || platform !== 'win32') return exact;
  const upper = name.toUpperCase();
  for (const [k, v] of Object.entries(env)) if (k.toUpperCase() === upper && v !== undefined) return v;
  return undefined;
}
