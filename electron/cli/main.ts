import { displayMessage, displayText } from '../../shared/display-text.ts';
import { describeError, UserError } from '../core/errors.ts';
import { makeHomePrivate } from '../core/fs/private-home.ts';
import { resolveHome } from '../core/home.ts';
import { OsKeychain } from '../core/secrets/keychain.ts';
import type { CliContext } from './context.ts';
import { machineOf } from './machine.ts';
import { asksForHelp, commandHelp, generalHelp, isCommandName, usageOf, type CommandName } from './help.ts';
import { processOutput, UsageError } from './output.ts';

type Command = (ctx: CliContext, argv: string[]) => Promise<number>;

// Each command loads only its own modules: `status` need not load the bridge, editors and UI that
// `serve` does (module loading is most of a CLI start-up).
const COMMANDS: Record<CommandName, () => Promise<Command>> = {
  serve: async () => (await import('./commands/serve.ts')).serveCommand,
  status: async () => (await import('./commands/status.ts')).statusCommand,
  approve: async () => (await import('./commands/trust.ts')).approveCommand,
  update: async () => (await import('./commands/trust.ts')).updateCommand,
  outdated: async () => (await import('./commands/store.ts')).outdatedCommand,
  store: async () => (await import('./commands/store.ts')).storeCommand,
  install: async () => (await import('./commands/install.ts')).installCommand,
  deny: async () => (await import('./commands/trust.ts')).denyCommand,
  tools: async () => (await import('./commands/tools.ts')).toolsCommand,
  start: lifecycle('start'),
  stop: lifecycle('stop'),
  restart: lifecycle('restart'),
  logs: async () => (await import('./commands/logs.ts')).logsCommand,
  add: async () => (await import('./commands/servers.ts')).addCommand,
  remove: async () => (await import('./commands/servers.ts')).removeCommand,
  grant: async () => (await import('./commands/grant.ts')).grantCommand,
  login: async () => (await import('./commands/login.ts')).loginCommand,
  logout: async () => (await import('./commands/login.ts')).logoutCommand,
  try: async () => (await import('./commands/try.ts')).tryCommand,
  secret: async () => (await import('./commands/secret.ts')).secretCommand,
  token: async () => (await import('./commands/token.ts')).tokenCommand,
  ui: async () => (await import('./commands/ui.ts')).uiCommand,
  editors: async () => (await import('./commands/editors.ts')).editorsCommand,
  sync: async () => (await import('./commands/sync.ts')).syncCommand,
  unsync: async () => (await import('./commands/unsync.ts')).unsyncCommand,
  projects: async () => (await import('./commands/projects.ts')).projectsCommand,
  import: async () => (await import('./commands/import.ts')).importCommand,
  backups: async () => (await import('./commands/backups.ts')).backupsCommand,
  catalog: async () => (await import('./commands/catalog.ts')).catalogCommand,
  'install-cli': async () => (await import('./commands/install-cli.ts')).installCliCommand,
};

function lifecycle(action: 'start' | 'stop' | 'restart'): () => Promise<Command> {
  return async () => {
    const { lifecycleCommand } = await import('./commands/lifecycle.ts');
    return (ctx, argv) => lifecycleCommand(ctx, action, argv);
  };
}

export function defaultContext(env: NodeJS.ProcessEnv = process.env): CliContext {
  let keychain: OsKeychain | undefined;
  return {
    home: resolveHome(env),
    env,
    output: processOutput,
    stdin: process.stdin,
    keychain: () => (keychain ??= new OsKeychain()),
    ...machineOf(env),
  };
}

/** Runs one CLI invocation; returns the exit code (0 ok, 1 failure, 2 usage). */
export async function main(argv: string[], ctx: CliContext = defaultContext()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    ctx.output.out(`switchboard ${await version()}`);
    return 0;
  }
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    const [topic, ...extra] = name === 'help' ? rest : [];
    if (topic === undefined) {
      ctx.output.out(generalHelp(await version()));
      return name ? 0 : 2;
    }
    if (!isCommandName(topic) || extra.length) {
      ctx.output.err(`switchboard help: no command "${displayText(topic)}" (switchboard help lists them)`);
      return 2;
    }
    ctx.output.out(commandHelp(topic));
    return 0;
  }
  if (!isCommandName(name)) {
    ctx.output.err(`switchboard: unknown command "${displayText(name)}"\n\n${generalHelp(await version())}`);
    return 2;
  }
  if (asksForHelp(rest)) {
    ctx.output.out(commandHelp(name));
    return 0;
  }
  const load = COMMANDS[name];
  try {
    // As serve does at its start: before any command writes there, the home is this user's alone.
    makeHomePrivate(ctx.home, process.platform);
    const command = await load();
    return await command(ctx, rest);
  } catch (err) {
    if (err instanceof UsageError) {
      ctx.output.err(`switchboard ${name}: ${displayMessage(err.message)}`);
      return 2;
    }
    // node:util parseArgs says which option it did not take; the command's forms say what it does take.
    if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
      ctx.output.err(`switchboard ${name}: ${displayMessage(err.message)}\n${usageOf(name)}`);
      return 2;
    }
    // Errors may quote a config value or a server's words: nothing in them may act on the terminal.
    if (err instanceof UserError) {
      ctx.output.err(`switchboard ${name}: ${displayMessage(describeError(err))}`);
      return 1;
    }
    ctx.output.err(`switchboard ${name}: unexpected error: ${displayMessage(describeError(err))}`);
    if (ctx.env.SWITCHBOARD_DEBUG) ctx.output.err(String((err as Error).stack));
    return 1;
  }
}

/** package.json's version, read only when asked (help, --version): no other command pays for it. */
async function version(): Promise<string> {
  const pkg = await import('../../package.json', { with: { type: 'json' } });
  return (pkg.default as { version: string }).version;
}
