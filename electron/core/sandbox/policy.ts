import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import type { SandboxSetting } from '../../../shared/schema/servers.ts';
import { argumentAccess } from './known-servers.ts';
import { dataMounts, runtimeAreas, secretPlaces, toolchainPlaces } from './places.ts';
import { programFiles } from './program-files.ts';
import type { RunsAs } from './run-as.ts';
import type { SandboxSupport } from './support.ts';

/** Why a path is reachable: shown on the approval next to it. */
export type GrantReason =
  'servers.json' | 'argument' | 'own folder' | 'program' | 'cwd' | 'store' | 'toolchain' | 'name lookups';

export interface Grant {
  /** absolute, normalized */
  path: string;
  why: GrantReason;
}

/**
 * How the server may use the network:
 * - `internet` (the default): any host, through Switchboard's proxy, but nothing on this computer;
 * - `list`: only the hosts listed, through the proxy (a listed loopback port is forwarded as is);
 * - `none`: no network at all;
 * - `open`: no filtering whatsoever (`"network": "all"`, or the OS cannot filter: `unfiltered` says why).
 */
export type NetworkPolicy =
  | { kind: 'internet' }
  | { kind: 'list'; entries: string[] }
  | { kind: 'none' }
  | { kind: 'open'; unfiltered?: { asked: 'internet' | 'list' | 'none'; because: string } };

export type SandboxPolicy =
  | {
      sandboxed: true;
      platform: NodeJS.Platform;
      /** the person's home folder ($HOME), hidden but for what is granted */
      userHome: string | undefined;
      /** areas hidden as a whole (home, Switchboard's home, /run and the runtime dir, mounted drives) */
      hidden: string[];
      /** temp folders: private to the server where the OS allows (Linux), writable */
      temp: string[];
      /** readable beyond the system (hidden areas' granted parts, toolchains, the program) */
      read: Grant[];
      /** readable and writable (its own folder, granted folders) */
      write: Grant[];
      /** secret-bearing places that stay hidden even inside a granted folder, unless named */
      secrets: string[];
      network: NetworkPolicy;
      /** env the sandbox adds (a known server's data file in its own folder) */
      env: Record<string, string>;
      /** a server known by name whose arguments became grants */
      known: string | undefined;
      /** who it runs as (run-as.ts); absent means the user Switchboard runs as */
      runsAs?: RunsAs;
      /** the files that must be readable for it to start (program, real file, interpreter, loader) */
      programs: string[];
    }
  | {
      sandboxed: false;
      platform: NodeJS.Platform;
      /** the person chose it (`"sandbox": false`) rather than the OS lacking one */
      chosen: boolean;
      /** why, in words, and what to do about it */
      because: string;
    };

export interface PolicyInput {
  name: string;
  /** servers.json's `sandbox`, as written */
  setting: SandboxSetting | undefined;
  /** the program's absolute path (as found on PATH) and its real file */
  command: string;
  realCommand?: string | undefined;
  /** other programs a start runs instead (a stored package's node): readable like the command */
  runs?: readonly string[] | undefined;
  args: readonly string[];
  /** the server's own env as written (references unresolved) */
  env: Readonly<Record<string, string>>;
  /** servers.json's cwd, when it gives one */
  cwd: string | undefined;
  /** serverDataDir(home, name): its working folder and the one place it may write */
  ownFolder: string;
  /** Switchboard's home (tokens, state.json, other servers' folders): hidden */
  switchboardHome: string;
  /** HomePaths.store: packages servers run from; readable when its program or an argument is there */
  storeFolder?: string | undefined;
  /** the store install this start runs from (its code, read-only) */
  storedAt?: string | undefined;
  /** $HOME */
  userHome: string | undefined;
  /** $XDG_RUNTIME_DIR (sockets of the keyring, ssh-agent, D-Bus): hidden */
  runtimeDir?: string | undefined;
  /**
   * Where bridge tokens are kept or handed out: Switchboard's tokens/ and run/ (the bridge's local
   * socket). Hidden whatever a policy grants, servers.json included: a grant of "~" does not mean
   * "and my editors' tokens".
   */
  sealed?: readonly string[] | undefined;
  /** each editor's settings file (Switchboard writes tokens there): sealed with the folder it is in */
  tokenFiles?: readonly string[] | undefined;
  support: SandboxSupport;
}

