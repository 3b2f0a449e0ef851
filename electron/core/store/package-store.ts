import { randomBytes } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { PackagePin, StoreUsage } from '../../../shared/store.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { UserError } from '../errors.ts';
import { checkTree, stampTree, type TreeStamp } from './tree-stamp.ts';

/**
 * The approved install of a server's package changed on disk since it was installed (or its approved
 * lockfile is gone): it is not started, and the person is asked again.
 */
export class StoreChangedError extends UserError {
  readonly changed: string;
  constructor(what: string, changed: string) {
    super(`the stored install of ${what} changed on disk since it was approved: ${changed}`, {
      hint: 'approve it again to install the approved version afresh',
    });
    this.name = 'StoreChangedError';
    this.changed = changed;
  }
}

/** Kinds whose installs are folders of the store (OCI images live in the container engine's own store). */
const FOLDER_KINDS = ['npm', 'pypi', 'mcpb'] as const;
type FolderKind = (typeof FOLDER_KINDS)[number];

/**
 * `<home>/store`: one folder per installed package tree, named by package, version and the first
 * digits of its tree (or lock) hash (`npm/@scope+pkg@1.2.3-0123456789ab/`), so servers pinned to the same tree
 * share it and an update installs beside the version it replaces. Next to each: its stamp
 * (`….stamp.json`, see tree-stamp.ts). `locks/` keeps each approved lockfile by its hash; `.staging/`
 * holds resolutions and installs in progress (renamed into place when complete).
 */
export class PackageStore {
  readonly root: string;
  readonly #inFlight = new Map<string, Promise<string>>();

  constructor(root: string) {
    this.root = root;
  }

  get staging(): string {
    return join(this.root, '.staging');
  }

  /** The folder a pin installs into (npm, PyPI, bundles); undefined for images. */
  folderOf(pin: PackagePin): string | undefined {
    if (pin.kind === 'oci') return undefined;
    return join(this.root, pin.kind, installId(pin));
  }

  /** Keeps an approved lockfile (or requirements, or bundle manifest) by its hash. */
  saveLock(hash: string, text: string): void {
    const file = this.#lockFile(hash);
    if (existsSync(file)) return;
    mkdirSync(join(this.root, 'locks'), { recursive: true, mode: 0o700 });
    writeFileAtomic(file, text, { mode: 0o600 });
  }

  /** The approved lockfile text, or undefined when it is gone. */
  readLock(hash: string): string | undefined {
    try {
      return readFileSync(this.#lockFile(hash), 'utf8');
    } catch {
      return undefined;
    }
  }

  #lockFile(hash: string): string {
    return join(this.root, 'locks', `${hash.replace(/[^a-zA-Z0-9]/g, '')}.txt`);
  }

  /**
   * The pin's install, verified against its stamp; installed first (by `install`, into an empty
   * staging folder) when absent. Concurrent calls for one install share one.
   */
  async ensure(pin: PackagePin, install: (dir: string) => Promise<void>): Promise<string> {
    const dir = this.folderOf(pin);
    if (!dir) throw new Error(`${pin.kind} packages have no folder in the store`);
    const running = this.#inFlight.get(dir);
    if (running) return running;
    const work = this.#ensure(pin, dir, install).finally(() => this.#inFlight.delete(dir));
    this.#inFlight.set(dir, work);
    return work;
  }

