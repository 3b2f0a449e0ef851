import { EDITOR_IDS } from '../../shared/editor-ids.ts';

/**
 * What `switchboard help`, `switchboard help CMD` and `switchboard CMD --help` print, and the usage
 * lines a command's usage errors quote: one place, so the overview, a command's own help and its
 * errors never disagree. Plain strings only: printing help loads no command.
 */
interface CommandHelp {
  /** the command's forms, each starting with "switchboard " */
  usage: string[];
  /** one line for the overview */
  summary: string;
  /** what it does and its options, for `help CMD` */
  details: string;
}

export const EDITORS_LINE = `editors: ${EDITOR_IDS.join(', ')}`;

export const COMMAND_HELP = {
  serve: {
    usage: ['switchboard serve [--port N]'],
    summary: 'run Switchboard in the foreground (Ctrl+C stops every server)',
    details:
      'Runs the core, the bridge and the browser UI at http://127.0.0.1:N/ and prints a one-time sign-in\n' +
      'link for the UI. Keeps editors in sync while it runs.\n' +
      '  --port N   the bridge port (default 43117, or the one saved in Settings; 0: any free port)',
  },
  ui: {
    usage: ['switchboard ui', 'switchboard ui --sign-out'],
    summary: 'print a fresh sign-in link for the browser UI of the running serve',
    details:
      'The link signs one browser in once and expires in 10 minutes; that browser then stays signed in for\n' +
      '30 days, restarts included.\n' +
      '  --sign-out   sign every browser out (each needs a new link), whether serve runs or not',
  },
  status: {
    usage: ['switchboard status [--json]'],
    summary: "every server's state, pid, restarts, tools, last error",
    details:
      'Asks the running Switchboard; without one, shows what the files say.\n' +
      '  --json   print the report as JSON (shapes: docs/cli-json.md)',
  },
  approve: {
    usage: ['switchboard approve NAME [--yes | --fingerprint SHA256] [--allow-scripts] [--json]'],
    summary: 'show exactly what NAME would run, then approve exactly that',
    details:
      'Shows the exact command line, its environment and secrets, and what changed since the last\n' +
      'approval (for npx, uvx and docker run: the exact package version it resolves to), then asks\n' +
      'y/N in a terminal. A config changed in between is refused.\n' +
      '  --yes, -y               approve what this run shows, without asking (scripts)\n' +
      '  --fingerprint SHA256    approve only the config shown earlier with this fingerprint\n' +
      "  --allow-scripts         let the package's install scripts run (they stay off otherwise)\n" +
      '  --json                  print {approved, preview}; never asks',
  },
  update: {
    usage: ['switchboard update NAME [--yes | --fingerprint SHA256] [--allow-scripts] [--json]'],
    summary: 'show what a newer release of a stored package changes, then approve exactly that',
    details:
      'Resolves the newest release servers.json allows, shows what changed since the approved version,\n' +
      'and approves it as approve does (same options).',
  },
  outdated: {
    usage: ['switchboard outdated [--json] [NAME…]'],
    summary: 'package-run servers (npx, uvx, docker run) with newer releases',
    details:
      'Nothing updates by itself: switchboard update NAME shows and approves a new release.\n  --json   print JSON',
  },
  store: {
    usage: ['switchboard store [--json]', 'switchboard store prune [--json]'],
    summary: "the package store's disk use; prune removes what no server uses",
    details: '  --json   print JSON',
  },
  install: {
    usage: ['switchboard install FILE.mcpb [--name NAME] [--set KEY=VALUE]…'],
    summary: 'add an MCP bundle (.mcpb), pending approval',
    details:
      'Unpacks it into the store, checks its manifest and asks for its settings (secrets go to the\n' +
      'keychain).\n' +
      '  --name NAME       its name in servers.json\n' +
      '  --set KEY=VALUE   a setting (repeatable)',
  },
  deny: {
    usage: ['switchboard deny NAME'],
    summary: 'keep NAME from running until its config changes',
    details: 'A denied server is not started and editors do not get it; a change to its config asks again.',
  },
  tools: {
    usage: ['switchboard tools NAME [--json] [--accept [--yes | --change ID]]'],
    summary: "NAME's tools, prompts and instructions, and those held back since they were approved",
    details:
      'Lists what editors get, and what is held back because it is new or changed since approval (with\n' +
      'a diff).\n' +
      '  --accept        give editors the change shown (asks y/N in a terminal)\n' +
      '  --yes, -y       with --accept: accept what this run shows, without asking\n' +
      '  --change ID     with --accept: accept only the change an earlier run showed\n' +
      '  --json          print the tools and held changes as JSON',
  },
  start: {
    usage: ['switchboard start NAME'],
    summary: 'start a stopped server (Switchboard must be running)',
    details: 'Starts NAME in the running Switchboard.',
  },
  stop: {
    usage: ['switchboard stop NAME'],
    summary: 'stop a server (Switchboard must be running)',
    details: 'Stops NAME in the running Switchboard; it stays stopped until you start it.',
  },
  restart: {
    usage: ['switchboard restart NAME'],
    summary: 'restart a server, also one in crash-loop (Switchboard must be running)',
    details: 'Stops NAME and starts it again in the running Switchboard.',
  },
  logs: {
    usage: ['switchboard logs NAME [--follow] [--lines N] [--json]'],
    summary: "a server's log",
    details:
      '  --follow, -f      keep printing new lines as they come (Ctrl+C ends)\n' +
      '  --lines N, -n N   how many of the newest lines to print first (default 200)\n' +
      '  --json            print JSON (with --follow: one line object per line)',
  },
  add: {
    usage: [
      'switchboard add NAME [--env KEY=VALUE]… [--cwd DIR] [--replace] -- COMMAND [ARGS…]',
      'switchboard add NAME --url URL [--header KEY=VALUE]… [--replace]',
    ],
    summary: 'add a server to servers.json (it waits for your approval)',
    details:
      'A local server runs COMMAND with ARGS (no shell); a remote one is reached at URL. Literal secrets\n' +
      'in --env or --header values go to the keychain. Nothing runs until you approve it.\n' +
      '  --env KEY=VALUE      an environment variable for the server (repeatable)\n' +
      '  --cwd DIR            the folder it runs in\n' +
      '  --url URL            a remote server (Streamable HTTP or SSE)\n' +
      '  --header KEY=VALUE   an HTTP header for a remote server (repeatable)\n' +
      '  --replace            NAME exists already: replace its entry (it then waits for approval again);\n' +
      '                       without it, a name in use is refused, showing what would change',
  },
  remove: {
    usage: ['switchboard remove NAME'],
    summary: 'remove a server from servers.json',
    details: 'Stops it (when Switchboard runs) and takes it out of every editor at the next sync.',
  },
  grant: {
    usage: ['switchboard grant NAME read|write PATH'],
    summary: "let a server's sandbox read (or write) one more path",
    details:
      'Adds PATH to its sandbox.read or sandbox.write in servers.json (comments kept); `status` offers\n' +
      'it when the sandbox refused the server a path. A changed sandbox waits for your approval again.',
  },
  login: {
    usage: ['switchboard login NAME'],
    summary: 'sign in to a remote server in your browser (OAuth)',
    details: 'Opens the sign-in page in your browser, or prints its address when no browser opens.',
  },
  logout: {
    usage: ['switchboard logout NAME'],
    summary: "forget a remote server's sign-in",
    details: 'Deletes its tokens from the keychain; the server waits for a new sign-in.',
  },
  try: {
    usage: [
      'switchboard try URL [--header K=V]… [--client-id ID [--client-secret S]] [--client-metadata-url URL]',
      '                    [--call TOOL [--arguments JSON]] [--json]',
    ],
    summary: 'connect to a remote server as Switchboard would, print its tools, exit',
    details:
      'Signs in if the server asks (kept in memory only), prints its name, version and tools.\n' +
      '  --header K=V                an HTTP header to send (repeatable)\n' +
      '  --client-id ID              an OAuth app you registered with the provider\n' +
      '  --client-secret S           its secret, when it has one\n' +
      '  --client-metadata-url URL   the client ID metadata document to use\n' +
      '  --call TOOL                 call one tool; --arguments JSON gives its arguments\n' +
      '  --json                      print the result as JSON',
  },
  secret: {
    usage: [
      'switchboard secret set NAME        (value on stdin)',
      'switchboard secret list [--json]',
      'switchboard secret rm NAME [--force]   (--force: even if servers use it)',
      'switchboard secret move SERVER KEY [SECRET_NAME]   (literal in servers.json → keychain)',
    ],
    summary: 'secrets in the OS keychain: set, list, rm, move',
    details: 'Servers use a stored secret as ${secret:NAME}; its value is never printed.',
  },
  token: {
    usage: [
      'switchboard token create NAME   (new token for an editor or client; replaces an existing one)',
      'switchboard token list [--json]',
      'switchboard token revoke NAME',
    ],
    summary: 'bridge tokens for editors and other clients',
    details: 'A revoked token stops working at once, open streams included.',
  },
  editors: {
    usage: [
      'switchboard editors [--json]',
      'switchboard editors restart EDITOR [--json]   (editors that read their settings only at start: claude-desktop)',
      'switchboard editors tools EDITOR [--json]',
      'switchboard editors tools EDITOR SERVER [--off TOOL]… [--on TOOL]… | --only GLOB… [--except GLOB…] | --all',
      'switchboard editors tools EDITOR --discovery on|off',
    ],
    summary: 'every supported editor: its file, whether installed, sync state; restart one; choose its tools',
    details:
      'restart quits and reopens an editor so it reads its new settings (only if it is running).\n' +
      "tools shows the tools EDITOR gets (count, estimated tokens, its client's limits) and chooses which of\n" +
      "SERVER's tools it gets; --discovery on gives it find_tools and call_tool instead of every tool.\n" +
      '  --json   print JSON',
  },
  sync: {
    usage: [
      'switchboard sync [--editor E]… [--dry-run] [--json]',
      'switchboard sync --all [--dry-run] [--json]   (every installed editor, turning sync back on where it is off)',
      'switchboard sync --editor E --exclude SERVER   (that editor stops getting that server)',
      'switchboard sync --editor E --include SERVER   (undo an --exclude)',
    ],
    summary: "write Switchboard's servers into every editor's settings",
    details:
      '  --editor E         only this editor (repeatable)\n' +
      '  --all              every installed editor, also those sync was turned off for\n' +
      '  --dry-run          print the diff each file would get; write nothing\n' +
      '  --exclude SERVER   with --editor: that editor stops getting SERVER (repeatable)\n' +
      '  --include SERVER   with --editor: undo an --exclude (repeatable)\n' +
      '  --json             print the per-editor reports as JSON\n' +
      EDITORS_LINE,
  },
  projects: {
    usage: [
      'switchboard projects [list] [--json]',
      'switchboard projects add DIR [--name NAME] [--json]',
      'switchboard projects rm DIR|NAME [--json]',
      "switchboard projects give SERVER 'REQUEST' [--json]   (the value on stdin)",
    ],
    summary: "a repository's committed MCP servers: approved once, sandboxed to its folder",
    details:
      'add reads every MCP file editors keep in the folder (.mcp.json, .vscode/mcp.json, .cursor/mcp.json,\n' +
      '.gemini/settings.json, .roo/mcp.json, …); each server waits for approval as PROJECT--SERVER, showing\n' +
      'the file and its sha256. A changed entry waits again. rm stops its servers and forgets their approvals.\n' +
      'A server whose file asks for ${VAR}, ${env:…} or ${secret:…} gets none of yours: its approval shows\n' +
      'the keychain secret of its own that holds the value, and it starts once you give one (give, or on\n' +
      'its approval card).\n' +
      "  --name NAME   the project's name (default: the folder's)\n" +
      '  --json        print JSON',
  },
  unsync: {
    usage: ['switchboard unsync [--editor E]… [--restore-secrets | --no-restore-secrets] [--json]'],
    summary: "take Switchboard's entries out of editors' settings again",
    details:
      'Imported entries come back, and each file gets back the bytes it had. Sync stays off for it.\n' +
      '  --editor E             only this editor (repeatable)\n' +
      '  --restore-secrets      put the secrets import moved into the keychain back into your entries (plain text)\n' +
      "  --no-restore-secrets   give your entries back without them (each one's place says where it is)\n" +
      '  --json                 print the reports as JSON; never asks\n' +
      EDITORS_LINE,
  },
  import: {
    usage: ['switchboard import [--from E]… [--yes] [--json]'],
    summary: "bring servers found in editors' settings into Switchboard",
    details:
      'Lists them with exactly what each runs; with --yes (or y at the prompt) adds them, moves literal\n' +
      "secrets into the keychain, approves them and makes the editors' entries point at Switchboard.\n" +
      '  --from E    only this editor (repeatable)\n' +
      '  --yes, -y   import without asking\n' +
      '  --json      print what was found as JSON\n' +
      EDITORS_LINE,
  },
  backups: {
    usage: [
      'switchboard backups [list] [--json]   editor files as they were before Switchboard changed them',
      'switchboard backups restore ID    put one back (what is there now is backed up first)',
    ],
    summary: 'editor files as they were before Switchboard changed them',
    details: '  --json   print the list as JSON',
  },
  'install-cli': {
    usage: ['switchboard install-cli [--dir DIR] [--remove]'],
    summary: 'put a fast `switchboard` command on your PATH (no npx in between)',
    details:
      'Writes a small launcher that runs this Switchboard with its own Node: ~/.local/bin/switchboard\n' +
      '(or $XDG_BIN_HOME), %LOCALAPPDATA%\\Microsoft\\WindowsApps\\switchboard.cmd on Windows. Says how to\n' +
      'put that folder on PATH when it is not. A file of that name that is not a Switchboard launcher is\n' +
      'left alone.\n' +
      '  --dir DIR   write it into DIR instead\n' +
      '  --remove    take it away again',
  },
  catalog: {
    usage: [
      'switchboard catalog search TERM [--json] [--refresh] [--cursor C]',
      'switchboard catalog show NAME [--version V] [--json] [--refresh]',
      'switchboard catalog add NAME [--version V] [--via npm|pypi|oci|remote] [--name N] [--set KEY=VALUE]…',
      '                               (secrets: asked for on a terminal, else read from stdin)',
      'switchboard catalog registry [URL | --default]',
    ],
    summary: 'find servers in the MCP Registry and add them (pending approval)',
    details:
      '  --refresh          ask the registry again instead of the cached answer\n' +
      '  --version V        a version other than the latest\n' +
      '  --via KIND         how to run it, when it offers several ways\n' +
      '  --name N           the server name in servers.json\n' +
      '  --set KEY=VALUE    a required argument or value (repeatable)\n' +
      '  registry URL       ask another registry (--default: the official one)',
  },
} satisfies Record<string, CommandHelp>;

