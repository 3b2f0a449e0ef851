// The `switchboard` command of the desktop app: its launcher (electron/desktop/cli-command.ts) runs the
// app binary as Node (ELECTRON_RUN_AS_NODE=1) on this file's bundle, .vite/cli/main.cjs
// (electron/shell/vite.cli.config.ts). The same CLI as a source install's bin.mjs; what differs is how
// Claude Desktop's relay is started when this CLI writes its file: with the app binary, as the app does.
// No electron import: this runs as plain Node.
import { join } from 'node:path';
import { desktopRelayCommand } from '../desktop/relay-command.ts';
import { endQuietlyOnClosedPipe } from '../cli/closed-pipe.mjs';
import { defaultContext, main } from '../cli/main.ts';

endQuietlyOnClosedPipe(process.argv[2]);

const context = defaultContext();
const relay = desktopRelayCommand({
  execPath: process.execPath,
  // …/resources/app.asar/.vite/cli → …/resources/app.asar
  appPath: join(import.meta.dirname, '..', '..'),
  home: context.home,
  env: process.env,
  platform: process.platform,
});
void main(process.argv.slice(2), { ...context, relay }).then((code) => {
  process.exitCode = code;
});
