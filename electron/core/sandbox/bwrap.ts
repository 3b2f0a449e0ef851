import { statSync } from 'node:fs';
import { bwrapBase } from './bwrap-base.ts';
import { BOUNDS, prlimitPrefix } from './bounds.ts';
import { setprivPrefix } from './run-as.ts';
import { proxyEnv } from './proxy-env.ts';
import { isInside, namesSecret, type SandboxPolicy } from './policy.ts';

type Sandboxed = Extract<SandboxPolicy, { sandboxed: true }>;

/** Where the proxy's and forwarded ports' Unix sockets appear inside the sandbox. */
export const SANDBOX_SOCKET_DIR = '/tmp/.switchboard';
/** The port the in-sandbox relay to the proxy listens on (its loopback is its own). */
const PROXY_PORT = 3128;

export interface BwrapNetwork {
  /** socat's path: relays the sandbox's loopback ports to the sockets below */
  socat: string;
  /** host path of the proxy's Unix socket */
  proxySocket: string;
  /** listed ports on this computer, each with the host path of its forwarding socket */
  ports: { port: number; socket: string }[];
  /** host path of the Node preload that sends HTTP(S) through the proxy (node-proxy.ts) */
  nodePreload: string;
  /** host path of the folder with Python's sitecustomize for aiohttp (python-proxy.ts) */
  pythonSite: string;
}

export interface BwrapInput {
  bwrap: string;
  policy: Sandboxed;
  command: string;
  args: readonly string[];
  cwd: string;
  /** host paths of an empty, unreadable (mode 000) file and folder: what masked secrets look like */
  denied: { file: string; dir: string };
  /** present for a filtered network (internet or a list) */
  network?: BwrapNetwork | undefined;
  /** Switchboard runs as root: drop every capability so masks cannot be unmounted */
  root: boolean;
  /** bubblewrap takes `--size`: the temp folders and /dev/shm are bounded (bounds.ts) */
  sized?: boolean | undefined;
  /** prlimit's path: the program starts under the rlimits of bounds.ts */
  prlimit?: string | undefined;
  /** setpriv's path, when the policy runs it as nobody (run-as.ts) */
  setpriv?: string | undefined;
  /** the server's own NODE_OPTIONS, kept before the proxy preload */
  nodeOptions?: string | undefined;
  /** the server's own PYTHONPATH, kept after the sitecustomize's folder */
  pythonPath?: string | undefined;
  /** host path of the git config a server running as nobody gets (run-as.ts NOBODY_GIT_CONFIG) */
  nobodyGitConfig?: string | undefined;
  /** the server's own GIT_CONFIG_GLOBAL: when set, it is kept */
  gitConfigGlobal?: string | undefined;
  /** 'file', 'dir' or undefined when the host path does not exist (a stat by default) */
  kind?: (path: string) => 'file' | 'dir' | undefined;
}

export interface Wrapped {
  command: string;
  args: string[];
  /** env the sandboxed program needs (its proxy, its temp folder) */
  env: Record<string, string>;
}

type Mount =
  | { op: 'hide'; path: string }
  | { op: 'grant'; path: string; writable: boolean }
  | { op: 'mask'; path: string; kind: 'file' | 'dir'; overlaid: boolean };

const ORDER = { hide: 0, grant: 1, mask: 2 } as const;

/**
 * bubblewrap's argv for one server. The whole system is bound read-only; the home, Switchboard's
 * home, /run (daemons' and the desktop session's sockets) and mounted drives are replaced by empty
 * read-only folders; then granted
 * paths are bound back (read-only, or writable), shallowest first so the more specific grant wins;
 * secret places visible through a grant are covered by an unreadable file or folder. A private
 * /proc (own pid namespace) hides every other process; /tmp is private; the network is the
 * sandbox's own empty one unless it is open, with socat relaying the proxy's port into it.
 */
