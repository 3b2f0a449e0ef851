import {
  SERVER_NAME_PATTERN,
  ServerConfigSchema,
  type ServerConfigInput,
} from '../../shared/schema/servers.ts';

export const PROTOCOL = 'switchboard';
/** Links arrive from web pages; a config larger than this is not a server config. */
const MAX_LINK_LENGTH = 16 * 1024;

export type DeepLink =
  | { kind: 'install'; name: string; config: ServerConfigInput }
  | { kind: 'open'; view: string | undefined }
  | { kind: 'invalid'; message: string };

/**
 * Parses `switchboard://install?name=N&config=<base64url JSON>` and `switchboard://open[?view=V]`.
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
    return invalid(`unknown action "${action.slice(0, 40)}" (expected install or open)`);

  const name = url.searchParams.get('name');
  if (!name) return invalid('the install link has no server name (name=…)');
  if (!SERVER_NAME_PATTERN.test(name)) {
    return invalid(
      `"${name.slice(0, 60)}" cannot be a server name: use letters, digits, "-" and "_" (at most 48)`,
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
  const parsed = ServerConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` (${issue.path.join('.')})` : '';
    return invalid(
      `the install link for "${name}" has an invalid configuration${where}: ${issue?.message ?? 'unknown problem'}`,
    );
  }
  return { kind: 'install', name, config: json as ServerConfigInput };
}

/** Builds an install link, for docs, tests and "share this server". */
export function installLink(name: string, config: ServerConfigInput): string {
  const encoded = Buffer.from(JSON.stringify(config), 'utf8').toString('base64url');
  return `${PROTOCOL}://install?name=${encodeURIComponent(name)}&config=${encoded}`;
}

/** The deep link among a second instance's argv (Windows/Linux deliver links as arguments). */
export function deepLinkFromArgv(argv: readonly string[]): string | undefined {
  return argv.find((arg) => arg.startsWith(`${PROTOCOL}:`));
}

function invalid(message: string): DeepLink {
  return { kind: 'invalid', message: `Switchboard cannot use this link: ${message}.` };
}
