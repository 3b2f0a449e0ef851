import { isRegistryName, REGISTRY_VERSION_PATTERN } from '../../shared/catalog.ts';
import { displayText, hasHiddenCharacters } from '../../shared/display-text.ts';
import {
  SERVER_NAME_PATTERN,
  ServerConfigSchema,
  type ServerConfigInput,
} from '../../shared/schema/servers.ts';
import { REFERENCE_LIKE } from '../core/secrets/references.ts';

export const PROTOCOL = 'switchboard';
/** Links arrive from web pages; a config larger than this is not a server config. */
const MAX_LINK_LENGTH = 16 * 1024;

export type DeepLink =
  | { kind: 'install'; name: string; config: ServerConfigInput }
  /** a server of the MCP Registry: opens its page in the Catalog, where installing asks what it needs */
  | { kind: 'install-registry'; registry: string; version: string | undefined }
  | { kind: 'open'; view: string | undefined }
  | { kind: 'invalid'; message: string };

/**
 * Parses `switchboard://install?name=N&config=<base64url JSON>`, `switchboard://install?registry=NAME
 * [&version=V]` (a server of the MCP Registry) and `switchboard://open[?view=V]`.
 * Anything else is `invalid` with a message a person can act on; nothing here runs or writes.
 * An install only ever adds a server as pending approval: the link cannot approve itself.
 */
export function parseDeepLink(link: string): DeepLink {
  if (link.length > MAX_LINK_LENGTH) return invalid('the link is too long to be a server configuration');
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return invalid('this is not a valid link');
  }
  if (url.protocol !== `${PROTOCOL}:`) return invalid(`not a ${PROTOCOL}:// link`);
  // switchboard://install?… parses with "install" as the host; switchboard:install?… as the path.
  const action = (url.host || url.pathname).replace(/^\/+|\/+$/g, '');
  if (action === 'open') {
    const view = url.searchParams.get('view') ?? undefined;
    return { kind: 'open', view: view && /^[a-z-]{1,32}$/.test(view) ? view : undefined };
  }
  if (action !== 'install')
    return invalid(`unknown action "${displayText(action.slice(0, 40))}" (expected install or open)`);

  const registry = url.searchParams.get('registry');
  if (registry !== null) return registryLink(registry, url.searchParams);
  const name = url.searchParams.get('name');
  if (!name) return invalid('the install link has no server name (name=…)');
  if (!SERVER_NAME_PATTERN.test(name)) {
    return invalid(
      `"${displayText(name.slice(0, 60))}" cannot be a server name: use letters, digits, "-" and "_" (at most 48)`,
    );
  }
  const encoded = url.searchParams.get('config');
  if (!encoded) return invalid(`the install link for "${name}" has no configuration (config=…)`);
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    return invalid(`the configuration in the install link for "${name}" is not base64url-encoded JSON`);
  }
  const hidden = firstString(json, hiddenCharacters);
  if (hidden) {
    return invalid(
      `the configuration in the install link for "${name}" has control, bidi, line-break or invisible ` +
        `characters ${where(hidden.path)}: "${hidden.text}". They can make what ` +
        'it runs look like something else, so such links are refused. If you trust where it came from, ' +
        'add the server by hand (Add server in Switchboard, or switchboard add)',
    );
  }
  // Before the schema, which would call a malformed reference only malformed: any reference is refused.
  const reference = firstString(json, borrowedReference);
  if (reference) {
    return invalid(
      `the install link for "${name}" uses ${reference.text} ${where(reference.path)}. A link may not use ` +
        'your keychain secrets or environment variables: once approved, the value would go to whatever ' +
        'the link runs or connects to. To use this server, add it by hand (Add server in Switchboard, or ' +
        `switchboard add ${name} …) and put in a \${secret:NAME} of your own where it needs one`,
    );
  }
  const parsed = ServerConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.length ? ` (${issue.path.join('.')})` : '';
    return invalid(
      `the install link for "${name}" has an invalid configuration${at}: ${issue?.message ?? 'unknown problem'}`,
    );
  }
  return { kind: 'install', name, config: json as ServerConfigInput };
}

/**
 * `?registry=NAME[&version=V]`: only a registry name and version, checked; the Catalog fetches the
 * server.json itself, shows how it runs and asks for what it needs. Nothing is written by the link.
 */
function registryLink(registry: string, params: URLSearchParams): DeepLink {
  if (params.has('config'))
    return invalid(
      'the install link names both a registry server (registry=…) and a configuration (config=…)',
    );
  if (!isRegistryName(registry)) {
    return invalid(
      `"${displayText(registry.slice(0, 80))}" is not an MCP Registry server name (like io.github.owner/server)`,
    );
  }
  const version = params.get('version') ?? undefined;
  if (version !== undefined && !REGISTRY_VERSION_PATTERN.test(version))
    return invalid(`"${displayText(version.slice(0, 40))}" is not a version of ${registry}`);
  return { kind: 'install-registry', registry, version };
}

interface Found {
  path: (string | number)[];
  text: string;
}

/** "in args[1]", "in env GITHUB_TOKEN", "in url", "in a field name" (where a person would look). */
function where(path: (string | number)[]): string {
  const [field, key] = path;
  if (field === undefined) return 'in the configuration';
  if (typeof key === 'number') return `in ${String(field)}[${key}]`;
  if (key !== undefined) return `in ${String(field)} ${displayText(key)}`;
  return `in ${displayText(String(field))}`;
}

/**
 * The first string in a link's JSON, value or key, at any depth, for which `test` gives the part to
 * show; with its path.
 */
function firstString(
  value: unknown,
  test: (text: string) => string | undefined,
  path: (string | number)[] = [],
): Found | undefined {
  if (typeof value === 'string') {
    const text = test(value);
    return text === undefined ? undefined : { path, text };
  }
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? [...value.entries()]
    : typeof value === 'object' && value !== null
      ? Object.entries(value)
      : [];
  for (const [key, item] of entries) {
    const inKey = typeof key === 'string' ? test(key) : undefined;
    if (inKey !== undefined) return { path: [...path, key], text: inKey };
    const found = firstString(item, test, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/** A string with a character displayText would escape: shown escaped. */
function hiddenCharacters(text: string): string | undefined {
  return hasHiddenCharacters(text) ? displayText(text.slice(0, 120)) : undefined;
}

/**
 * A `${secret:…}` or `${env:…}` (also a malformed one, which would fail later anyway): a link brings no
 * secrets, so any reference would borrow one of the person's.
 */
function borrowedReference(text: string): string | undefined {
  const match = REFERENCE_LIKE.exec(text);
  return match ? displayText(match[0].slice(0, 80)) : undefined;
}

/** Builds an install link, for docs, tests and "share this server". */
export function installLink(name: string, config: ServerConfigInput): string {
  const encoded = Buffer.from(JSON.stringify(config), 'utf8').toString('base64url');
  return `${PROTOCOL}://install?name=${encodeURIComponent(name)}&config=${encoded}`;
}

/** A link that opens a registry server in the Catalog (for an "Add to Switchboard" README badge). */
export function registryInstallLink(registry: string, version?: string): string {
  const query = new URLSearchParams({ registry, ...(version ? { version } : {}) });
  return `${PROTOCOL}://install?${query.toString()}`;
}

/** The deep link among a second instance's argv (Windows/Linux deliver links as arguments). */
export function deepLinkFromArgv(argv: readonly string[]): string | undefined {
  return argv.find((arg) => arg.startsWith(`${PROTOCOL}:`));
}

function invalid(message: string): DeepLink {
  return { kind: 'invalid', message: `Switchboard cannot use this link: ${message}.` };
}