/** Files that, given as an argument, are a program: its whole project is what it needs to run. */
const SCRIPT = /\.(?:[cm]?[jt]s|py|rb|php|pl|sh|jar)$/;
const PROJECT_MARKERS = ['package.json', 'pyproject.toml', 'setup.py', 'go.mod', 'Cargo.toml', '.git'];

/**
 * The effective sandbox of one local server: the default policy, what servers.json adds, and what
 * its arguments name (docs/decisions/sandbox.md). Looks at the disk (which arguments are paths,
 * which secret places exist), so it is computed when shown and again at each start.
 */
export function sandboxPolicy(input: PolicyInput): SandboxPolicy {
  const { support } = input;
  const platform = support.platform;
  if (input.setting === false) {
    return {
      sandboxed: false,
      platform,
      chosen: true,
      because: '"sandbox": false in servers.json',
    };
  }
  if (support.engine === null) {
    return { sandboxed: false, platform, chosen: false, because: support.missing };
  }
  const home = input.userHome && input.userHome !== '/' ? posix.normalize(input.userHome) : undefined;
  const expand = (path: string): string => {
    if (path === '~' || path.startsWith('~/')) return home ? posix.join(home, path.slice(1)) : path;
    return posix.normalize(path);
  };
  const read: Grant[] = [];
  const write: Grant[] = [];
  const setting = input.setting ?? {};

  write.push({ path: input.ownFolder, why: 'own folder' });
  for (const path of setting.write ?? []) write.push({ path: expand(path), why: 'servers.json' });
  for (const path of setting.read ?? []) read.push({ path: expand(path), why: 'servers.json' });

  const known = argumentAccess(input.command, input.args, input.env, input.ownFolder);
  for (const path of known.write) write.push({ path: expand(path), why: 'argument' });
  // Any other server's path arguments (a script, a folder to work on) are readable: the person
  // wrote them, and the approval shows them. A known server's folders are granted above; its own
  // script (`node …/server-filesystem/dist/index.js`) must still be readable to run.
  for (const path of pathArguments(input.args, expand, known.known !== undefined))
    read.push({ path, why: 'argument' });
  if (input.cwd) read.push({ path: expand(input.cwd), why: 'cwd' });
  const store = input.storeFolder;
  if (
    store &&
    [input.command, input.realCommand ?? '', ...input.args].some((w) => isInside(expand(w), store))
  )
    read.push({ path: store, why: 'store' });
  if (input.storedAt) read.push({ path: input.storedAt, why: 'store' });
  // A program installed under a hidden folder (~/bin/tool, ~/dev/venv/bin/python, a checkout's
  // node_modules/.bin/node under /tmp): its prefix, for the path it is run by and for the real file,
  // interpreter and loader behind it, each of which must be readable for it to start.
  const programs = programFiles([input.command, input.realCommand, ...(input.runs ?? [])]);
  for (const program of programs) read.push({ path: posix.dirname(posix.dirname(program)), why: 'program' });
  if (home)
    for (const place of toolchainPlaces(platform))
      read.push({ path: posix.join(home, place), why: 'toolchain' });

  const hidden = [input.switchboardHome, ...dataMounts(platform)];
  if (home) hidden.push(home);
  // /var/run is mostly a link to /run: hiding /run hides it (a mount on the link would land on /run).
  const runtime = runtimeAreas(platform).filter((p) => !isLink(p));
  hidden.push(...runtime);
  const runtimeDir = input.runtimeDir?.startsWith('/') ? posix.normalize(input.runtimeDir) : undefined;
  if (runtimeDir && !isHiddenBy(runtimeDir, runtime)) hidden.push(runtimeDir);
  const network = networkPolicy(setting.network, support);
  // With its network open, a server resolves names itself: /etc/resolv.conf often links into /run
  // (systemd-resolved, NetworkManager, resolvconf), so that one folder is read back. A filtered
  // server's names are looked up by its proxy, outside the sandbox.
  const resolvConf = network.kind === 'open' ? realFolderOf('/etc/resolv.conf') : undefined;
  if (resolvConf && isHiddenBy(resolvConf, runtime)) read.push({ path: resolvConf, why: 'name lookups' });

  const temp = support.temp;
  const secrets = home ? secretPlaces(platform).map((place) => posix.join(home, place)) : [];
  // Switchboard's home holds every token: hidden even inside a granted folder, except each server's
  // own folder and stored package, which are bound again on top.
  secrets.push(input.switchboardHome);
  const sealed = [
    ...(input.sealed ?? []).map((p) => posix.normalize(p)),
    ...(input.tokenFiles ?? []).map((p) => sealedPlace(posix.normalize(p), home)),
  ];
  secrets.push(...sealed);

  // Only servers.json may open a secret place (or Switchboard's home): a path in its arguments,
  // its cwd or where its program lives never does. Its own folder and package are bound on top.
  // Nothing opens a sealed place.
  const ownOrStore = (g: Grant) => g.why === 'own folder' || g.why === 'store';
  const opensSecrets = (g: Grant) => g.why === 'servers.json' || ownOrStore(g);
  const mayUse = (g: Grant) =>
    (opensSecrets(g) || !secrets.some((s) => isInside(g.path, s))) &&
    (ownOrStore(g) || !sealed.some((s) => isInside(g.path, s)));

  const writes = dedupe(write.filter((g) => !isRootPath(g.path) && mayUse(g)));
  // A program or argument under a system folder needs no grant: keep only what is hidden.
  const reads = dedupe(
    read.filter((g) => isHiddenBy(g.path, [...hidden, ...temp]) && !isRootPath(g.path) && mayUse(g)),
  );
  const needs = [...reads.map((g) => g.path), ...(input.cwd ? [expand(input.cwd)] : [])];
  return {
    sandboxed: true,
    platform,
    runsAs: runsAs(support, writes, needs, [...hidden, ...temp]),
    userHome: home,
    hidden: unique(hidden.filter((p) => p !== '/')),
    temp,
    read: reads,
    write: writes,
    secrets: unique(secrets),
    network,
    env: known.env,
    known: known.known,
    programs,
  };
}

