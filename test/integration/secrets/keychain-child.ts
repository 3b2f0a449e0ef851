// Run by keychain.test.ts in a child process, so that it can point the D-Bus session bus somewhere
// else (the address is read when the keychain library connects). Prints what a CLI user would see.
import { describeError } from '../../../electron/core/errors.ts';
import { OsKeychain } from '../../../electron/core/secrets/keychain.ts';
import { moveSecret } from '../../../electron/core/config/move-secret.ts';

const [action = '', arg = ''] = process.argv.slice(2);
const keychain = new OsKeychain();
try {
  switch (action) {
    case 'set':
      await keychain.set(arg, process.env.CANARY ?? '');
      break;
    case 'get':
      await keychain.get(arg);
      break;
    case 'list':
      await keychain.list();
      break;
    case 'move':
      await moveSecret({ serversFile: arg, keychain, server: 'github', key: 'GITHUB_TOKEN' });
      break;
    default:
      throw new Error(`unknown action ${action}`);
  }
  console.log('ok');
} catch (err) {
  console.error(describeError(err));
  process.exitCode = 1;
}
