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
}
