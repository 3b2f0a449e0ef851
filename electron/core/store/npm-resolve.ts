import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors.ts';
import { lockPackages, lockRoot, parseLock, pickBin, STORE_ROOT_NAME, type NpmLock } from './npm-lockfile.ts';
import { LOCK_ONLY_FLAGS, type NpmProgram } from './npm-in-process.ts';
import { runTool, type ToolRun } from './run-tool.ts';
import type { StoredPackage } from '../../../shared/store.ts';

export interface NpmTools {
  /** absolute path of npm (found beside the server's npx), or of node when npm is its script */
  npm: string;
  /** words before npm's own arguments (npm's script, when `npm` is node) */
  npmArgs: string[];
  env: NodeJS.ProcessEnv;
  /** where temporary folders go (inside the store, so a rename into place stays on one disk) */
  staging: string;
  timeoutMs?: number;
  /** writes the lockfile without an npm process per server when it can (undefined: always run npm) */
  writeLock?: LockWriter | undefined;
  /**
   * npm's own modules may be loaded into this process (npm-in-process.ts; its settings are then read
   * here, not by `npm config list`): short-lived processes only (the CLI), since they stay loaded
   */
  loadsNpm?: boolean;
  /** publish dates and `latest` straight from the registry (undefined: `npm view` asks instead) */
  about?: (name: string) => Promise<{ time: Record<string, string>; latest: string | null } | undefined>;
}

/**
 * Writes `dir/package-lock.json` as `npm install --package-lock-only` would, with the person's npm's
 * own resolver (npm-in-process.ts: in this process, or in npm-batch-child.ts's child); resolves false
 * when it cannot, and the caller runs npm.
 */
export type LockWriter = (dir: string, program: NpmProgram, timeoutMs: number) => Promise<boolean>;

export interface NpmResolution {
  name: string;
  version: string;
  lock: NpmLock;
  packages: StoredPackage[];
  /** the bin's path inside the package */
  entry: string;
  /** publish date of the version (ISO), when the registry says */
  publishedAt: string | null;
  /** the newest release (dist-tag latest), when the registry says */
  latest: string | null;
}

/**
 * Resolves an npm package the way npx would (the configured registry and its `latest`, or the range
 * written) to an exact version and its whole dependency tree with integrity hashes: npm itself writes
 * the lockfile (`npm install --package-lock-only --ignore-scripts`) in a folder of its own, so no
 * project's .npmrc or working folder has a say. Also asks the registry for the publish dates. `update`
 * and `outdated` both resolve here, so they agree.
 */
export async function resolveNpm(
  spec: { name: string; range: string; bin: string | undefined },
  tools: NpmTools,
): Promise<NpmResolution> {
  mkdirSync(tools.staging, { recursive: true });
  const dir = mkdtempSync(join(tools.staging, 'resolve-'));
  const what = `resolving ${spec.name}@${spec.range}`;
  try {
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: STORE_ROOT_NAME, private: true, dependencies: { [spec.name]: spec.range } }),
    );
    const run = {
      command: tools.npm,
      npmArgs: tools.npmArgs,
      cwd: dir,
      env: tools.env,
      timeoutMs: tools.timeoutMs ?? 300_000,
    };
    const [, times] = await Promise.all([
      writeLock(dir, tools, run, what),
      aboutPackage(spec.name, tools, run),
    ]);
    const lock = parseLock(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
    const root = lockRoot(lock, spec.name);
    if (!root?.version) throw new UserError(`${what}: npm's lockfile does not name ${spec.name}`);
    const bin = pickBin(spec.name, root.bin, spec.bin);
    if ('problem' in bin) throw new UserError(`${what}: ${bin.problem}`);
    const packages = lockPackages(lock);
    return {
      name: spec.name,
      version: root.version,
      lock,
      packages,
      entry: bin.path,
      publishedAt: times.time[root.version] ?? null,
      latest: times.latest,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * npm writes `dir/package-lock.json`: with the person's npm's own resolver without a process of npm's
 * when it can (tools.writeLock), else (or when that fails, so the error is npm's own words) by
 * running npm.
 */
async function writeLock(
  dir: string,
  tools: NpmTools,
  run: Omit<ToolRun, 'args'>,
  what: string,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  // A hung registry must not hang an approval: the same limit (and words) as the child process's.
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), run.timeoutMs);
  });
  const written = tools.writeLock
    ? tools.writeLock(dir, tools, run.timeoutMs).catch(() => false)
    : Promise.resolve(false);
  const done = await Promise.race([written, timeout]).finally(() => clearTimeout(timer));
  if (done === 'timeout')
    throw new UserError(`${what} failed: no answer in ${Math.round(run.timeoutMs / 1000)} s`);
  if (done) return;
  await runTool({ ...run, args: [...tools.npmArgs, ...LOCK_ONLY_FLAGS] }, what);
}

/** Publish dates and `latest`: from the registry directly when it answers there, else `npm view`. */
async function aboutPackage(
  name: string,
  tools: NpmTools,
  run: Parameters<typeof registryTimes>[1],
): Promise<{ time: Record<string, string>; latest: string | null }> {
  const direct = await tools.about?.(name).catch(() => undefined);
  return direct ?? registryTimes(name, run);
}

/** The registry's publish dates (packument `time`) and `latest` tag; nothing when it will not say. */
async function registryTimes(
  name: string,
  run: { command: string; npmArgs: string[]; cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<{ time: Record<string, string>; latest: string | null }> {
  try {
    const { stdout } = await runTool(
      { ...run, args: [...run.npmArgs, 'view', name, 'time', 'dist-tags', '--json'] },
      `asking the registry about ${name}`,
    );
    const parsed = JSON.parse(stdout || '{}') as { time?: unknown; 'dist-tags'?: { latest?: unknown } };
    const time: Record<string, string> = {};
    if (parsed.time && typeof parsed.time === 'object')
      for (const [k, v] of Object.entries(parsed.time)) if (typeof v === 'string') time[k] = v;
    const latest = parsed['dist-tags']?.latest;
    return { time, latest: typeof latest === 'string' ? latest : null };
  } catch {
    return { time: {}, latest: null };
  }
}
