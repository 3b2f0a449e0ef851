import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NpmBatchChild } from '../../../electron/core/store/npm-batch-child.ts';
import type { NpmProgram } from '../../../electron/core/store/npm-in-process.ts';
import { resolveNpm } from '../../../electron/core/store/npm-resolve.ts';
import { lockResolvers, watchLockResolvers } from '../../helpers/lock-resolvers.ts';
import { startNpmRegistry, type NpmRegistry } from '../../helpers/npm-registry.ts';
import { waitFor } from '../../helpers/servers.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

// serve's batch resolver child (npm-batch-child.ts) with the real npm on PATH and a real local
// registry: a batch of locks written by one child, exactly as `npm install --package-lock-only`
// writes them, and every way it cannot (npm not recognised, the child failing or missing) ending in
// npm's own process, as before.

const run = promisify(execFile);
const FIXTURES = join(import.meta.dirname, '../../fixtures/store');

let t: TempHome;
let registry: NpmRegistry;
let program: NpmProgram;

beforeEach(async () => {
  t = tempHome();
  registry = await startNpmRegistry();
  await registry.publish(join(FIXTURES, 'sb-store-dep'));
  await registry.publish(join(FIXTURES, 'sb-store-pkg'));
  await registry.publishAs(join(FIXTURES, 'sb-store-dep'), '1.0.1');
  // The npm the store would use: npx's own npm-cli.js, run by the node on PATH (npm-package.ts).
  const which = (name: string) => execFileSync('which', [name], { encoding: 'utf8' }).trim();
  const staging = join(t.dir, 'staging');
  mkdirSync(staging);
  program = {
    npm: which('node'),
    npmArgs: [join(dirname(realpathSync(which('npx'))), 'npm-cli.js')],
    env: { ...t.env, ...registry.npmEnv(join(t.dir, 'npm-cache')) },
    staging,
  };
});

afterEach(async () => {
  await registry.close();
  t.cleanup();
});

/** A folder asking for sb-store-pkg as the store's resolution folders do. */
function project(): string {
  const dir = mkdtempSync(join(program.staging, 'resolve-'));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'switchboard-store', private: true, dependencies: { 'sb-store-pkg': '^1.0.0' } }),
  );
  return dir;
}

const batchChildren = () => lockResolvers(process.pid).batch;

const lockOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as unknown;

describe('npm batch child', { timeout: 120_000 }, () => {
  it('writes a batch of locks in one child process, as npm itself writes them, and the child exits after the batch', async () => {
    const batch = new NpmBatchChild({ lingerMs: 200 });
    const dirs = [project(), project(), project()];
    const { value: written, batch: seen } = await watchLockResolvers(process.pid, () =>
      Promise.all(dirs.map((dir) => batch.write(dir, program, 60_000))),
    );
    expect(written).toEqual([true, true, true]);
    expect(seen.size).toBe(1);

    // npm's own `npm install --package-lock-only` in a fresh folder writes the same lockfile.
    const byNpm = project();
    // (Not execFileSync: the registry answers from this process.)
    await run(program.npm, [...program.npmArgs, 'install', '--package-lock-only', '--ignore-scripts'], {
      cwd: byNpm,
      env: program.env,
    });
    for (const dir of dirs) expect(lockOf(dir)).toEqual(lockOf(byNpm));
    expect(
      (lockOf(dirs[0] ?? '') as { packages: Record<string, { version: string }> }).packages,
    ).toMatchObject({ 'node_modules/sb-store-dep': { version: '1.0.1' } });

    // No lock asked for a while: the child is gone, and the next lock starts another.
    const [pid] = seen;
    await waitFor(() => (batchChildren().length === 0 ? true : undefined), 10_000, 'the batch child to exit');
    expect(await batch.write(project(), program, 60_000)).toBe(true);
    expect(batchChildren()).not.toContain(pid);
  });

  it('answers false for an npm it does not recognise, and resolveNpm then runs npm', async () => {
    const batch = new NpmBatchChild({ lingerMs: 200 });
    // `npm` as a program of its own (as from `npm exec` or a shim), not npm's script run by node.
    const shim = {
      ...program,
      npm: execFileSync('which', ['npm'], { encoding: 'utf8' }).trim(),
      npmArgs: [],
    };
    expect(await batch.write(project(), shim, 60_000)).toBe(false);
    const resolved = await resolveNpm(
      { name: 'sb-store-pkg', range: '^1.0.0', bin: undefined },
      { ...shim, writeLock: (dir, p, ms) => batch.write(dir, p, ms) },
    );
    expect(resolved.packages.map((p) => `${p.name}@${p.version}`).sort()).toEqual([
      'sb-store-dep@1.0.1',
      'sb-store-pkg@1.0.0',
    ]);
  });

  it('a child that fails, or no child script at all: every lock of the batch falls back to npm', async () => {
    const failing = join(t.dir, 'failing-child.mjs');
    writeFileSync(failing, 'process.exit(3);\n');
    for (const script of [failing, join(t.dir, 'no-such-script.mjs')]) {
      const batch = new NpmBatchChild({ script, lingerMs: 200 });
      expect(
        await Promise.all([batch.write(project(), program, 60_000), batch.write(project(), program, 60_000)]),
      ).toEqual([false, false]);
      const resolved = await resolveNpm(
        { name: 'sb-store-pkg', range: '^1.0.0', bin: undefined },
        { ...program, writeLock: (dir, p, ms) => batch.write(dir, p, ms) },
      );
      expect(resolved.version).toBe('1.0.0');
      expect(resolved.packages.find((p) => p.name === 'sb-store-dep')?.version).toBe('1.0.1');
    }
  });
});