/**
 * Under root: nobody, unless it writes more than its own folder, or needs a folder nobody may enter
 * (its cwd, a program or argument in a root-only folder, a bundle in the private store): either way
 * nobody could not run it.
 */
function runsAs(
  support: SandboxSupport,
  writes: readonly Grant[],
  needs: readonly string[],
  bwrapMade: readonly string[],
): RunsAs {
  if (!support.root) return 'you';
  if (!support.setpriv || support.engine?.kind !== 'bwrap') return 'root';
  if (needs.some((path) => !nobodyMayEnter(path, bwrapMade))) return 'root';
  return writes.every((g) => g.why === 'own folder') ? 'nobody' : 'root';
}

/**
 * Whether uid 65534 can enter `folder` (or read a granted file) inside the sandbox: the folder keeps its own mode there, and
 * so does every folder above it that the sandbox shows as it is; those that stand in for a hidden area
 * (the home, /tmp) are made by bubblewrap, passable.
 */
function nobodyMayEnter(folder: string, bwrapMade: readonly string[]): boolean {
  for (let dir = folder; ; dir = posix.dirname(dir)) {
    const made = dir !== folder && bwrapMade.some((h) => isInside(dir, h));
    if (!made) {
      try {
        const st = statSync(dir);
        // a folder is entered (x), a granted file read (r), by "other": nobody owns neither
        const bit = st.isDirectory() ? 0o001 : 0o004;
        if (st.uid !== 65534 && (st.mode & bit) === 0) return false;
      } catch {
        return true; // not there yet: nothing to judge (the start says so if it still is not)
      }
    }
    if (dir === '/') return true;
  }
}

