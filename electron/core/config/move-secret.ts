import { existsSync } from 'node:fs';
import { readServerValue, setServerValue } from './edit.ts';
import { UserError } from '../errors.ts';
import { assertSecretName, type Keychain } from '../secrets/keychain.ts';
import { argSetting, findLiteralSecrets } from '../secrets/detect.ts';
import { hasReference, secretReference } from '../secrets/references.ts';
import { argNameHint, defaultSecretName, freeSecretName } from '../secrets/secret-names.ts';

export interface MoveSecretOptions {
  serversFile: string;
  keychain: Keychain;
  server: string;
  /** where the literal is: an env variable (stdio) or header (remote) name, `args[N]`, or `url` */
  key: string;
  /** keychain name to store it under; default `<server>-<key>`, lowercased */
  secretName?: string;
}

/** The value holding a literal secret, and which part of it is the secret. */
interface Target {
  path: (string | number)[];
  /** how people name it in messages: "env variable GITHUB_TOKEN", "args[3]", "url" */
  label: string;
  /** what the default secret name is made from: the env/header name, the flag (api-key), "url" */
  nameHint: string;
  current: string;
  start: number;
  end: number;
}

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The one-step fix for a literal secret in servers.json: store it in the keychain and write
 * `${secret:NAME}` in its place (comments and formatting kept). Only the secret moves: "Bearer ",
 * "--token=" or the URL around a password stay in the file. Returns the secret's name.
 * The keychain is written first: if that fails, servers.json is not touched. If the file cannot be
 * written afterwards, a secret created here is removed again.
 */
export async function moveSecret(options: MoveSecretOptions): Promise<string> {
  const { serversFile, keychain, server } = options;
  if (!existsSync(serversFile)) throw new UserError(`there is no servers file at ${serversFile}`);
  const config = readServerValue(serversFile, server);
  if (config === undefined) throw new UserError(`no server named "${server}" in ${serversFile}`);
  if (!isObject(config)) throw new UserError(`${serversFile}: server "${server}" is not a JSON object`);

  const target = locate(server, config, options.key);
  const secret = target.current.slice(target.start, target.end);
  const name = await chooseName(options, target.nameHint, secret);
  // `held`, never `get`: while serve runs the CLI's keychain is serve's, whose values never come out.
  const existed = (await keychain.held(name, secret)) !== 'none';
  if (!existed) await keychain.set(name, secret);

  const replaced =
    target.current.slice(0, target.start) + secretReference(name) + target.current.slice(target.end);
  try {
    setServerValue(serversFile, server, target.path, replaced, { ifCurrentValue: target.current });
  } catch (err) {
    if (!existed) await keychain.delete(name).catch(() => false);
    throw err;
  }
  return name;
}

/** Finds the value `key` names and the secret in it (as detection sees it, else the whole literal). */
function locate(server: string, config: JsonObject, key: string): Target {
  const remote = 'url' in config;
  if (key === 'url') {
    if (!remote || typeof config.url !== 'string')
      throw new UserError(`server "${server}" has no url`, { hint: 'it is a local (command) server' });
    const [found] = findLiteralSecrets({ url: config.url });
    if (!found)
      throw new UserError(`the url of server "${server}" holds no literal secret that could be moved`, {
        hint: 'put the secret in the url by hand as ${secret:NAME} after: switchboard secret set NAME',
      });
    return {
      path: ['url'],
      label: 'url',
      nameHint: 'url',
      current: config.url,
      start: found.start,
      end: found.end,
    };
  }

  const arg = /^args\[(\d+)\]$/.exec(key);
  if (arg) {
    const index = Number(arg[1]);
    const args = Array.isArray(config.args) ? config.args : [];
    const current: unknown = args[index];
    if (typeof current !== 'string')
      throw new UserError(`server "${server}" has no ${key}`, {
        hint: args.length ? `its args are args[0] to args[${args.length - 1}]` : 'it has no args',
      });
    const strings = args.map((a) => (typeof a === 'string' ? a : ''));
    const found = findLiteralSecrets({ args: strings }).find((f) => f.path[1] === index);
    const nameHint = argNameHint(strings, index);
    if (found)
      return { path: ['args', index], label: key, nameHint, current, start: found.start, end: found.end };
    return {
      path: ['args', index],
      label: key,
      nameHint,
      current,
      ...wholeLiteral(server, key, current, argSetting(strings, index)?.start ?? 0),
    };
  }

  const field = remote ? 'headers' : 'env';
  const kind = field === 'env' ? 'env variable' : 'header';
  const record = config[field];
  const entries = isObject(record) ? Object.entries(record) : [];
  // Header names are case-insensitive: `authorization` finds "Authorization".
  const match =
    entries.find(([k]) => k === key) ??
    (field === 'headers' ? entries.find(([k]) => k.toLowerCase() === key.toLowerCase()) : undefined);
  if (!match) {
    const known = entries.map(([k]) => k).join(', ');
    throw new UserError(`server "${server}" has no ${kind} "${key}"`, {
      hint: known
        ? `${field === 'env' ? 'its env variables' : 'its headers'}: ${known}`
        : `it has no ${field} at all${remote ? '' : '; for a secret in its command line use args[N]'}`,
    });
  }
  const [name, current] = match;
  const label = `${kind} ${name}`;
  if (typeof current !== 'string') throw new UserError(`server "${server}": ${label} is not a string`);
  const [found] = findLiteralSecrets({ [field]: { [name]: current } });
  if (found)
    return { path: [field, name], label, nameHint: name, current, start: found.start, end: found.end };
  const scheme = field === 'headers' ? (AUTH_SCHEME.exec(current)?.[1]?.length ?? 0) : 0;
  return {
    path: [field, name],
    label,
    nameHint: name,
    current,
    ...wholeLiteral(server, label, current, scheme),
  };
}

/** The value from `from` on, when detection found nothing but the person asked to move it anyway. */
function wholeLiteral(
  server: string,
  label: string,
  value: string,
  from: number,
): { start: number; end: number } {
  if (hasReference(value)) {
    throw new UserError(`server "${server}": ${label} already uses a \${secret:…} or \${env:…} reference`, {
      hint: 'nothing to move',
    });
  }
  const rest = value.slice(from);
  if (rest.trim() === '')
    throw new UserError(`server "${server}": ${label} is empty; there is nothing to move`);
  const start = from + (rest.length - rest.trimStart().length);
  return { start, end: value.length - (value.length - value.trimEnd().length) };
}

/** "Bearer abc" → keep "Bearer " in the file, store "abc". */
const AUTH_SCHEME = /^((?:bearer|basic|token|bot|digest|apikey)\s+)(\S[\s\S]*)$/i;

/**
 * The name to store under. An explicit name that already holds a different value is refused (never
 * overwrite someone's secret); a derived one gets a numeric suffix instead. An existing secret with
 * the same value is simply reused.
 */
async function chooseName(
  options: Pick<MoveSecretOptions, 'secretName' | 'keychain' | 'server'>,
  nameHint: string,
  secret: string,
): Promise<string> {
  if (options.secretName !== undefined) {
    assertSecretName(options.secretName);
    if ((await options.keychain.held(options.secretName, secret)) === 'other') {
      throw new UserError(`the keychain already has a different secret named "${options.secretName}"`, {
        hint: 'choose another name, or remove that one first: switchboard secret rm ' + options.secretName,
      });
    }
    return options.secretName;
  }
  return freeSecretName(options.keychain, defaultSecretName(options.server, nameHint), secret);
}
