/**
 * Servers whose arguments name what they work on: those paths are the access they need, and the
 * approval offers exactly them ("reads and writes ~/projects: a folder it was given"). A server is
 * known by its package or program name anywhere in its command line (`npx -y pkg`, `node
 * …/node_modules/pkg/dist/index.js`, `uvx mcp-server-git`).
 */

export interface ArgumentAccess {
  /** paths it reads and writes, as written in its arguments or env */
  write: string[];
  /** env it is given so that its data lands in its own folder (absent from its own env) */
  env: Record<string, string>;
  /** the known server's name, for the words on the approval */
  known: string | undefined;
}

interface KnownServer {
  name: string;
  /** matches one word of the command line */
  matches: (word: string) => boolean;
  access: (
    after: readonly string[],
    env: Readonly<Record<string, string>>,
    ownFolder: string,
  ) => {
    write: string[];
    env?: Record<string, string>;
  };
}

const named =
  (...names: string[]) =>
  (word: string): boolean =>
    names.some((n) => word === n || word.startsWith(`${n}@`) || word.includes(`/${n}/`));

/** The value of `--flag VALUE` or `--flag=VALUE`. */
function flagValues(args: readonly string[], flags: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    for (const flag of flags) {
      if (arg === flag && args[i + 1] !== undefined) out.push(args[i + 1] ?? '');
      else if (arg.startsWith(`${flag}=`)) out.push(arg.slice(flag.length + 1));
    }
  }
  return out;
}

const KNOWN: KnownServer[] = [
  {
    // its arguments after the package are the folders it may use (it also expands "~" itself)
    name: 'server-filesystem',
    matches: named('@modelcontextprotocol/server-filesystem', 'mcp-server-filesystem'),
    access: (after) => ({ write: after.filter((a) => !a.startsWith('-')) }),
  },
  {
    name: 'mcp-server-git',
    matches: named('mcp-server-git'),
    access: (after) => ({ write: flagValues(after, ['--repository', '-r']) }),
  },
  {
    name: 'mcp-server-sqlite',
    matches: named('mcp-server-sqlite'),
    access: (after) => ({ write: flagValues(after, ['--db-path']).map(parentOf) }),
  },
  {
    // writes memory.jsonl beside its own code by default, which the sandbox keeps read-only
    name: 'server-memory',
    matches: named('@modelcontextprotocol/server-memory', 'mcp-server-memory'),
    access: (_after, env, ownFolder) => {
      const set = env.MEMORY_FILE_PATH;
      if (set === undefined) return { write: [], env: { MEMORY_FILE_PATH: join(ownFolder, 'memory.jsonl') } };
      return { write: isAbsoluteish(set) ? [parentOf(set)] : [] };
    },
  },
  {
    // Makes its browser profile in $XDG_CACHE_HOME/ms-playwright/mcp-<browser>-profile (~/.cache on
    // Linux), which the sandbox keeps hidden: in its own folder instead, as runners' caches are. Its
    // default browser (Chrome) is the system's; a browser it downloads lands in its own folder too.
    name: '@playwright/mcp',
    matches: named('@playwright/mcp'),
    access: (_after, env, ownFolder) =>
      env.XDG_CACHE_HOME === undefined
        ? { write: [], env: { XDG_CACHE_HOME: join(ownFolder, '.cache') } }
        : { write: [] },
  },
];

/**
 * Package runners write their caches in the home, which the sandbox keeps read-only: each gets a
 * cache in the server's own folder instead (a download once per server; one server cannot plant
 * code in a cache another runs from).
 */
const RUNNER_CACHES: Record<string, (own: string) => Record<string, string>> = {
  npx: (own) => ({ npm_config_cache: join(own, '.npm') }),
  npm: (own) => ({ npm_config_cache: join(own, '.npm') }),
  pnpm: (own) => ({ npm_config_cache: join(own, '.npm'), XDG_CACHE_HOME: join(own, '.cache') }),
  bunx: (own) => ({ BUN_INSTALL_CACHE_DIR: join(own, '.bun-cache') }),
  uvx: (own) => ({ UV_CACHE_DIR: join(own, '.cache/uv') }),
  uv: (own) => ({ UV_CACHE_DIR: join(own, '.cache/uv') }),
  pipx: (own) => ({ PIPX_HOME: join(own, '.pipx') }),
};

function runnerEnv(
  command: string,
  env: Readonly<Record<string, string>>,
  own: string,
): Record<string, string> {
  const name = command.slice(command.lastIndexOf('/') + 1).replace(/\.(?:cmd|exe)$/i, '');
  const cache = RUNNER_CACHES[name]?.(own) ?? {};
  return Object.fromEntries(Object.entries(cache).filter(([key]) => env[key] === undefined));
}

export function argumentAccess(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  ownFolder: string,
): ArgumentAccess {
  const runner = runnerEnv(command, env, ownFolder);
  const words = [command, ...args];
  for (const server of KNOWN) {
    const at = words.findIndex((w) => server.matches(w));
    if (at === -1) continue;
    const access = server.access(words.slice(at + 1), env, ownFolder);
    return {
      write: access.write.filter(isAbsoluteish),
      env: { ...runner, ...access.env },
      known: server.name,
    };
  }
  return { write: [], env: runner, known: undefined };
}

function isAbsoluteish(path: string): boolean {
  return path.startsWith('/') || path === '~' || path.startsWith('~/');
}

function parentOf(path: string): string {
  const i = path.replace(/\/+$/, '').lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

function join(folder: string, name: string): string {
  return `${folder.replace(/\/+$/, '')}/${name}`;
}
