import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { runTool } from './run-tool.ts';

/** The flags `npm install` gets for the store's lockfile (resolveNpm's child process uses the same). */
export const LOCK_ONLY_FLAGS = [
  'install',
  '--package-lock-only',
  '--ignore-scripts',
  '--no-audit',
  '--no-fund',
  '--lockfile-version=3',
];

/** The npm to run (npm-resolve.ts NpmTools has these): its script run by node, its environment. */
export interface NpmProgram {
  /** node, when npm is its script */
  npm: string;
  npmArgs: string[];
  env: NodeJS.ProcessEnv;
  /** a folder of the store's own, to run in */
  staging: string;
}

/** How long a node's `--version` answer is reused: one `outdated` run asks once. */
const NODE_VERSION_REUSE_MS = 10_000;

interface ConfigLike {
  load(): Promise<void>;
  flat: Record<string, unknown>;
}
type ConfigClass = new (options: Record<string, unknown>) => ConfigLike;
interface ArboristLike {
  reify(options: Record<string, unknown>): Promise<unknown>;
}
type ArboristClass = new (options: Record<string, unknown>) => ArboristLike;

/** The person's npm's own resolver and settings loader (what its `npm install` runs). */
interface NpmInternals {
  version: string;
  /** npm's resolver, loaded when first asked for (~0.25 s; reading settings does not need it) */
  Arborist(): ArboristClass;
  Config: ConfigClass;
  definitions: Record<string, unknown>;
}

const loaded = new Map<string, NpmInternals | undefined>();
const nodeVersions = new Map<string, { at: number; value: Promise<string> }>();
/** npm's packument cache, shared by the resolutions running side by side and dropped after them */
let shared: { cache: unknown; users: number } | undefined;

/**
 * Writes `dir/package-lock.json` as the person's npm's `npm install --package-lock-only` would, but
 * in this process: npm's own Arborist and settings loader, loaded (lazily, once) from the npm the
 * server's npx belongs to, with npm's settings read as npm reads them (argv, environment, npmrc files
 * from that npm's and that node's places) and Node's version that of the node npm would run on.
 * One npm process costs ~0.45 s of CPU to start and load; resolving in here costs ~20 ms a server
 * once loaded (~0.3 s), and servers resolved side by side share the packuments they fetch.
 * Returns false when it cannot (an npm it does not recognise): then the caller runs npm.
 */
export async function lockInProcess(dir: string, tools: NpmProgram): Promise<boolean> {
  // Asked first: node answers while npm's modules load (synchronous requires).
  const version = versionOf(tools);
  const settings = await npmSettings(tools, dir, LOCK_ONLY_FLAGS);
  if (!settings) return false;
  const { npm, flat } = settings;
  const Arborist = npm.Arborist();
  const nodeVersion = await version;
  const options = {
    ...flat,
    nodeVersion,
    npmVersion: npm.version,
    npmCommand: 'install',
    auditLevel: null,
    path: dir,
    add: [],
    workspaces: [],
  };
  shared ??= { cache: undefined, users: 0 };
  const share = shared;
  share.users++;
  try {
    const arborist = new Arborist({ ...options, packumentCache: share.cache });
    // Arborist makes its cache when given none: the first of a batch's becomes the batch's.
    share.cache ??= (arborist as unknown as { options?: { packumentCache?: unknown } }).options
      ?.packumentCache;
    await arborist.reify(options);
  } finally {
    if (--share.users === 0 && shared === share) shared = undefined;
  }
  return true;
}

/**
 * npm's settings as the person's npm reads them for `npm ARGS` run in `cwd` (its argv, environment,
 * npmrc files from that npm's and that node's places), flattened as npm's commands get them; undefined
 * when the server's npm is not one this can load (then the caller runs npm).
 */
export async function npmSettings(
  tools: NpmProgram,
  cwd: string,
  args: readonly string[],
): Promise<{ npm: NpmInternals; flat: Record<string, unknown> } | undefined> {
  const script = tools.npmArgs[0];
  if (tools.npmArgs.length !== 1 || script === undefined || basename(script) !== 'npm-cli.js')
    return undefined;
  const npmDir = dirname(dirname(script));
  const npm = loadNpm(npmDir);
  if (!npm) return undefined;
  const config = new npm.Config({
    ...npm.definitions,
    npmPath: npmDir,
    env: { ...tools.env },
    argv: [tools.npm, script, ...args],
    execPath: tools.npm,
    cwd,
    warn: false,
  });
  await config.load();
  return { npm, flat: keepingEnv(() => config.flat) };
}

/**
 * npm's settings write two variables into process.env as they are read (npm owns its process; here
 * it is Switchboard's, whose environment servers and tools inherit): put back as they were.
 */
function keepingEnv<T>(read: () => T): T {
  const kept = ['NODE_ENV', 'npm_config_user_agent'].map((key) => [key, process.env[key]] as const);
  try {
    return read();
  } finally {
    for (const [key, value] of kept) {
      if (value === undefined) Reflect.deleteProperty(process.env, key);
      else process.env[key] = value;
    }
  }
}

function loadNpm(npmDir: string): NpmInternals | undefined {
  if (loaded.has(npmDir)) return loaded.get(npmDir);
  let value: NpmInternals | undefined;
  try {
    const pkg = JSON.parse(readFileSync(join(npmDir, 'package.json'), 'utf8')) as {
      name?: unknown;
      version?: unknown;
    };
    const definitionsFile = join(npmDir, 'node_modules/@npmcli/config/lib/definitions/index.js');
    if (pkg.name === 'npm' && typeof pkg.version === 'string' && existsSync(definitionsFile)) {
      const load = createRequire(join(npmDir, 'package.json'));
      const defs = load(definitionsFile) as Record<string, unknown>;
      value = {
        version: pkg.version,
        Arborist: once(() => load('@npmcli/arborist') as ArboristClass),
        Config: load('@npmcli/config') as ConfigClass,
        definitions: {
          definitions: defs.definitions,
          flatten: defs.flatten,
          shorthands: defs.shorthands,
          ...(defs.nerfDarts ? { nerfDarts: defs.nerfDarts } : {}),
        },
      };
    }
  } catch {
    value = undefined;
  }
  loaded.set(npmDir, value);
  return value;
}

/** `make`'s value, made on the first call. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** The version of the node npm would run on (it picks versions by their `engines`). */
function versionOf(tools: NpmProgram): Promise<string> {
  const known = nodeVersions.get(tools.npm);
  if (known && Date.now() - known.at < NODE_VERSION_REUSE_MS) return known.value;
  const value = runTool(
    { command: tools.npm, args: ['--version'], cwd: tools.staging, env: tools.env, timeoutMs: 30_000 },
    'asking node its version',
  ).then((r) => r.stdout.trim());
  nodeVersions.set(tools.npm, { at: Date.now(), value });
  value.catch(() => nodeVersions.delete(tools.npm));
  return value;
}
