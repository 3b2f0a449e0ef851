import { execFile } from 'node:child_process';
import { getCompileCacheDir } from 'node:module';
import { dirname } from 'node:path';
import { childScript, nodeChildEnv } from '../child-script.ts';
import { KeychainError, type Keychain } from './keychain.ts';

/** A name no secret has: looking it up touches the keychain without reading anything of the person's. */
const PROBE_NAME = 'switchboard-keychain-check';

/**
 * Whether there is a keychain to talk to at all, asked once when serve starts so that a machine without
 * one (Linux without a Secret Service) hears what to install before the first secret fails. Looking up
 * a name that does not exist needs no unlock, so this never prompts; a keychain that is merely locked
 * or slow is not reported here (the call that needs it says so). Resolves to the error to show, if any.
 */
export async function missingKeychain(
  keychain: Keychain,
  timeoutMs = 5_000,
): Promise<KeychainError | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([
      keychain.get(PROBE_NAME).then(
        () => undefined,
        (err: unknown) => (err instanceof KeychainError && err.unreachable ? err : undefined),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** What missingKeychain found, as the child process reports it. */
export interface MissingKeychain {
  reason: string;
  hint: string | undefined;
}

/**
 * missingKeychain(OsKeychain) in a short-lived child process: serve itself then loads the native
 * keychain module (~1.5 MB resident, with its D-Bus connection) only when a secret is needed, and a
 * wedged D-Bus cannot hold anything of serve's.
 */
export function missingKeychainInChild(
  timeoutMs = 10_000,
  script = childScript('keychain-check'),
): Promise<MissingKeychain | undefined> {
  // getCompileCacheDir() names the folder for this Node version inside the one enabled: the child is
  // given the enabled one, so it shares this cache (given the inner one, it would make a folder of its
  // own inside it, with the umask's mode, in the private home).
  const versioned = getCompileCacheDir();
  const cache = versioned === undefined ? undefined : dirname(versioned);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script],
      {
        timeout: timeoutMs,
        env: nodeChildEnv(cache ? { ...process.env, NODE_COMPILE_CACHE: cache } : process.env),
      },
      (err, stdout) => {
        if (err || stdout.trim() === '') return resolve(undefined);
        try {
          resolve(JSON.parse(stdout) as MissingKeychain);
        } catch {
          resolve(undefined);
        }
      },
    );
  });
}