export function bwrapCommand(input: BwrapInput): Wrapped {
  const { policy } = input;
  const kind = input.kind ?? statKind;
  const nobody = policy.runsAs === 'nobody' && input.root && input.setpriv !== undefined;
  const args = bwrapBase({
    network: policy.network.kind !== 'open',
    root: input.root,
    sized: input.sized,
    dropsToNobody: nobody,
  });
  for (const temp of policy.temp) {
    if (input.sized) args.push('--perms', '1777', '--size', String(BOUNDS.tempBytes));
    args.push('--tmpfs', temp);
  }

  const grants = [
    ...policy.read.map((g) => ({ ...g, writable: false })),
    ...policy.write.map((g) => ({ ...g, writable: true })),
  ];
  const mounts: Mount[] = [];
  for (const path of policy.hidden) if (kind(path) === 'dir') mounts.push({ op: 'hide', path });
  // A path both read and written is written: drop the read-only grant of the same path.
  for (const g of grants) {
    if (!g.writable && grants.some((o) => o.writable && o.path === g.path)) continue;
    mounts.push({ op: 'grant', path: g.path, writable: g.writable });
  }
  for (const secret of policy.secrets) {
    const secretKind = kind(secret);
    if (!secretKind) continue;
    if (grants.some((g) => g.path === secret && namesSecret(g, secret))) continue; // the person asked for exactly it
    const visible =
      !isHidden(secret, policy) || grants.some((g) => isInside(secret, g.path) && g.path !== secret);
    if (!visible) continue;
    const overlaid = grants.some((g) => g.path !== secret && isInside(g.path, secret));
    mounts.push({ op: 'mask', path: secret, kind: secretKind, overlaid });
  }
  mounts.sort((a, b) => depth(a.path) - depth(b.path) || ORDER[a.op] - ORDER[b.op]);

  const readOnlyAfter: string[] = [];
  // what is a fresh tmpfs (hidden areas, temp folders, masks with grants inside), and the folders
  // made inside them for nobody
  const tmpfsRoots = [
    ...policy.temp,
    ...mounts.filter((m) => m.op === 'hide' || (m.op === 'mask' && m.overlaid)).map((m) => m.path),
  ];
  const made = new Set<string>();
  // A folder covered by the unreadable stand-in has nothing to mount inside (an editor's folder in
  // ~/.aws, a grant there): bubblewrap could not make the mount point.
  const unreadable: string[] = [];
  for (const m of mounts) {
    if (unreadable.some((u) => m.path !== u && isInside(m.path, u))) continue;
    // bubblewrap makes the folders above a mount inside a tmpfs with their modes on this computer
    // (Switchboard's home is 0700): nobody must be able to pass through them to what is granted.
    if (nobody)
      for (const above of ancestorsInside(
        m.path,
        tmpfsRoots,
        grants.map((g) => g.path),
      ))
        if (!made.has(above)) {
          made.add(above);
          // in its private temp folder, as writable as /tmp itself; elsewhere, only passable
          const temp = policy.temp.some((t) => isInside(above, t));
          args.push('--perms', temp ? '1777' : '0711', '--dir', above);
        }
    if (m.op === 'hide') {
      args.push('--tmpfs', m.path);
      if (!grants.some((g) => g.path === m.path)) readOnlyAfter.push(m.path);
    } else if (m.op === 'grant') {
      args.push(m.writable ? '--bind-try' : '--ro-bind-try', m.path, m.path);
    } else if (m.kind === 'dir' && m.overlaid) {
      // Grants inside it are bound on top, which an unreadable folder would not allow.
      args.push('--tmpfs', m.path);
      readOnlyAfter.push(m.path);
    } else {
      args.push('--ro-bind', m.kind === 'dir' ? input.denied.dir : input.denied.file, m.path);
      if (m.kind === 'dir') unreadable.push(m.path);
    }
  }

  const env: Record<string, string> = { TMPDIR: '/tmp', ...policy.env };
  let program = [input.command, ...input.args];
  if (input.network && policy.network.kind !== 'open' && policy.network.kind !== 'none') {
    const net = input.network;
    const proxyPort =
      [PROXY_PORT, 3129, 3130, 8118].find((p) => !net.ports.some((f) => f.port === p)) ?? 3131;
    const relays = [{ port: proxyPort, inside: `${SANDBOX_SOCKET_DIR}/proxy.sock`, host: net.proxySocket }];
    for (const f of net.ports)
      relays.push({ port: f.port, inside: `${SANDBOX_SOCKET_DIR}/port-${f.port}.sock`, host: f.socket });
    // made as 0700 like the private folder they come from, unless nobody is to pass through
    if (nobody) args.push('--perms', '0711', '--dir', SANDBOX_SOCKET_DIR);
    for (const r of relays) args.push('--ro-bind', r.host, r.inside);
    const preload = `${SANDBOX_SOCKET_DIR}/node-proxy.cjs`;
    args.push('--ro-bind', net.nodePreload, preload);
    const pythonSite = `${SANDBOX_SOCKET_DIR}/python`;
    args.push('--ro-bind', net.pythonSite, pythonSite);
    program = ['/bin/sh', '-c', relayScript(net.socat, relays), 'switchboard-sandbox', ...program];
    Object.assign(
      env,
      proxyEnv(proxyPort, {
        nodeOptions: input.nodeOptions,
        nodePreload: preload,
        pythonPath: input.pythonPath,
        pythonSite,
      }),
    );
  }
  if (nobody && input.nobodyGitConfig && input.gitConfigGlobal === undefined) {
    const inside = `${SANDBOX_SOCKET_DIR}/nobody.gitconfig`;
    args.push('--perms', '0711', '--dir', SANDBOX_SOCKET_DIR, '--ro-bind', input.nobodyGitConfig, inside);
    env.GIT_CONFIG_GLOBAL = inside;
  }
  for (const path of readOnlyAfter) args.push('--remount-ro', path);
  // First inside the sandbox, so its task count is the sandbox's own (its user namespace's).
  if (nobody && input.setpriv) program = [...setprivPrefix(input.setpriv), ...program];
  if (input.prlimit) program = [...prlimitPrefix(input.prlimit), ...program];
  args.push('--chdir', input.cwd, '--', ...program);
  return { command: input.bwrap, args, env };
}

