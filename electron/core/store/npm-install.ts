import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeError } from '../errors.ts';
import { STORE_ROOT_NAME, type NpmLock } from './npm-lockfile.ts';
import { runTool } from './run-tool.ts';
import type { NpmTools } from './npm-resolve.ts';

/**
 * Installs exactly the locked tree into `dir` (an empty staging folder): `npm ci` checks every
 * tarball against the lockfile's integrity and fails rather than install anything else. Install
 * scripts stay off; those the approval named (`scripts`, name@version) run afterwards through
 * `npm rebuild` of just those packages.
 */
export async function installNpm(
  lock: NpmLock,
  scripts: readonly string[],
  dir: string,
  tools: NpmTools,
): Promise<void> {
  const root = lock.packages[''] as { dependencies?: Record<string, string> } | undefined;
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: STORE_ROOT_NAME, private: true, dependencies: root?.dependencies ?? {} }),
  );
  writeFileSync(join(dir, 'package-lock.json'), lock.text);
  const run = { command: tools.npm, cwd: dir, env: tools.env, timeoutMs: tools.timeoutMs ?? 600_000 };
  const ci = [...tools.npmArgs, 'ci', '--ignore-scripts', '--no-audit', '--no-fund'];
  try {
    await runTool(
      { ...run, args: [...ci, '--prefer-offline'] },
      'installing into the package store (npm ci)',
    );
  } catch (err) {
    if (!/\bETARGET\b/.test(describeError(err))) throw err;
    // --prefer-offline takes npm's cached metadata however old: after an update, a package's cached
    // list of versions may predate the release the lockfile names (npm: ETARGET). Once more, with npm
    // checking its cache against the registry; the lockfile's integrity still decides what installs.
    await runTool({ ...run, args: ci }, 'installing into the package store (npm ci)');
  }
  if (scripts.length > 0) {
    const names = scripts.map((s) => s.slice(0, s.lastIndexOf('@') > 0 ? s.lastIndexOf('@') : s.length));
    await runTool(
      {
        ...run,
        args: [...tools.npmArgs, 'rebuild', ...names, '--ignore-scripts=false', '--foreground-scripts'],
      },
      `running the install scripts of ${scripts.join(', ')}`,
    );
  }
}