export type CommandName = keyof typeof COMMAND_HELP;

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMAND_HELP, name);
}

/** "usage: switchboard …" with every form of the command, for its usage errors. */
export function usageOf(name: CommandName): string {
  return COMMAND_HELP[name].usage.map((line, i) => `${i ? '      ' : 'usage:'} ${line}`).join('\n');
}

/** `switchboard help CMD` and `switchboard CMD --help`. */
export function commandHelp(name: CommandName): string {
  const help: CommandHelp = COMMAND_HELP[name];
  return `${usageOf(name)}\n\n${help.summary[0]?.toUpperCase()}${help.summary.slice(1)}.\n${help.details}`;
}

/** `switchboard help`: every command in a line or two, grouped as people use them. */
export function generalHelp(version: string): string {
  return `switchboard ${version} — one MCP setup, every editor

usage: switchboard <command> [options]

  serve [--port N]                 run Switchboard in the foreground (Ctrl+C stops every server)
  ui [--sign-out]                  print a fresh sign-in link for the browser UI of the running serve
                                   (--sign-out: sign every browser out)
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
  grant NAME read|write PATH       let NAME's sandbox read (or write) PATH (it asks approval again)
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
  projects [add DIR | rm DIR|NAME] a repository's committed MCP servers, approved once, confined to it
  projects give SERVER 'REQUEST'   a project server's own value for what its file asks (stdin)
  import [--from E]… [--yes]       bring servers found in editors' settings into Switchboard
  backups [list [--json] | restore ID]   editor files as they were before Switchboard changed them
  catalog search TERM [--json]     find servers in the MCP Registry
  catalog show NAME                how a registry server runs and what it needs
  catalog add NAME [--version V]   add it, pending approval (secrets: asked for, or read from stdin)
  catalog registry [URL|--default] the registry the catalog asks

  install-cli [--remove]           a fast \`switchboard\` on your PATH (instead of npx switchboard)
  help [COMMAND] | COMMAND --help  what a command does, and its options
  --version                        the version of Switchboard

Every command that prints data takes --json (shapes: docs/cli-json.md).
Files live in $SWITCHBOARD_HOME (default: your OS app-data folder). Exit codes: 0 ok, 1 failure, 2 usage.`;
}

/** True when a command's own arguments ask for its help (before any `--`, after which they are the server's). */
export function asksForHelp(argv: readonly string[]): boolean {
  const own = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  return own.includes('--help') || own.includes('-h');
}
