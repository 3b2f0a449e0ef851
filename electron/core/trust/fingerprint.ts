import { createHash } from 'node:crypto';
import { isRemote, type ServerConfig } from '../../../shared/schema/servers.ts';
import type { LaunchConfig } from '../../../shared/schema/state.ts';
import { canonicalJson } from './canonical-json.ts';

/**
 * Everything that decides what runs, with references left unresolved (so no secret is ever hashed
 * or stored). `resolvedCommand` is the absolute path the command was found at, when it was found;
 * `real` the file it is with symlinks resolved, recorded only when that differs (so the fingerprint of
 * a command that is no symlink stays what it was before real files were pinned).
 */
export function launchConfigOf(
  config: ServerConfig,
  resolvedCommand: string | undefined,
  real?: string,
  sandboxGaps: readonly string[] = [],
): LaunchConfig {
  if (isRemote(config)) {
    return { transport: 'http', url: config.url, headers: config.headers };
  }
  return {
    transport: 'stdio',
    command: resolvedCommand ?? config.command,
    realCommand: real !== undefined && real !== resolvedCommand ? real : undefined,
    args: config.args,
    cwd: config.cwd,
    env: config.env,
    // The sandbox as written and what this machine cannot enforce of it: a change asks again.
    sandbox: config.sandbox,
    sandboxGaps: sandboxGaps.length ? [...sandboxGaps] : undefined,
  };
}

/** sha256 of the canonical JSON of a server's entry as written: what a recorded source is bound to. */
export function configHash(config: ServerConfig): string {
  return createHash('sha256').update(canonicalJson(config)).digest('hex');
}

/** sha256 of the canonical JSON of a launch config: what an approval is bound to. */
export function fingerprintOf(launch: LaunchConfig): string {
  return createHash('sha256').update(canonicalJson(launch)).digest('hex');
}
