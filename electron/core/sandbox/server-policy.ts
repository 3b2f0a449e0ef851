import type { StdioServerConfig } from '../../../shared/schema/servers.ts';
import type { LaunchConfig } from '../../../shared/schema/state.ts';
import { serverDataDir, type HomePaths } from '../home.ts';
import { sandboxPolicy, type SandboxPolicy } from './policy.ts';
import type { SandboxSupport } from './support.ts';

export interface PolicyContext {
  support: SandboxSupport;
  home: Pick<HomePaths, 'root' | 'data' | 'store' | 'tokens' | 'run'>;
  /** each editor's settings file, where Switchboard writes bridge tokens (from the editors' registry) */
  tokenFiles?: readonly string[] | undefined;
  /** Switchboard's environment: HOME, XDG_RUNTIME_DIR */
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
}

/** The sandbox policy of one configured local server, from its config and the command it resolved to. */
export function serverPolicy(
  name: string,
  config: StdioServerConfig,
  launch: LaunchConfig,
  context: PolicyContext,
  storedAt?: string,
  runs?: readonly string[],
): SandboxPolicy {
  return sandboxPolicy({
    name,
    setting: config.sandbox,
    command: launch.command ?? config.command,
    realCommand: launch.realCommand,
    // A stored npm package runs on the node it was pinned with, not on the npx written.
    runs: runs ?? (launch.package?.kind === 'npm' && launch.package.runtime ? [launch.package.runtime] : []),
    args: config.args,
    env: config.env,
    cwd: config.cwd,
    ownFolder: serverDataDir(context.home, name, context.platform),
    switchboardHome: context.home.root,
    storeFolder: context.home.store,
    storedAt,
    userHome: context.env.HOME,
    runtimeDir: context.env.XDG_RUNTIME_DIR,
    // tokens/ holds every token, run/ the bridge's local socket
    sealed: [context.home.tokens, context.home.run],
    tokenFiles: context.tokenFiles,
    support: context.support,
  });
}
