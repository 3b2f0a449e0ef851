import { UserError } from '../errors.ts';
import { argSetting } from './detect.ts';
import type { Keychain } from './keychain.ts';

// The names secrets get in the keychain when Switchboard stores them for the person (`secret move`,
// literals stored on add, the catalog's secret fields).

/**
 * `base`, or base-2, base-3…: the first name free in the keychain or already holding this value (an
 * existing secret with the same value is simply reused, never overwritten).
 */
export async function freeSecretName(keychain: Keychain, base: string, value: string): Promise<string> {
  for (let n = 1; n < 100; n++) {
    const suffix = n === 1 ? '' : `-${n}`;
    const candidate = base.slice(0, 64 - suffix.length) + suffix;
    if ((await keychain.held(candidate, value)) !== 'other') return candidate;
  }
  throw new UserError(`could not find a free keychain name for ${base}`, {
    hint: 'name it yourself (switchboard secret move SERVER KEY NAME), or remove unused ones: switchboard secret list / rm',
  });
}

/**
 * What a secret in args[index] is named after: what it sets (the flag's name, api-key; the variable of
 * `-e API_KEY=…`; the header of `-H "Authorization: …"`), else arg-<index>.
 */
export function argNameHint(args: readonly unknown[], index: number): string {
  return argSetting(args, index)?.name ?? `arg-${index}`;
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
