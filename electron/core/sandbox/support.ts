import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { realOrAsGiven } from '../fs/real-path.ts';
import type { SandboxSetting } from '../../../shared/schema/servers.ts';
import { bwrapBase } from './bwrap-base.ts';

/**
 * What this machine offers to sandbox servers with: the engine (bubblewrap on Linux, Seatbelt's
 * sandbox-exec on macOS), what filters their network (socat relays into bubblewrap's empty network;
 * Seatbelt's own rules on macOS), and the words for whatever is missing, with how to get it.
 */
export interface SandboxSupport {
  platform: NodeJS.Platform;
  engine: { kind: 'bwrap' | 'seatbelt'; path: string } | null;
  /** why there is no engine, and what to do (empty when there is one) */
  missing: string;
  networkFilter: { kind: 'socat'; path: string } | { kind: 'seatbelt' } | null;
  /** why the network cannot be filtered, and what to do (empty when it can) */
  networkFilterMissing: string;
  /** temp folders a server may write: private ones on Linux, the user's own on macOS */
  temp: string[];
  /** Switchboard runs as root: bubblewrap must drop every capability */
  root: boolean;
  /** bubblewrap sizes its tmpfs mounts (`--size`, bubblewrap 0.5 and later) */
  tmpfsSize?: boolean;
  /** prlimit's path (util-linux), which sets the sandbox's rlimits; undefined when missing */
  prlimit?: string | undefined;
  /** setpriv's path (util-linux): as root, servers become nobody with it (run-as.ts) */
  setpriv?: string | undefined;
}

export interface DetectOptions {
  platform?: NodeJS.Platform;
  /** PATH to look for bwrap and socat on */
  path?: string | undefined;
  uid?: number;
}

const INSTALL_BWRAP =
  'install bubblewrap: sudo apt install bubblewrap (Debian, Ubuntu), sudo dnf install bubblewrap (Fedora), sudo pacman -S bubblewrap (Arch)';
const INSTALL_SOCAT =
  'install socat: sudo apt install socat (Debian, Ubuntu), sudo dnf install socat (Fedora), sudo pacman -S socat (Arch)';

/** Looks once; takes a few milliseconds on Linux (bubblewrap is tried for real). */
export function detectSandboxSupport(options: DetectOptions = {}): SandboxSupport {
  const platform = options.platform ?? process.platform;
  const uid = options.uid ?? process.getuid?.() ?? -1;
  const root = uid === 0;
  if (platform === 'linux') return detectLinux(options.path ?? process.env.PATH, root);
  if (platform === 'darwin') {
    const path = '/usr/bin/sandbox-exec';
    const found = isExecutable(path);
    return {
      platform,
      engine: found ? { kind: 'seatbelt', path } : null,
      missing: found ? '' : 'macOS has no /usr/bin/sandbox-exec here, so servers cannot be sandboxed',
      networkFilter: found ? { kind: 'seatbelt' } : null,
      networkFilterMissing: found ? '' : 'no sandbox-exec',
      temp: macTemp(),
      root,
    };
  }
  const os = platform === 'win32' ? 'Windows' : platform;
  return {
    platform,
    engine: null,
    missing: `${os} has no sandbox Switchboard can use`,
    networkFilter: null,
    networkFilterMissing: `${os} has no sandbox Switchboard can use`,
    temp: [],
    root,
  };
}

function detectLinux(path: string | undefined, root: boolean): SandboxSupport {
  const base = { platform: 'linux' as const, temp: ['/tmp', '/var/tmp'], root };
  const bwrap = findProgram('bwrap', path);
  if (!bwrap) {
    return {
      ...base,
      engine: null,
      missing: `bubblewrap is not installed — ${INSTALL_BWRAP}`,
      networkFilter: null,
      networkFilterMissing: 'no sandbox',
    };
  }
  // An older bubblewrap without --size still sandboxes: only its temp folders are then unbounded.
  const sized = tryBwrap(bwrap, root, true) === undefined;
  const broken = sized ? undefined : tryBwrap(bwrap, root, false);
  if (broken) {
    return {
      ...base,
      engine: null,
      missing: `bubblewrap cannot make a sandbox on this machine (${broken}) — unprivileged user namespaces may be turned off (Ubuntu 24.04: an AppArmor profile for bwrap, or sysctl kernel.apparmor_restrict_unprivileged_userns=0)`,
      networkFilter: null,
      networkFilterMissing: 'no sandbox',
    };
  }
  const socat = findProgram('socat', path);
  return {
    ...base,
    tmpfsSize: sized,
    prlimit: findProgram('prlimit', path),
    // nobody needs a temp folder it may write: --perms comes with --size
    setpriv: root && sized ? findProgram('setpriv', path) : undefined,
    engine: { kind: 'bwrap', path: bwrap },
    missing: '',
    networkFilter: socat ? { kind: 'socat', path: socat } : null,
    networkFilterMissing: socat ? '' : `socat is not installed — ${INSTALL_SOCAT}`,
  };
}

/** Runs bubblewrap once with the namespaces servers get; the first line of its complaint, if any. */
function tryBwrap(bwrap: string, root: boolean, sized: boolean): string | undefined {
  const args = [
    ...bwrapBase({ network: true, root, sized }),
    ...(sized ? ['--perms', '1777', '--size', '1048576', '--tmpfs', '/tmp'] : []),
    '--',
    '/bin/true',
  ];
  const result = spawnSync(bwrap, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
  if (result.status === 0) return undefined;
  const said = result.stderr?.toString('utf8').trim().split('\n')[0];
  return said || (result.error ? result.error.message : `exit code ${String(result.status)}`);
}

function findProgram(name: string, path: string | undefined): string | undefined {
  const dirs = (path ?? '/usr/local/bin:/usr/bin:/bin').split(delimiter).filter(Boolean);
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** macOS: the per-user temp folder (/var/folders/…/T) and /tmp, by their real paths (Seatbelt sees those). */
function macTemp(): string[] {
  return [...new Set([realOrAsGiven(tmpdir()), '/private/tmp', '/private/var/tmp'])];
}

const detected = new Map<string, SandboxSupport>();

/**
 * detectSandboxSupport, once per platform and PATH for the life of the process: every place that
 * fingerprints a server (the core, import, the catalog) sees the same answer.
 */
export function sandboxSupportFor(platform: NodeJS.Platform, path: string | undefined): SandboxSupport {
  const key = `${platform}\0${path ?? ''}`;
  let support = detected.get(key);
  if (!support) {
    support = detectSandboxSupport({ platform, path });
    detected.set(key, support);
  }
  return support;
}

/**
 * What this machine cannot enforce of a server's sandbox, as stable words that go into its
 * fingerprint: when one appears (bubblewrap uninstalled, socat missing) the approval asks again,
 * saying so. Empty when everything asked is enforced, so such servers keep the fingerprint they had.
 */
export type SandboxGap = 'no-sandbox' | 'network-unfiltered';

export function sandboxGaps(setting: SandboxSetting | undefined, support: SandboxSupport): SandboxGap[] {
  if (setting === false) return [];
  if (support.engine === null) return ['no-sandbox'];
  const network = setting?.network;
  if (network !== 'all' && network !== 'none' && support.networkFilter === null)
    return ['network-unfiltered'];
  return [];
}
