import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { PackagePin } from '../../../shared/store.ts';
import { UserError } from '../errors.ts';
import { realCommand, resolveCommand, type CommandLookup } from '../trust/resolve-command.ts';
import type { Candidate } from './candidate.ts';
import { installNpm } from './npm-install.ts';
import { lockStillCurrent } from './npm-lock-current.ts';
import { lockPackages, parseLock, treeHash } from './npm-lockfile.ts';
import type { NpmRegistryView } from './npm-registry-view.ts';
import { npmEnv } from './npm-env.ts';
import { resolveNpm, type LockWriter, type NpmTools } from './npm-resolve.ts';
import type { PackageRun } from './package-run.ts';
import { StoreChangedError, type PackageStore } from './package-store.ts';

type NpmRun = Extract<PackageRun, { kind: 'npm' }>;

/** What resolving, checking and launching an npm run take (each takes its part of the store beside it). */
export interface NpmContext {
  env: NodeJS.ProcessEnv;
  lookup: CommandLookup;
  /** the registry read directly (packuments), where npm's settings allow */
  registry?: Pick<NpmRegistryView, 'about'>;
  /** how lockfiles are written without an npm process per server (NpmTools.writeLock) */
  writeLock?: LockWriter | undefined;
  /** npm's own modules may be loaded into this process (NpmTools.loadsNpm) */
  loadsNpm?: boolean;
}

/**
 * The npm the person's npx belongs to: npx is npm's own `npx-cli.js`, so its `npm-cli.js` beside it
 * (run with the node on PATH, as npx's `#!/usr/bin/env node` is), else an `npm` beside npx, else the
 * first npm on PATH (`npm exec`, `pnpm dlx`, `bunx`).
 */
function npmTools(ctx: Omit<NpmContext, 'registry'> & { store: Pick<PackageStore, 'staging'> }): NpmTools {
  const env = npmEnv(ctx.env, ctx.lookup.path);
  const base = {
    env,
    staging: ctx.store.staging,
    writeLock: ctx.writeLock,
    loadsNpm: ctx.loadsNpm === true,
  };
  const npx = resolveCommand('npx', ctx.lookup);
  if (npx) {
    const real = realCommand(npx);
    const script = join(dirname(real), 'npm-cli.js');
    const node = resolveCommand('node', ctx.lookup);
    if (basename(real) === 'npx-cli.js' && node && existsSync(script))
      return { ...base, npm: node, npmArgs: [script] };
    for (const dir of new Set([dirname(npx), dirname(real)])) {
      const npm = resolveCommand('npm', { ...ctx.lookup, path: dir });
      if (npm) return { ...base, npm, npmArgs: [] };
    }
  }
  const npm = resolveCommand('npm', ctx.lookup);
  if (!npm)
    throw new UserError('npm was not found on PATH', {
      hint: 'install Node.js (it brings npm and npx): https://nodejs.org/',
    });
  return { ...base, npm, npmArgs: [] };
}

/** The program that runs a stored package is no longer the approved one: it must be approved again. */
export class RuntimeChangedError extends UserError {
  constructor(message: string) {
    super(message, { hint: 'approve the server again to run it with this one' });
    this.name = 'RuntimeChangedError';
  }
}

/**
 * Which Node runs a stored npm server: the first `node` on the server's PATH, the one npx's own
 * `#!/usr/bin/env node` would have started. Pinned by the approval like any command.
 */
export function findNode(lookup: CommandLookup): { runtime: string; runtimeReal: string | undefined } {
  const node = resolveCommand('node', lookup);
  if (!node)
    throw new UserError('node was not found on PATH', { hint: 'install Node.js: https://nodejs.org/' });
  const real = realCommand(node);
  return { runtime: node, runtimeReal: real === node ? undefined : real };
}

export async function resolveNpmCandidate(
  run: NpmRun,
  ctx: NpmContext & { store: Pick<PackageStore, 'staging' | 'folderOf'> },
): Promise<Candidate> {
  const base = npmTools(ctx);
  const registry = ctx.registry;
  const tools = registry ? { ...base, about: (name: string) => registry.about(base, name) } : base;
  const node = findNode(ctx.lookup);
  const resolution = await resolveNpm({ name: run.name, range: run.range, bin: run.bin }, tools);
  const pin: PackagePin = {
    kind: 'npm',
    name: resolution.name,
    version: resolution.version,
    lock: resolution.lock.hash,
    tree: treeHash(resolution.lock.packages),
    entry: resolution.entry,
    ...node,
  };
  const folder = ctx.store.folderOf(pin);
  return {
    run,
    pin,
    lockText: resolution.lock.text,
    packages: resolution.packages,
    publishedAt: resolution.publishedAt,
    latest: resolution.latest,
    runs: [node.runtime, entryPath(folder ?? '', pin), ...run.args],
    folder,
    notes: [],
  };
}

