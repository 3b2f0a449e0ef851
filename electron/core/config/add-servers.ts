import { serverNameProblem, validateServerConfig } from '../../../shared/server-validation.ts';
import { UserError } from '../errors.ts';
import { findLiteralSecrets, type ConfigWithValues } from '../secrets/detect.ts';
import type { Keychain } from '../secrets/keychain.ts';
import { storeLiteralSecrets, type StoredSecret } from '../secrets/store-literals.ts';
import { readServerValue, setServers } from './edit.ts';

export interface NewServer {
  name: string;
  /** the entry as it will be written (no defaults filled in) */
  config: unknown;
}

export interface AddedServer {
  name: string;
  /** it replaced a server of that name (only with `replace`) */
  replaced: boolean;
  /** literal secrets that went to the keychain; servers.json got `${secret:NAME}` in their place */
  secrets: StoredSecret[];
}

/** One reason a server cannot be added: which server, and its name or where in its entry. */
export interface NewServerIssue {
  server: string;
  about: 'name' | 'entry';
  /** inside the entry (`["env", "TOKEN"]`; `[]`: the entry as a whole) */
  path: (string | number)[];
  message: string;
}

/** Servers that cannot be added as given; nothing was written and nothing stored. */
export class NewServersError extends UserError {
  readonly issues: NewServerIssue[];
  constructor(issues: NewServerIssue[]) {
    const first = issues[0];
    const where = first?.path.length ? `, field "${first.path.join('.')}"` : '';
    const message =
      !first || first.about === 'name' || !first.server
        ? (first?.message ?? 'invalid')
        : `server "${first.server}"${where}: ${first.message}`;
    super(message, {
      hint: issues.length > 1 ? `and ${issues.length - 1} more; nothing was added` : 'nothing was added',
    });
    this.name = 'NewServersError';
    this.issues = issues;
  }
}

export interface AddServersOptions {
  serversFile: string;
  keychain: Keychain;
  servers: readonly NewServer[];
  /** replace servers of the same name (`switchboard add`); default: refuse them */
  replace?: boolean;
}

/**
 * Adds servers to servers.json the way every adding path does (`switchboard add`, the UI's form and
 * pasted JSON): names and entries are checked with the core's own schema first, then each literal
 * secret in them goes to the keychain and the file gets only `${secret:NAME}` references — a secret
 * typed into a form never reaches the file. All of them are written in one edit, or none: any issue
 * refuses the whole batch before anything is stored, and if the file cannot be written, secrets
 * stored for it are taken out of the keychain again. Each one then waits for approval as usual.
 */
export async function addServers(options: AddServersOptions): Promise<AddedServer[]> {
  const { serversFile, keychain, servers, replace = false } = options;
  const issues = checkNewServers(serversFile, servers, replace);
  if (issues.length) throw new NewServersError(issues);

  const added: AddedServer[] = [];
  const entries: { name: string; config: Record<string, unknown> }[] = [];
  try {
    for (const server of servers) {
      // A copy: the caller's object keeps what was typed.
      const config = structuredClone(server.config) as Record<string, unknown>;
      // Checked above: env, headers and args hold strings, url is a string.
      const findings = findLiteralSecrets(config as ConfigWithValues);
      const secrets = findings.length
        ? await storeLiteralSecrets(server.name, config, findings, keychain)
        : [];
      const replaced = replace && readServerValue(serversFile, server.name) !== undefined;
      added.push({ name: server.name, replaced, secrets });
      entries.push({ name: server.name, config });
    }
    setServers(serversFile, entries);
  } catch (err) {
    for (const secret of added.flatMap((a) => a.secrets))
      if (secret.created) await keychain.delete(secret.name).catch(() => false);
    throw err;
  }
  return added;
}

/** Every reason the batch cannot be added: bad or taken names, names given twice, invalid entries. */
export function checkNewServers(
  serversFile: string,
  servers: readonly NewServer[],
  replace = false,
): NewServerIssue[] {
  const issues: NewServerIssue[] = [];
  const seen = new Set<string>();
  if (servers.length === 0)
    issues.push({ server: '', about: 'entry', path: [], message: 'there is no server to add' });
  for (const { name, config } of servers) {
    const problem = serverNameProblem(name);
    const named = (message: string) => issues.push({ server: name, about: 'name', path: [], message });
    if (problem) named(`server name "${name}": ${problem}`);
    else if (seen.has(name)) named(`"${name}" is given twice; each server needs its own name`);
    else if (!replace && readServerValue(serversFile, name) !== undefined)
      issues.push({
        server: name,
        about: 'name',
        path: [],
        message: `a server named "${name}" already exists; choose another name, or remove that one first`,
      });
    seen.add(name);
    const checked = validateServerConfig(config);
    if (!checked.ok)
      for (const issue of checked.issues) issues.push({ server: name, about: 'entry', ...issue });
  }
  return issues;
}
