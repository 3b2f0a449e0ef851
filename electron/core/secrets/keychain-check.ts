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
