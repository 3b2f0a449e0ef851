// The child keychain-check.ts starts (missingKeychainInChild): asks the OS keychain once and prints
// what is missing as one JSON line (MissingKeychain), or nothing when there is a keychain.
import { missingKeychain, type MissingKeychain } from './keychain-check.ts';
import { OsKeychain } from './keychain.ts';

void missingKeychain(new OsKeychain()).then((err) => {
  if (err)
    process.stdout.write(JSON.stringify({ reason: err.reason, hint: err.hint } satisfies MissingKeychain));
});