/**
 * Whether the approved pin is still what resolving its command line afresh would give, judged from
 * the registry's packuments without running npm (see npm-lock-current.ts); false whenever unsure.
 */
export async function npmPinStillNewest(
  pin: PackagePin,
  run: NpmRun,
  ctx: NpmContext & { registry: NpmRegistryView; store: Pick<PackageStore, 'staging' | 'readLock'> },
): Promise<boolean> {
  const text = ctx.store.readLock(pin.lock);
  let lock;
  try {
    lock = text === undefined ? undefined : parseLock(text);
  } catch {
    return false;
  }
  if (!lock || lock.hash !== pin.lock || pin.name !== run.name) return false;
  const node = findNode(ctx.lookup);
  if (node.runtime !== pin.runtime || node.runtimeReal !== pin.runtimeReal) return false;
  const packuments = ctx.registry.packuments(npmTools(ctx));
  // A newer release outside the range written is news too (npm would not pick it; outdated says it).
  const own = await packuments(pin.name);
  if (own?.['dist-tags']?.latest !== pin.version) return false;
  return lockStillCurrent(lock, { name: run.name, range: run.range }, packuments);
}

function entryPath(folder: string, pin: PackagePin): string {
  return join(folder, 'node_modules', ...pin.name.split('/'), pin.entry ?? '');
}

/** The installed packages of an approved npm pin (from its kept lockfile), for diffs. */
export function npmPackagesOf(pin: PackagePin, store: PackageStore) {
  const text = store.readLock(pin.lock);
  if (text === undefined) return undefined;
  try {
    return lockPackages(parseLock(text));
  } catch {
    return undefined;
  }
}

/**
 * The approved npm pin's install (installed from its kept lockfile when absent, verified when there)
 * and how to start it: `node <bin file> ARGS` from the store.
 */
export async function npmLaunch(
  pin: PackagePin,
  args: readonly string[],
  ctx: Omit<NpmContext, 'registry'> & { store: Pick<PackageStore, 'staging' | 'ensure' | 'readLock'> },
  note: (text: string) => void,
): Promise<{ command: string; args: string[]; folder: string; binDir: string }> {
  const node = findNode(ctx.lookup);
  if (node.runtime !== pin.runtime || node.runtimeReal !== pin.runtimeReal) {
    throw new RuntimeChangedError(
      `node on PATH is now ${node.runtimeReal ?? node.runtime}, not the approved ${pin.runtimeReal ?? pin.runtime}`,
    );
  }
  const folder = await ctx.store.ensure(pin, async (dir) => {
    const text = ctx.store.readLock(pin.lock);
    const lock = text === undefined ? undefined : parseLock(text);
    if (!lock || lock.hash !== pin.lock) {
      throw new StoreChangedError(
        `${pin.name}@${pin.version}`,
        'its approved lockfile is missing or changed',
      );
    }
    note(
      `installing ${pin.name}@${pin.version} into the package store (${lockPackages(lock).length} packages)`,
    );
    await installNpm(lock, pin.scripts ?? [], dir, npmTools(ctx));
  });
  const entry = entryPath(folder, pin);
  const shebang = firstLine(entry);
  if (shebang.startsWith('#!') && !/\bnode\b/.test(shebang)) {
    throw new UserError(
      `${pin.name}'s program ${pin.entry ?? ''} is not a Node script (it starts with ${shebang.slice(0, 60)})`,
      { hint: 'Switchboard runs stored npm packages with Node only' },
    );
  }
  return {
    command: pin.runtime ?? 'node',
    args: [entry, ...args],
    folder,
    binDir: join(folder, 'node_modules', '.bin'),
  };
}

function firstLine(file: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buffer = Buffer.alloc(200);
    const read = readSync(fd, buffer, 0, 200, 0);
    return buffer.subarray(0, read).toString('utf8').split('\n')[0] ?? '';
  } catch {
    throw new UserError(`the stored program ${file} cannot be read`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
