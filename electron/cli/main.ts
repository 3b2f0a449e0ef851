import { displayMessage } from '../../shared/display-text.ts';
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
  approve NAME [--yes | --fingerprint F]   show exactly what NAME would run, then approve exactly that
                                   (asks y/N in a terminal; scripts pass --yes or the fingerprint shown)
  approve … --allow-scripts        approve with the package's install scripts running (they stay off otherwise)
  deny NAME                        keep NAME from running until its config changes
  outdated [--json] [NAME…]        package-run servers (npx, uvx, docker run) with newer releases
  update NAME [--yes | --fingerprint F]   show what a newer release changes, then approve exactly that
  store [--json] | store prune     the package store's disk use; remove what no server uses
  install FILE.mcpb [--name N] [--set KEY=VALUE]…   add an MCP bundle (asks for its settings)
  tools NAME [--json] [--accept [--yes | --change ID]]
                                   NAME's tools, prompts and instructions, and those held back as
                                   new or changed since they were approved (with a diff); --accept
                                   gives editors the change shown
  start NAME | stop NAME | restart NAME
  logs NAME [--follow] [--lines N] [--json]   a server's log
  add NAME [--env K=V]… -- CMD ARGS…   add a local server (or: add NAME --url URL [--header K=V]…);
                                   a name in use is refused, showing what would change (--replace)
  remove NAME                      remove a server from servers.json
  login NAME | logout NAME         sign in to a remote server in your browser (OAuth), or forget it
  try URL [--header K=V]… [--client-id ID [--client-secret S]] [--client-metadata-url URL]
          [--call TOOL [--arguments JSON]]   connect to a remote server as Switchboard would
                                   (signing in if it asks), print its tools, call one, exit
  secret set NAME | list [--json] | rm NAME [--force] | move SERVER KEY [SECRET_NAME]
  token create NAME | list [--json] | revoke NAME   bridge tokens for editors and other clients
  editors [--json]                 every supported editor: its file, whether installed, sync state
  editors restart claude-desktop [--json]   quit and reopen Claude Desktop so it reads its new
                                   settings (only if it is running; Linux, macOS, Windows)
  editors tools EDITOR [--json]    the tools EDITOR gets: count, estimated tokens, its client's limits
  editors tools EDITOR SERVER [--off TOOL]… [--on TOOL]… | --only GLOB… [--except GLOB…] | --all
                                   choose which of SERVER's tools EDITOR gets
  editors tools EDITOR --discovery on|off   find_tools and call_tool instead of every tool
  sync [--editor E]… [--dry-run]   write Switchboard's servers into every editor's settings (--dry-run: diff)
  unsync [--editor E]… [--restore-secrets | --no-restore-secrets]
                                   take them out again: imported entries come back, and the files get
                                   back the bytes they had (secrets import moved only if you ask)
  import [--from E]… [--yes]       bring servers found in editors' settings into Switchboard
  backups [list [--json] | restore ID]   editor files as they were before Switchboard changed them
  catalog search TERM [--json]     find servers in the MCP Registry
  catalog show NAME                how a registry server runs and what it needs
  catalog add NAME [--version V]   add it, pending approval (secrets: asked for, or read from stdin)
  catalog registry [URL|--default] the registry the catalog asks

Every command that prints data takes --json (shapes: docs/cli-json.md).
Files live in $SWITCHBOARD_HOME (default: your OS app-data folder). Exit codes: 0 ok, 1 failure, 2 usage.`;

type Command = (ctx: CliContext, argv: string[]) => Promise<number>;

// Each command loads only its own modules: `status` need not load the bridge, editors and UI that
// `serve` does (module loading is most of a CLI start-up).
const COMMANDS: Record<string, () => Promise<Command>> = {
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
  login: async () => (await import('./commands/login.ts')).loginCommand,
  logout: async () => (await import('./commands/login.ts')).logoutCommand,
  try: async () => (await import('./commands/try.ts')).tryCommand,
  secret: async () => (await import('./commands/secret.ts')).secretCommand,
  token: async () => (await import('./commands/token.ts')).tokenCommand,
  ui: async () => (await import('./commands/ui.ts')).uiCommand,
  editors: async () => (await import('./commands/editors.ts')).editorsCommand,
  sync: async () => (await import('./commands/sync.ts')).syncCommand,
  unsync: async () => (await import('./commands/unsync.ts')).unsyncCommand,
  import: async () => (await import('./commands/import.ts')).importCommand,
  backups: async () => (await import('./commands/backups.ts')).backupsCommand,
  catalog: async () => (await import('./commands/catalog.ts')).catalogCommand,
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
      ctx.output.err(`switchboard ${name}: ${displayMessage(err.message)}`);
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
