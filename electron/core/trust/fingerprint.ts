import { createHash } from 'node:crypto';
import { isRemote, type ServerConfig } from '../../../shared/schema/servers.ts';
import type { LaunchConfig } from '../../../shared/schema/state.ts';
import { canonicalJson } from './canonical-json.ts';

/**
 * Everything that decides what runs, with references left unresolved (so no secret is ever hashed
 * or stored). `resolvedCommand` is the absolute path the command was found at, when it was found.
 */
export function launchConfigOf(config: ServerConfig, resolvedCommand: string | undefined): LaunchConfig {
  if (isRemote(config)) {
    return { transport: 'http', url: config.url, headers: config.headers };
  }
  return {
    transport: 'stdio',
    command: resolvedCommand ?? config.command,
    args: config.args,
    cwd: config.cwd,
    env: config.env,
  };
}

/** sha256 of the canonical JSON of a launch config: what an approval is bound to. */
export function fingerprintOf(launch: LaunchConfig): string {
  return createHash('sha256').update(canonicalJson(launch)).digest('hex');
}
