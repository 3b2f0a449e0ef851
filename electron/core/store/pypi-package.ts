import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PackagePin, StoredPackage } from '../../../shared/store.ts';
import { UserError } from '../errors.ts';
import { canonicalJson } from '../trust/canonical-json.ts';
import { resolveCommand, type CommandLookup } from '../trust/resolve-command.ts';
import type { Candidate } from './candidate.ts';
import type { PackageRun } from './package-run.ts';
import { StoreChangedError, type PackageStore } from './package-store.ts';
import { runTool } from './run-tool.ts';
import { compareNames } from '../text-order.ts';

type PypiRun = Extract<PackageRun, { kind: 'pypi' }>;

/** What resolving and launching a PyPI run take (each takes the part of the store it uses beside it). */
export interface PypiContext {
  env: NodeJS.ProcessEnv;
  lookup: CommandLookup;
  platform: NodeJS.Platform;
}

/** One pinned requirement of a `uv pip compile --generate-hashes` output. */
export interface PinnedRequirement {
  name: string;
  version: string;
  hashes: string[];
}

/** PEP 503 normalized project name (what pip and uv compare). */
export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/**
 * Reads hashed requirements (`name==1.2.3 \ --hash=sha256:…`, comments and markers allowed) into
 * exact pins; throws on a line that is not one (a range, a URL, a requirement without a hash).
 */
export function parseRequirements(text: string): PinnedRequirement[] {
  const joined = text.replace(/\\\r?\n/g, ' ');
  const out: PinnedRequirement[] = [];
  for (const raw of joined.split(/\r?\n/)) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (line === '') continue;
    const match =
      /^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;]+)\s*(?:;[^-]*)?((?:\s*--hash=[a-z0-9]+:[a-fA-F0-9]+)+)\s*$/.exec(
        line,
      );
    if (!match) throw new Error(`not an exact, hashed requirement: ${line.slice(0, 120)}`);
    const hashes = [...(match[3] ?? '').matchAll(/--hash=([a-z0-9]+:[a-fA-F0-9]+)/g)].map((m) => m[1] ?? '');
    out.push({ name: normalizeName(match[1] ?? ''), version: match[2] ?? '', hashes: hashes.sort() });
  }
  return out.sort((a, b) => compareNames(a.name, b.name));
}

/** sha256 of the pins (names, versions, every hash), independent of the text's layout. */
export function requirementsHash(pins: readonly PinnedRequirement[]): string {
  return createHash('sha256').update(canonicalJson(pins)).digest('hex');
}

function uvOf(ctx: Pick<PypiContext, 'lookup'>): string {
  const uv = resolveCommand('uv', ctx.lookup);
  if (!uv)
    throw new UserError('uv was not found on PATH', {
      hint: 'install uv (it brings uvx): https://docs.astral.sh/uv/getting-started/installation/',
    });
  return uv;
}

/**
 * Resolves a uvx run the way uv would (its configured index) to exact versions with their hashes:
 * `uv pip compile --generate-hashes` in a folder of its own.
 */
export async function resolvePypiCandidate(
  run: PypiRun,
  ctx: PypiContext & { store: Pick<PackageStore, 'staging' | 'folderOf'> },
): Promise<Candidate> {
  const uv = uvOf(ctx);
  mkdirSync(ctx.store.staging, { recursive: true });
  const dir = mkdtempSync(join(ctx.store.staging, 'resolve-'));
  try {
    writeFileSync(join(dir, 'requirements.in'), `${run.requirement}\n`);
    await runTool(
      {
        command: uv,
        args: [
          'pip',
          'compile',
          'requirements.in',
          '--generate-hashes',
          '--quiet',
          '--no-header',
          '-o',
          'requirements.txt',
        ],
        cwd: dir,
        env: ctx.env,
        timeoutMs: 300_000,
      },
      `resolving ${run.requirement}`,
    );
    const text = readFileSync(join(dir, 'requirements.txt'), 'utf8');
    const pins = parseRequirements(text);
    const own = pins.find((p) => p.name === normalizeName(run.name));
    if (!own) throw new UserError(`resolving ${run.requirement}: uv's answer does not name ${run.name}`);
    const pin: PackagePin = {
      kind: 'pypi',
      name: run.name,
      version: own.version,
      lock: requirementsHash(pins),
      entry: run.script,
      runtime: uv,
    };
    const folder = ctx.store.folderOf(pin);
    return {
      run,
      pin,
      lockText: text,
      packages: pins.map((p) => ({ name: p.name, version: p.version, installScript: false })),
      publishedAt: null,
      latest: null,
      runs: [scriptPath(folder ?? '', run.script, ctx.platform), ...run.args],
      folder,
      notes: [],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function scriptPath(folder: string, script: string, platform: NodeJS.Platform): string {
  return platform === 'win32'
    ? join(folder, 'venv', 'Scripts', `${script}.exe`)
    : join(folder, 'venv', 'bin', script);
}

export function pypiPackagesOf(pin: PackagePin, store: PackageStore): StoredPackage[] | undefined {
  const text = store.readLock(pin.lock);
  if (text === undefined) return undefined;
  try {
    return parseRequirements(text).map((p) => ({ name: p.name, version: p.version, installScript: false }));
  } catch {
    return undefined;
  }
}

/** The approved PyPI pin's install (a venv of exactly the hashed requirements) and its script. */
export async function pypiLaunch(
  pin: PackagePin,
  args: readonly string[],
  ctx: PypiContext & { store: Pick<PackageStore, 'ensure' | 'readLock'> },
  note: (text: string) => void,
): Promise<{ command: string; args: string[]; folder: string }> {
  const folder = await ctx.store.ensure(pin, async (dir) => {
    const text = ctx.store.readLock(pin.lock);
    let pins: PinnedRequirement[] | undefined;
    try {
      pins = text === undefined ? undefined : parseRequirements(text);
    } catch {
      pins = undefined;
    }
    if (!text || !pins || requirementsHash(pins) !== pin.lock)
      throw new StoreChangedError(
        `${pin.name}@${pin.version}`,
        'its approved requirements are missing or changed',
      );
    note(`installing ${pin.name}==${pin.version} into the package store (${pins.length} packages)`);
    const uv = uvOf(ctx);
    writeFileSync(join(dir, 'requirements.txt'), text);
    const run = { command: uv, cwd: dir, env: ctx.env, timeoutMs: 600_000 };
    await runTool({ ...run, args: ['venv', 'venv', '--quiet'] }, 'making the package store venv');
    const python =
      ctx.platform === 'win32'
        ? join(dir, 'venv', 'Scripts', 'python.exe')
        : join(dir, 'venv', 'bin', 'python');
    await runTool(
      { ...run, args: ['pip', 'sync', '--require-hashes', '--python', python, 'requirements.txt'] },
      'installing into the package store (uv pip sync)',
    );
  });
  return { command: scriptPath(folder, pin.entry ?? pin.name, ctx.platform), args: [...args], folder };
}