/**
 * The shell that starts socat's relays on the sandbox's loopback, then becomes the server. It does
 * not wait for them to listen (that cost ~40 ms per start on a busy machine): socat binds within a few
 * milliseconds, while a server first boots its runtime and answers initialize before any tool call
 * that reaches out. Backgrounded jobs of a non-interactive shell stay in its process group, so
 * stopping the server's group stops them too.
 */
function relayScript(socat: string, relays: { port: number; inside: string }[]): string {
  const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const starts = relays.map(
    (r) =>
      `${q(socat)} TCP-LISTEN:${r.port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${q(r.inside)} 2>/dev/null &`,
  );
  // One line (it shows in the server's log): "&" already separates the jobs.
  return `${starts.join(' ')} exec "$@"`;
}

function isHidden(path: string, policy: Sandboxed): boolean {
  return [...policy.hidden, ...policy.temp].some((h) => isInside(path, h));
}

/**
 * The folders above `path` that bubblewrap makes inside a tmpfs root (not a root itself, and not
 * inside a folder bound from this computer, which has its own modes and may be read-only), top first.
 */
function ancestorsInside(path: string, roots: readonly string[], bound: readonly string[]): string[] {
  const parts = path.split('/').filter(Boolean);
  const out: string[] = [];
  const deepest = (above: string, among: readonly string[]) =>
    Math.max(-1, ...among.filter((r) => isInside(above, r)).map(depth));
  for (let i = 1; i < parts.length; i++) {
    const above = `/${parts.slice(0, i).join('/')}`;
    if (roots.includes(above)) continue;
    const root = deepest(above, roots);
    if (root >= 0 && deepest(above, bound) < root) out.push(above);
  }
  return out;
}

function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}

function statKind(path: string): 'file' | 'dir' | undefined {
  try {
    const s = statSync(path);
    return s.isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}
