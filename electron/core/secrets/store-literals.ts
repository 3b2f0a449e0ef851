import type { SecretFinding } from './detect.ts';
import { UserError } from '../errors.ts';
import { KeychainError, type Keychain } from './keychain.ts';
import { argNameHint, defaultSecretName, freeSecretName } from './secret-names.ts';
import { secretReference } from './references.ts';

export interface StoredSecret {
  /** keychain name */
  name: string;
  /** where it was: the env variable or header, `args[N]` or `url` */
  key: string;
  /** the value as it appears inside a JSON string, to find and scrub copies of it in files */
  raw: string;
  /** false when a secret of that name already held this value (it was reused, not written) */
  created: boolean;
}

/**
 * Moves each literal secret found in a config that is not written anywhere yet (an import, `add`)
 * into the keychain and puts `${secret:NAME}` in its place, so the config only ever reaches a file
 * with references. Mutates `config`; returns what was stored.
 */
export async function storeLiteralSecrets(
  server: string,
  config: Record<string, unknown>,
  findings: readonly SecretFinding[],
  keychain: Keychain,
): Promise<StoredSecret[]> {
  const stored: StoredSecret[] = [];
  for (const finding of findings) {
    const current = valueAt(config, finding.path);
    if (current === undefined) continue;
    const secret = current.slice(finding.start, finding.end);
    let name: string;
    let created: boolean;
    try {
      name = await freeSecretName(keychain, defaultSecretName(server, nameHint(config, finding)), secret);
      created = (await keychain.held(name, secret)) === 'none';
      if (created) await keychain.set(name, secret);
    } catch (err) {
      // Storing is what this is for, whichever keychain call (a look-up first) failed.
      if (!(err instanceof KeychainError)) throw err;
      throw new UserError(
        `could not store ${finding.key} of server "${server}" in the keychain: ${err.reason}`,
        {
          ...(err.hint ? { hint: err.hint } : {}),
          cause: err,
        },
      );
    }
    setValueAt(
      config,
      finding.path,
      current.slice(0, finding.start) + secretReference(name) + current.slice(finding.end),
    );
    stored.push({ name, key: finding.key, raw: JSON.stringify(secret).slice(1, -1), created });
  }
  return stored;
}

/** What a secret is named after: the env variable or header, the flag before it (api-key), or "url". */
function nameHint(config: Record<string, unknown>, finding: SecretFinding): string {
  if (finding.field !== 'args' || !Array.isArray(config.args)) return finding.key;
  return argNameHint(config.args, Number(finding.path[1]));
}

/** The string at a finding's path (["env", "X"], ["args", 2], ["url"]), if it is one. */
function valueAt(config: Record<string, unknown>, path: readonly (string | number)[]): string | undefined {
  let at: unknown = config;
  for (const step of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string | number, unknown>)[step];
  }
  return typeof at === 'string' ? at : undefined;
}

function setValueAt(
  config: Record<string, unknown>,
  path: readonly (string | number)[],
  value: string,
): void {
  let at: unknown = config;
  for (const step of path.slice(0, -1)) at = (at as Record<string | number, unknown>)[step];
  const last = path.at(-1);
  if (last !== undefined && typeof at === 'object' && at !== null) {
    (at as Record<string | number, unknown>)[last] = value;
  }
}
