import { describeError, UserError } from '../core/errors.ts';
import { resolveHome } from '../core/home.ts';
import { OsKeychain } from '../core/secrets/keychain.ts';
import type { CliContext } from './context.ts';
import { processOutput, UsageError } from './output.ts';

const HELP = `switchboard — one MCP setup, every editor

usage: switchboard <command> [options]

  serve [--port N]                 run Switchboard in the foreground (Ctrl+C stops every server)
  ui                               print a fresh sign-in link for the browser UI of the running serve
  status [--json]                  every server's state, pid, restarts, tools, last error
  approve NAME | deny NAME         trust decisions (approve prints exactly what it approves)
  start NAME | stop NAME | restart NAME
  logs NAME [--follow] [--lines N] a server's log
  add NAME [--env K=V]… -- CMD ARGS…   add a local server (or: add NAME --url URL [--header K=V]…)
  remove NAME                      remove a server from servers.json
  secret set NAME | list | rm NAME | move SERVER KEY [SECRET_NAME]
  token create NAME | list | revoke NAME   bridge tokens for editors and other clients
  editors [--json]                 every supported editor: its file, whether installed, sync state
  sync [--editor E]… [--dry-run]   write Switchboard's servers into every editor's settings (--dry-run: diff)
  unsync [--editor E]…             take them out again (the files get back the bytes they had)
  import [--from E]… [--yes]       bring servers found in editors' settings into Switchboard
  backups [list | restore ID]      editor files as they were before Switchboard changed them

Files live in $SWITCHBOARD_HOME (default: your OS app-data folder). Exit codes: 0 ok, 1 failure, 2 usage.`;

type Command = (ctx: CliContext, argv: string[]) => Promise<number>;

// Each command loads only its own modules: `status` need not load the bridge, editors and UI that
// `serve` does (module loading is most of a CLI start-up).
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./commands/serve.ts')).serveCommand,
  status: async () => (await import('./commands/status.ts')).statusCommand,
  approve: async () => (await import('./commands/trust.ts')).approveCommand,
  deny: async () => (await import('./commands/trust.ts')).denyCommand,
  start: lifecycle('start'),
  stop: lifecycle('stop'),
  restart: lifecycle('restart'),
  logs: async () => (await import('./commands/logs.ts')).logsCommand,
  add: async () => (await import('./commands/servers.ts')).addCommand,
  remove: async () => (await import('./commands/servers.ts')).removeCommand,
  secret: async () => (await import('./commands/secret.ts')).secretCommand,
  token: async () => (await import('./commands/token.ts')).tokenCommand,
  ui: async () => (await import('./commands/ui.ts')).uiCommand,
  editors: async () => (await import('./commands/editors.ts')).editorsCommand,
  sync: async () => (await import('./commands/sync.ts')).syncCommand,
  unsync: async () => (await import('./commands/unsync.ts')).unsyncCommand,
  import: async () => (await import('./commands/import.ts')).importCommand,
  backups: async () => (await import('./commands/backups.ts')).backupsCommand,
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
  };
}

/** Runs one CLI invocation; returns the exit code (0 ok, 1 failure, 2 usage). */
export async function main(argv: string[], ctx: CliContext = defaultContext()): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    ctx.output.out(HELP);
    return name ? 0 : 2;
  }
  const load = COMMANDS[name];
  if (!load) {
    ctx.output.err(`switchboard: unknown command "${name}"\n\n${HELP}`);
    return 2;
  }
  try {
    const command = await load();
    return await command(ctx, rest);
  } catch (err) {
    if (
      err instanceof UsageError ||
      (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      ctx.output.err(`switchboard ${name}: ${err.message}`);
      return 2;
    }
    if (err instanceof UserError) {
      ctx.output.err(`switchboard ${name}: ${describeError(err)}`);
      return 1;
    }
    ctx.output.err(`switchboard ${name}: unexpected error: ${describeError(err)}`);
    if (ctx.env.SWITCHBOARD_DEBUG) ctx.output.err(String((err as Error).stack));
    return 1;
  }
}
