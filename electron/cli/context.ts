import type { RelayCommand } from '../core/editors/types.ts';
import type { Keychain } from '../core/secrets/keychain.ts';
import type { HomePaths } from '../core/home.ts';
import type { Output } from './output.ts';

/** Everything a command touches, passed in so tests run the CLI in-process against temp homes. */
export interface CliContext {
  home: HomePaths;
  env: NodeJS.ProcessEnv;
  output: Output;
  stdin: NodeJS.ReadableStream;
  keychain(): Keychain;
  /**
   * How Claude Desktop starts the relay when this CLI writes its file: the desktop app's CLI passes the
   * app's own (the app binary as Node); from source the engine's default (this Node on the relay).
   */
  relay?: RelayCommand;
}
