import { Core } from '../core/core.ts';
import type { CliContext } from './context.ts';

/** The core over the files alone, for commands run while no `switchboard serve` is running. */
export function offlineCore(ctx: CliContext): Core {
  const core = new Core({ home: ctx.home, keychain: ctx.keychain(), env: ctx.env });
  core.load();
  return core;
}
