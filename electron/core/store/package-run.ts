/**
 * What a server's command line asks a package runner to fetch and run, read from what the person
 * wrote (`npx -y pkg@1 --flag`, `uvx pkg`, `docker run -i --rm image`), or why Switchboard cannot
 * store it and runs it as written.
 */
export type PackageRun =
  | {
      kind: 'npm';
      /** the package to install, as npm takes it: `pkg`, `pkg@1.2.3`, `@scope/pkg@^1` */
      spec: string;
      /** its name (spec without the version) */
      name: string;
      /** the version or range written (`latest` when none) */
      range: string;
      /** the bin to run when the line names one (`npx -p pkg cmd`); else npx's own choice */
      bin: string | undefined;
      /** the server's own arguments, after the package */
      args: string[];
    }
  | {
      kind: 'pypi';
      /** the requirement to install: `pkg`, `pkg==1.2.3`, `pkg>=1` */
      requirement: string;
      name: string;
      /** the console script to run (the package's name unless `--from` names another package) */
      script: string;
      args: string[];
    }
  | {
      kind: 'oci';
      /** docker or podman, as written (its path is the resolved command) */
      runtime: string;
      /** everything before the image (`run -i --rm -e X`) */
      before: string[];
      /** the image reference as written */
      image: string;
      /** the container's command and arguments, after the image */
      after: string[];
    }
  | {
      kind: 'mcpb';
      /** the bundle's install in the store (`mcpb/<id>/`) */
      id: string;
      /** the command line as servers.json has it (the bundle's mcp_config, written at install) */
      args: string[];
    };

export type PackageRunResult =
  | { run: PackageRun; unsupported?: undefined }
  | { run?: undefined; unsupported: string }
  | { run?: undefined; unsupported?: undefined };

/**
 * Reads a command line as a package run. Returns `{}` for a command that is no package runner (a
 * program run as it is), `{unsupported}` with the reason for a runner line Switchboard cannot pin (it
 * then runs as written, and the approval says so).
 */
export function packageRunOf(command: string, args: readonly string[]): PackageRunResult {
  // Either separator: a Windows path is read the same on any machine (servers.json travels).
  const program = (command.split(/[\\/]/).pop() ?? '').toLowerCase().replace(/\.(cmd|exe|bat|ps1)$/, '');
  switch (program) {
    case 'npx':
      return npmExec(args, 'npx');
    case 'npm':
      if (args[0] === 'exec' || args[0] === 'x') return npmExec(args.slice(1), `npm ${args[0]}`);
      return {};
    case 'pnpm':
      if (args[0] === 'dlx') return npmExec(args.slice(1), 'pnpm dlx');
      return {};
    case 'pnpx':
      return npmExec(args, 'pnpx');
    case 'bunx':
      if (args.includes('--bun') || args.includes('-b'))
        return { unsupported: 'bunx --bun runs the package with Bun; Switchboard stores packages for Node' };
      return npmExec(args, 'bunx');
    case 'uvx':
      return uvx(args);
    case 'uv':
      if (args[0] === 'tool' && args[1] === 'run') return uvx(args.slice(2));
      return {};
    case 'docker':
    case 'podman':
      if (args[0] === 'run') return ociRun(program, args);
      if (args[0] === 'container' && args[1] === 'run') return ociRun(program, args, 2);
      return {};
    default:
      return {};
  }
}

/**
 * An installed MCP bundle's server: its command line runs files of `<store>/mcpb/<id>/` (the entry
 * `switchboard install FILE.mcpb` wrote). Undefined for anything else.
 */
export function bundleRunOf(args: readonly string[], storeRoot: string): PackageRunResult | undefined {
  const prefix = `${storeRoot}/mcpb/`.replaceAll('\\', '/');
  for (const arg of args) {
    const path = arg.replaceAll('\\', '/');
    if (!path.startsWith(prefix)) continue;
    const id = path.slice(prefix.length).split('/')[0] ?? '';
    if (id && id !== '..' && id !== '.') return { run: { kind: 'mcpb', id, args: [...args] } };
  }
  return undefined;
}

/** npx's own flags that change nothing about what runs. */
const NPX_QUIET_FLAGS = new Set(['-y', '--yes', '-q', '--quiet', '--no-install=false', '--silent', '-s']);

/**
 * A runner's own options before what it runs: quiet flags passed over, the one option that names the
 * package (`names`: as `--opt value`, or `--opt=value` for a long one) read; any other option, or
 * that one twice, is refused (Switchboard would not know what it pins).
 */
function runnerOptions(
  args: readonly string[],
  runner: string,
  quiet: ReadonlySet<string>,
  names: readonly string[],
): { at: number; named: string | undefined } | { unsupported: string } {
  let i = 0;
  let named: string | undefined;
  let seen = false;
  while (i < args.length) {
    const word = args[i] ?? '';
    if (word === '--') {
      i += 1;
      break;
    }
    if (!word.startsWith('-')) break;
    if (quiet.has(word)) {
      i += 1;
      continue;
    }
    const long = names.find((n) => n.startsWith('--') && word.startsWith(`${n}=`));
    if (names.includes(word) || long !== undefined) {
      if (seen) return { unsupported: `${runner} installs more than one package here` };
      seen = true;
      named = long === undefined ? args[i + 1] : word.slice(long.length + 1);
      i += long === undefined ? 2 : 1;
      continue;
    }
    return { unsupported: `${runner} is given ${word}, which Switchboard does not pin` };
  }
  return { at: i, named };
}