function networkPolicy(
  setting: 'all' | 'none' | string[] | undefined,
  support: SandboxSupport,
): NetworkPolicy {
  if (setting === 'all') return { kind: 'open' };
  const asked: NetworkPolicy =
    setting === 'none'
      ? { kind: 'none' }
      : setting === undefined
        ? { kind: 'internet' }
        : { kind: 'list', entries: [...new Set(setting.map((e) => e.toLowerCase()))] };
  if (asked.kind !== 'none' && support.networkFilter === null) {
    return { kind: 'open', unfiltered: { asked: asked.kind, because: support.networkFilterMissing } };
  }
  return asked;
}

/** Absolute (or ~/) paths among the arguments: a script's whole project, a folder, a file. */
function pathArguments(
  args: readonly string[],
  expand: (p: string) => string,
  scriptsOnly = false,
): string[] {
  const out: string[] = [];
  for (const arg of args) {
    const value = arg.startsWith('-') && arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : arg;
    if (!(value.startsWith('/') || value.startsWith('~/'))) continue;
    const path = expand(value);
    let isFile = false;
    try {
      isFile = statSync(path).isFile();
    } catch {
      // Not there yet: the path itself, so what is shown now is what it may read once it is.
    }
    const script = isFile && SCRIPT.test(path);
    if (script) out.push(projectOf(path));
    else if (!scriptsOnly) out.push(path);
  }
  return out;
}

/**
 * The nearest folder above a script that looks like its project (package.json, .git, …). A script
 * inside node_modules resolves its dependencies from every node_modules above it (npm hoists them),
 * so its project is the outermost node_modules folder, not the package's own folder.
 */
function projectOf(script: string): string {
  const modules = script.indexOf('/node_modules/');
  if (modules > 0) return script.slice(0, modules + '/node_modules'.length);
  let dir = posix.dirname(script);
  for (let depth = 0; depth < 8 && dir !== '/'; depth++) {
    if (PROJECT_MARKERS.some((m) => existsSync(posix.join(dir, m)))) return dir;
    dir = posix.dirname(dir);
  }
  return posix.dirname(script);
}

/**
 * What hides a sealed file: the folder it is in (an editor's own folder, ~/.cursor), since a mount on
 * a file is lifted by the kernel when the file is replaced by a rename (how editors and Switchboard
 * write them); the file itself when that folder is the home or above it.
 */
function sealedPlace(path: string, home: string | undefined): string {
  const folder = posix.dirname(path);
  if (folder === '/' || (home && isInside(home, folder))) return path;
  return folder;
}

/** A grant that names a secret place (or something in it) opens it: only servers.json's do. */
export function namesSecret(grant: Grant, secret: string): boolean {
  return grant.why === 'servers.json' && isInside(grant.path, secret);
}

export function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith('/') ? folder : `${folder}/`);
}

function isHiddenBy(path: string, hidden: readonly string[]): boolean {
  return hidden.some((h) => isInside(path, h));
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The folder of the file a path finally resolves to, when it exists. */
function realFolderOf(path: string): string | undefined {
  try {
    return posix.dirname(realpathSync(path));
  } catch {
    return undefined;
  }
}

function isRootPath(path: string): boolean {
  return path === '/' || path === '';
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}

/** The first grant of each path wins (its reason is the one shown). */
function dedupe(grants: Grant[]): Grant[] {
  const seen = new Set<string>();
  return grants.filter((g) => (seen.has(g.path) ? false : (seen.add(g.path), true)));
}
