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
   * The PATH commands are found on, as `serve` finds it (on macOS the login shell's): a command's
   * resolved path, and with it the fingerprint an approval is bound to, is the same either way.
   */
  commandPath(): Promise<string | undefined>;
  /** Each editor's settings file, where bridge tokens are written: every sandbox hides them. */
  tokenFiles(): Promise<readonly string[]>;
  /**
   * How Claude Desktop starts the relay when this CLI writes its file: the desktop app's CLI passes the
   * app's own (the app binary as Node); from source the engine's default (this Node on the relay).
   */
  relay?: RelayCommand;
}