function npmExec(args: readonly string[], runner: string): PackageRunResult {
  const options = runnerOptions(args, runner, NPX_QUIET_FLAGS, ['-p', '--package']);
  if ('unsupported' in options) return options;
  const { at: i, named: pkg } = options;
  const first = args[i];
  if (first === undefined || first === '') return { unsupported: `${runner} is given no package` };
  const rest = args.slice(i + 1);
  const spec = pkg ?? first;
  const parsed = npmSpec(spec);
  if (!parsed) return { unsupported: `"${spec}" is not a package from the npm registry` };
  return {
    run: {
      kind: 'npm',
      spec,
      name: parsed.name,
      range: parsed.range,
      bin: pkg === undefined ? undefined : first,
      args: [...rest],
    },
  };
}

const NPM_NAME = /^(?:@[a-z0-9~][a-z0-9._~-]*\/)?[a-z0-9~][a-z0-9._~-]*$/i;

/** `pkg@range` → name and range; undefined for anything npm would fetch from elsewhere (git, URL, path). */
export function npmSpec(spec: string): { name: string; range: string } | undefined {
  const at = spec.indexOf('@', 1);
  const name = at > 0 ? spec.slice(0, at) : spec;
  const range = at > 0 ? spec.slice(at + 1) : 'latest';
  if (!NPM_NAME.test(name) || range === '' || /[:/\\]/.test(range)) return undefined;
  return { name, range };
}

/** uvx's own flags with no effect on what is installed. */
const UVX_QUIET_FLAGS = new Set(['-q', '--quiet', '--no-progress', '--offline=false']);

function uvx(args: readonly string[]): PackageRunResult {
  const options = runnerOptions(args, 'uvx', UVX_QUIET_FLAGS, ['--from']);
  if ('unsupported' in options) return options;
  const { at: i, named: from } = options;
  const first = args[i];
  if (first === undefined || first === '') return { unsupported: 'uvx is given no package' };
  // uvx pkg@1.2.3 is uv's short form of pkg==1.2.3
  const word = from ?? first;
  const requirement = /^[A-Za-z0-9][A-Za-z0-9._-]*@[0-9]/.test(word) ? word.replace('@', '==') : word;
  const name = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?/.exec(requirement)?.[0];
  if (!name || /[:/\\]/.test(requirement) || /\s/.test(requirement))
    return { unsupported: `"${word}" is not a package from the Python Package Index` };
  const script = from === undefined ? (/^[^=<>!~@[]+/.exec(first)?.[0] ?? name) : first;
  return { run: { kind: 'pypi', requirement, name, script, args: args.slice(i + 1) } };
}

/** docker/podman run options that take a value (the next word, unless written as --opt=value). */
const OCI_VALUE_OPTIONS = new Set([
  '-a', '--attach', '--add-host', '--annotation', '--blkio-weight', '--cap-add', '--cap-drop',
  '--cgroup-parent', '--cgroupns', '--cidfile', '--cpu-period', '--cpu-quota', '--cpu-shares', '-c',
  '--cpus', '--cpuset-cpus', '--cpuset-mems', '--device', '--device-cgroup-rule', '--dns',
  '--dns-option', '--dns-search', '--domainname', '--entrypoint', '-e', '--env', '--env-file',
  '--expose', '--gpus', '--group-add', '--health-cmd', '--health-interval', '--health-retries',
  '--health-start-period', '--health-timeout', '-h', '--hostname', '--ip', '--ip6', '--ipc',
  '--isolation', '--kernel-memory', '-l', '--label', '--label-file', '--link', '--log-driver',
  '--log-opt', '--mac-address', '-m', '--memory', '--memory-reservation', '--memory-swap',
  '--memory-swappiness', '--mount', '--name', '--network', '--net', '--network-alias', '--pid',
  '--pids-limit', '--platform', '-p', '--publish', '--pull', '--restart', '--runtime',
  '--security-opt', '--shm-size', '--stop-signal', '--stop-timeout', '--storage-opt', '--sysctl',
  '--tmpfs', '--ulimit', '-u', '--user', '--userns', '--uts', '-v', '--volume', '--volume-driver',
  '--volumes-from', '-w', '--workdir',
]); // prettier-ignore

function ociRun(runtime: string, args: readonly string[], skip = 1): PackageRunResult {
  let i = skip;
  while (i < args.length) {
    const word = args[i] ?? '';
    if (word === '--') {
      i += 1;
      break;
    }
    if (!word.startsWith('-') || word === '-') break;
    if (word.startsWith('--') && word.includes('=')) {
      if (word.startsWith('--pull=') && word !== '--pull=never' && word !== '--pull=missing')
        return { unsupported: `${runtime} is given ${word}, which fetches the image again at each start` };
      i += 1;
      continue;
    }
    if (OCI_VALUE_OPTIONS.has(word)) {
      if (word === '--pull' && args[i + 1] !== 'never' && args[i + 1] !== 'missing')
        return {
          unsupported: `${runtime} is given --pull ${args[i + 1] ?? ''}, which fetches the image again at each start`,
        };
      i += 2;
      continue;
    }
    // A short flag cluster (-it) or a boolean long flag (--rm, --init, --privileged).
    i += 1;
  }
  const image = args[i];
  if (image === undefined || image === '') return { unsupported: `${runtime} run is given no image` };
  return { run: { kind: 'oci', runtime, before: args.slice(0, i), image, after: args.slice(i + 1) } };
}