  async #ensure(pin: PackagePin, dir: string, install: (dir: string) => Promise<void>): Promise<string> {
    const stampFile = `${dir}.stamp.json`;
    if (existsSync(dir)) {
      const stamp = readStamp(stampFile);
      if (!stamp) throw new StoreChangedError(describePin(pin), 'its stamp file is missing or damaged');
      const check = checkTree(dir, stamp);
      if (!check.ok) throw new StoreChangedError(describePin(pin), check.changed);
      if (check.restamped) writeStamp(stampFile, check.restamped);
      return dir;
    }
    mkdirSync(this.staging, { recursive: true, mode: 0o700 });
    const staged = join(this.staging, `install-${randomBytes(6).toString('hex')}`);
    mkdirSync(staged, { recursive: true });
    try {
      await install(staged);
      mkdirSync(join(dir, '..'), { recursive: true, mode: 0o700 });
      renameSync(staged, dir);
    } catch (err) {
      rmSync(staged, { recursive: true, force: true });
      throw err;
    }
    // Stamped in place: a rename changes the folder's ctime.
    writeStamp(stampFile, stampTree(dir));
    return dir;
  }

  /** Quick check without installing: is the pin's install here and unchanged? */
  verify(pin: PackagePin): { ok: true } | { ok: false; changed: string } | { ok: 'missing' } {
    const dir = this.folderOf(pin);
    if (!dir || !existsSync(dir)) return { ok: 'missing' };
    const stamp = readStamp(`${dir}.stamp.json`);
    if (!stamp) return { ok: false, changed: 'its stamp file is missing or damaged' };
    const check = checkTree(dir, stamp);
    return check.ok ? { ok: true } : check;
  }

  /** Removes an install (a changed one, before it is installed afresh). */
  discard(pin: PackagePin): void {
    const dir = this.folderOf(pin);
    if (!dir) return;
    removeInstall(dir);
  }

  /**
   * Removes every install and lockfile no pin in `keep` uses, and leftovers of interrupted work.
   * Returns the install folders removed (kind/id) and the bytes freed.
   */
  prune(keep: readonly PackagePin[]): { removed: string[]; freedBytes: number } {
    const result = this.removeUnused(keep);
    if (this.#inFlight.size === 0 && existsSync(this.staging)) {
      result.freedBytes += sizeOf(this.staging);
      rmSync(this.staging, { recursive: true, force: true });
    }
    return result;
  }

  /** Removes every install and lockfile no pin in `keep` uses (installs in progress stay). */
  removeUnused(keep: readonly PackagePin[]): { removed: string[]; freedBytes: number } {
    const wanted = new Set(keep.map((pin) => this.folderOf(pin)).filter((d) => d !== undefined));
    const locks = new Set(keep.map((pin) => this.#lockFile(pin.lock)));
    const removed: string[] = [];
    let freedBytes = 0;
    for (const kind of FOLDER_KINDS) {
      for (const id of installIds(this.root, kind)) {
        const dir = join(this.root, kind, id);
        if (wanted.has(dir) || this.#inFlight.has(dir)) continue;
        freedBytes += sizeOf(dir);
        removeInstall(dir);
        removed.push(`${kind}/${id}`);
      }
    }
    const lockDir = join(this.root, 'locks');
    for (const name of safeList(lockDir)) {
      const file = join(lockDir, name);
      if (!locks.has(file)) {
        freedBytes += sizeOf(file);
        rmSync(file, { force: true });
      }
    }
    return { removed, freedBytes };
  }

  /** Disk use, per install, with the servers (by pin) that start from each. */
  usage(users: ReadonlyMap<string, PackagePin>): StoreUsage {
    const byDir = new Map<string, string[]>();
    for (const [server, pin] of users) {
      const dir = this.folderOf(pin);
      if (dir) byDir.set(dir, [...(byDir.get(dir) ?? []), server]);
    }
    const installs: StoreUsage['installs'] = [];
    for (const kind of FOLDER_KINDS) {
      for (const id of installIds(this.root, kind)) {
        const dir = join(this.root, kind, id);
        installs.push({ id: `${kind}/${id}`, bytes: sizeOf(dir), servers: byDir.get(dir) ?? [] });
      }
    }
    return { folder: this.root, bytes: existsSync(this.root) ? sizeOf(this.root) : 0, installs };
  }
}

/**
 * `@scope/pkg@1.2.3-0123456789ab`, with the characters a folder name cannot hold replaced. The digest
 * is the tree's when the pin has one (npm), so pins of one tree share one install; else the lock's.
 */
export function installId(pin: PackagePin): string {
  const digest = (pin.tree ?? pin.lock).replace(/^[a-z0-9]+:/, '').slice(0, 12);
  const safe = (s: string) => s.replace(/[^a-zA-Z0-9._@+-]/g, '+');
  return `${safe(pin.name)}@${safe(pin.version)}-${digest}`;
}

export function describePin(pin: PackagePin): string {
  return `${pin.name}@${pin.version}`;
}

function installIds(root: string, kind: FolderKind): string[] {
  return safeList(join(root, kind)).filter((name) => !name.endsWith('.json'));
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function removeInstall(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  rmSync(`${dir}.stamp.json`, { force: true });
  rmSync(`${dir}.bundle.json`, { force: true });
}

function readStamp(file: string): TreeStamp | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<TreeStamp>;
    if (!Array.isArray(parsed.paths) || typeof parsed.content !== 'string' || typeof parsed.stat !== 'string')
      return undefined;
    return { paths: parsed.paths, content: parsed.content, stat: parsed.stat };
  } catch {
    return undefined;
  }
}

function writeStamp(file: string, stamp: TreeStamp): void {
  writeFileSync(file, JSON.stringify(stamp), { mode: 0o600 });
}

/** Bytes of a file or folder tree (apparent sizes; links not followed). */
export function sizeOf(path: string): number {
  let total = 0;
  const walk = (p: string) => {
    let s;
    try {
      s = lstatSync(p);
    } catch {
      return;
    }
    if (s.isDirectory()) for (const name of readdirSync(p)) walk(join(p, name));
    else total += s.size;
  };
  walk(path);
  return total;
}
