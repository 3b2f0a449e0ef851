import { isRemote } from '../../shared/schema/servers.ts';
import { UserError } from './errors.ts';
import { makePrivateDir } from './fs/private-home.ts';
import { serverDataDir } from './home.ts';
import type { Keychain } from './secrets/keychain.ts';
import { resolveRecord, resolveValue } from './secrets/references.ts';
import type { ServerEntry } from './server-entry.ts';
import type { Program } from './sandbox/sandboxes.ts';
import type { StoredLaunch } from './store/package-service.ts';
import { baseEnvironment } from './supervisor/base-env.ts';
import type { LaunchPlan, SandboxRun } from './supervisor/types.ts';
import { realCommand, resolveCommand } from './trust/resolve-command.ts';

/** The command would run another program than the approved one: it must be approved again. */
export class CommandChangedError extends UserError {
  constructor(message: string, hint: string) {
    super(message, { hint });
    this.name = 'CommandChangedError';
  }
}

export interface LaunchDeps {
  keychain: Keychain;
  env: NodeJS.ProcessEnv;
  commandPath: string | undefined;
  platform: NodeJS.Platform;
  /** the home's root: where a relative command of a server without `cwd` is looked up (as at approval) */
  home: string;
  /** HomePaths.data: a server without `cwd` runs in its own folder there (serverDataDir, made 0700) */
  data: string;
  /** puts the program into the server's OS sandbox (absent: it runs as is); `stored`: its store install */
  sandbox?: (
    entry: ServerEntry,
    program: Program,
    stored?: string,
  ) => Promise<{ program: Program; run?: SandboxRun }>;
}

/**
 * Resolves an approved server into what to spawn or connect to, at the last moment and only in
 * memory: the command's absolute path, ${secret:…} from the keychain and ${env:…} from the environment.
 * `stored`: a package-run server's install in the store, which runs instead of the package runner
 * (its own arguments stay as written).
 */
export async function prepareLaunch(
  entry: ServerEntry,
  deps: LaunchDeps,
  stored?: StoredLaunch,
): Promise<LaunchPlan> {
  const { config, name } = entry;
  const context = { keychain: deps.keychain, env: deps.env, server: name };
  if (isRemote(config)) {
    const headers = await resolveRecord(config.headers, { ...context, field: 'header' });
    const url = await resolveValue(config.url, 'url', { ...context, field: 'url' });
    return {
      transport: 'http',
      url: url.value,
      headers: headers.values,
      protocol: config.type === 'sse' ? 'sse' : config.type === undefined ? 'auto' : 'streamable-http',
      redact: [...new Set([...headers.secrets, ...url.secrets])],
    };
  }
  const command = resolveCommand(config.command, {
    path: deps.commandPath,
    pathExt: deps.env.PATHEXT,
    cwd: config.cwd ?? deps.home,
    platform: deps.platform,
  });
  if (!command) {
    throw new UserError(`server "${name}": command "${config.command}" was not found`, {
      hint: 'install it, or give its absolute path in "command"',
    });
  }
  const approved = entry.launch.realCommand ?? entry.launch.command;
  const real = realCommand(command);
  if (command !== entry.launch.command || real !== approved) {
    // PATH changed or a symlink was retargeted since approval: another program would run.
    throw new CommandChangedError(
      `server "${name}": "${config.command}" now runs ${real === command ? command : `${command} (the real file ${real})`}, not the approved ${approved ?? config.command}`,
      `approve the new program with: switchboard approve ${name}`,
    );
  }
  const env = await resolveRecord(config.env, { ...context, field: 'env' });
  // A secret in args is on the child's command line while it runs (visible to `ps` on this machine);
  // env is the better place when the server reads one, but a reference beats the literal in a file.
  const words = stored?.args ?? config.args;
  const args = await resolveRecord(Object.fromEntries(words.map((arg, i) => [`args[${i}]`, arg])), {
    ...context,
    field: 'arg',
  });
  // Never the whole environment Switchboard was started with: a short named list (base-env.ts).
  const inherited = baseEnvironment(deps.env, deps.platform);
  if (deps.commandPath) inherited.PATH = deps.commandPath;
  if (stored?.pathPrefix.length) {
    const separator = deps.platform === 'win32' ? ';' : ':';
    inherited.PATH = [...stored.pathPrefix, inherited.PATH ?? ''].filter(Boolean).join(separator);
  }
  // Without `cwd`, its own folder (never the home), made on first use, private like the rest of it:
  // where it runs and, sandboxed, the one place it may write.
  const cwd = config.cwd ?? serverDataDir({ data: deps.data }, name, deps.platform);
  if (config.cwd === undefined) makePrivateDir(cwd, deps.platform);
  const program: Program = {
    command: stored?.command ?? command,
    args: words.map((_, i) => args.values[`args[${i}]`] ?? ''),
    cwd,
    env: { ...inherited, ...env.values },
  };
  const sandboxed = deps.sandbox ? await deps.sandbox(entry, program, stored?.folder) : { program };
  return {
    transport: 'stdio',
    ...sandboxed.program,
    redact: [...new Set([...env.secrets, ...args.secrets])],
    ...(sandboxed.run ? { sandbox: sandboxed.run } : {}),
    storeFolder: stored?.folder,
  };
}
