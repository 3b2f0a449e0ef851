import { existsSync } from 'node:fs';
import { readServerValue, setServerValue } from '../config/edit.ts';
import { UserError } from '../errors.ts';
import { assertSecretName, type Keychain } from './keychain.ts';
import { hasReference, secretReference } from './references.ts';

export interface MoveSecretOptions {
  serversFile: string;
  keychain: Keychain;
  server: string;
  /** the env variable (stdio server) or header (remote server) holding the literal */
  key: string;
  /** keychain name to store it under; default `<server>-<key>`, lowercased */
  secretName?: string;
}

/** "Bearer abc" → keep "Bearer " in the file, store "abc". */
const AUTH_SCHEME = /^((?:bearer|basic|token|bot|digest|apikey)\s+)(\S[\s\S]*)$/i;

/**
 * The one-step fix for a literal secret in servers.json: store the value in the keychain and write
 * `${secret:NAME}` in its place (comments and formatting kept). Returns the secret's name.
 * The keychain is written first: if that fails, servers.json is not touched. If the file cannot be
 * written afterwards, a secret created here is removed again.
 */
export async function moveSecret(options: MoveSecretOptions): Promise<string> {
  const { serversFile, keychain, server } = options;
  if (!existsSync(serversFile)) throw new UserError(`there is no servers file at ${serversFile}`);
  const config = readServerValue(serversFile, server);
  if (config === undefined) throw new UserError(`no server named "${server}" in ${serversFile}`);
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new UserError(`${serversFile}: server "${server}" is not a JSON object`);
  }

  const field = 'url' in config ? 'headers' : 'env';
  const label = field === 'env' ? 'env variable' : 'header';
  const record = (config as Record<string, unknown>)[field];
  const entries =
    typeof record === 'object' && record !== null && !Array.isArray(record) ? Object.entries(record) : [];
  // Header names are case-insensitive: `authorization` finds "Authorization".
  const match =
    entries.find(([k]) => k === options.key) ??
    (field === 'headers' ? entries.find(([k]) => k.toLowerCase() === options.key.toLowerCase()) : undefined);
  if (!match) {
    const known = entries.map(([k]) => k).join(', ');
    throw new UserError(`server "${server}" has no ${label} "${options.key}"`, {
      hint: known
        ? `${field === 'env' ? 'its env variables' : 'its headers'}: ${known}`
        : `it has no ${field} at all`,
    });
  }
  const [key, current] = match;
  if (typeof current !== 'string') throw new UserError(`server "${server}": ${label} ${key} is not a string`);
  if (hasReference(current)) {
    throw new UserError(
      `server "${server}": ${label} ${key} already uses a \${secret:…} or \${env:…} reference`,
      {
        hint: 'nothing to move',
      },
    );
  }
  if (current.trim() === '')
    throw new UserError(`server "${server}": ${label} ${key} is empty; there is nothing to move`);

  const scheme = AUTH_SCHEME.exec(current);
  const prefix = scheme?.[1] ?? '';
  const secret = scheme?.[2] ?? current;

  const name = await chooseName(options, key, secret);
  const existed = (await keychain.get(name)) !== undefined;
  if (!existed) await keychain.set(name, secret);

  try {
    setServerValue(serversFile, server, [field, key], prefix + secretReference(name), {
      ifCurrentValue: current,
    });
  } catch (err) {
    if (!existed) await keychain.delete(name).catch(() => false);
    throw err;
  }
  return name;
}

/**
 * The name to store under. An explicit name that already holds a different value is refused (never
 * overwrite someone's secret); a derived one gets a numeric suffix instead. An existing secret with
 * the same value is simply reused.
 */
async function chooseName(options: MoveSecretOptions, key: string, secret: string): Promise<string> {
  if (options.secretName !== undefined) {
    assertSecretName(options.secretName);
    const existing = await options.keychain.get(options.secretName);
    if (existing !== undefined && existing !== secret) {
      throw new UserError(`the keychain already has a different secret named "${options.secretName}"`, {
        hint: 'choose another name, or remove that one first: switchboard secret rm ' + options.secretName,
      });
    }
    return options.secretName;
  }
  const base = defaultSecretName(options.server, key);
  for (let n = 1; n < 100; n++) {
    const suffix = n === 1 ? '' : `-${n}`;
    const candidate = base.slice(0, 64 - suffix.length) + suffix;
    const existing = await options.keychain.get(candidate);
    if (existing === undefined || existing === secret) return candidate;
  }
  throw new UserError(`could not find a free secret name for ${options.server} ${key}`, {
    hint: 'give one explicitly: switchboard secret move SERVER KEY NAME',
  });
}

/** `<server>-<key>`, lowercased, with anything outside [a-z0-9_.-] turned into "-". */
export function defaultSecretName(server: string, key: string): string {
  const name = `${server}-${key}`
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 64);
  return name === '' ? 'secret' : name;
}
