import { isAbsolute } from 'node:path';
import { displayText } from '../../../shared/display-text.ts';
import { isRemote, type ServerConfig } from '../../../shared/schema/servers.ts';
import type { LaunchConfig } from '../../../shared/schema/state.ts';
import { SECRET_NAME_PATTERN } from '../../../shared/secrets.ts';
import { UserError } from '../errors.ts';
import type { Keychain } from '../secrets/keychain.ts';
import { secretNamesUsed } from '../secrets/references.ts';
import { resolveCommand } from './resolve-command.ts';

/** A server's config as written and what it launches (a ServerEntry fits). */
export interface StartEntry {
  config: ServerConfig;
  launch: LaunchConfig;
}

/**
 * What would stop a server from starting once approved, found before the approval, so the person
 * approving sees it there ("WILL NOT START: …", the shape sandbox/words.ts gives a hidden program)
 * rather than as an error after it. The keychain is asked for names only, never for a value.
 */
export async function startBlockers(
  entry: StartEntry,
  keychain: Pick<Keychain, 'list'>,
  platform: NodeJS.Platform = process.platform,
  /** secrets the approval asks for in its own words (a project server's values not given yet) */
  askedElsewhere: readonly string[] = [],
): Promise<string[]> {
  const lines: string[] = [];
  const missing = missingCommand(entry, platform);
  if (missing) lines.push(missing);
  lines.push(...(await missingSecrets(entry, keychain, askedElsewhere)));
  return lines;
}

/**
 * A local server whose command was found nowhere. The entry's launch holds the absolute path the
 * command was found at when the config was read, or the command as written when it was not found:
 * looked at again here, so a program removed since counts too.
 */
function missingCommand(entry: StartEntry, platform: NodeJS.Platform): string | undefined {
  const { launch, config } = entry;
  if (launch.transport !== 'stdio' || isRemote(config)) return undefined;
  const at = launch.command;
  const found =
    at !== undefined &&
    isAbsolute(at) &&
    resolveCommand(at, { path: undefined, cwd: '/', platform }) !== undefined;
  if (found) return undefined;
  const written = displayText(config.command);
  const bare = !config.command.includes('/') && !(platform === 'win32' && config.command.includes('\\'));
  return bare
    ? `WILL NOT START: command not found on PATH: ${written} — install it, or give its absolute path in "command"`
    : `WILL NOT START: command not found: ${written} — check that it is installed and the path is right`;
}

/** Each ${secret:NAME} the config uses that the keychain does not hold. */
async function missingSecrets(
  entry: StartEntry,
  keychain: Pick<Keychain, 'list'>,
  askedElsewhere: readonly string[],
): Promise<string[]> {
  const used = secretNamesUsed(entry.config).filter((name) => !askedElsewhere.includes(name));
  if (used.length === 0) return [];
  let stored: Set<string>;
  try {
    stored = new Set(await keychain.list());
  } catch (err) {
    // A keychain that cannot be read (locked, no Secret Service) says why when the server starts;
    // here it is only not known whether the secrets are there.
    if (err instanceof UserError) return [];
    throw err;
  }
  return used
    .filter((name) => !stored.has(name))
    .map((name) => {
      const shown = displayText(name);
      return SECRET_NAME_PATTERN.test(name)
        ? `WILL NOT START: keychain secret "${shown}" is not stored — set it with \`switchboard secret set ${name}\``
        : `WILL NOT START: "${shown}" is not a valid secret name — fix the \${secret:…} reference in servers.json`;
    });
}
