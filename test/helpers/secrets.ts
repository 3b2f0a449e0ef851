import { afterEach, beforeEach } from 'vitest';
import type { Keychain } from '../../electron/core/secrets/keychain.ts';

/**
 * After each test, deletes the entries it added to `keychain` whose names end in `suffix`: only
 * this file's secrets, as other test files use the same (real) keychain at the same time.
 */
export function useSecretsCleanup(keychain: Keychain, suffix: string): void {
  let before = new Set<string>();
  beforeEach(async () => {
    before = new Set(await keychain.list());
  });
  afterEach(async () => {
    for (const name of await keychain.list())
      if (!before.has(name) && name.endsWith(suffix)) await keychain.delete(name);
  });
}
